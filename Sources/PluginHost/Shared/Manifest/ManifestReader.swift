/// Reads a plugin's manifest from its `.so` file without loading it.
///
/// The manifest is JSON in an ELF section named ``sectionName``, added to the built
/// library with `objcopy --add-section`, or compiled into it as a constant placed in that
/// section (``ManifestSection``, for SwiftPM builds). Reading it only parses the ELF section table, so
/// no code of the plugin runs and the whole dependency graph can be checked first.
enum ManifestReader {
    /// The name of the ELF section holding the manifest.
    static let sectionName = ".plugin_host_manifest"
    /// The largest manifest accepted.
    static let maximumSize: UInt64 = 64 * 1024

    /// Reads the manifest of the plugin file at `path`.
    ///
    /// - Throws: ``ManifestError``.
    static func manifest(at path: String) throws(ManifestError) -> PluginManifest {
        let file: ReadOnlyFile
        let size: UInt64
        do {
            file = try ReadOnlyFile(path: path)
            size = UInt64(max(try file.status().size, 0))
        } catch {
            throw .unreadable(error)
        }
        return try plugin(in: file, size: size).manifest
    }

    /// The manifest section of the plugin file at `path` as stored, whether or not it is a
    /// valid manifest; `nil` when the file has none or is not an ELF file this host reads.
    static func storedManifest(at path: String) -> [UInt8]? {
        section(sectionName, of: path, maximumSize: maximumSize)
    }

    /// The section `name` of the ELF file at `path`, read without loading it; `nil` when the
    /// file has none, holds more than `maximumSize` bytes in it, or is not an ELF file this
    /// host reads.
    static func section(_ name: String, of path: String, maximumSize: UInt64) -> [UInt8]? {
        guard let file = try? ReadOnlyFile(path: path), let size = try? file.status().size,
            let image = try? ELFImage(source: FileSource(file: file, size: UInt64(max(size, 0))))
        else { return nil }
        return try? image.contents(ofSection: name, maximumSize: maximumSize)
    }

    /// The build id of the open file `file`, when it is an ELF file that records one.
    static func buildID(of file: ReadOnlyFile) -> String? {
        guard let size = try? file.status().size, let image = try? ELFImage(source: FileSource(file: file, size: UInt64(max(size, 0))))
        else { return nil }
        return image.buildID
    }

    /// Reads the manifest of an open plugin file of `size` bytes, with where its loadable
    /// segments lie once mapped and the libraries it links.
    static func plugin(in file: ReadOnlyFile, size: UInt64) throws(ManifestError) -> Plugin {
        try plugin(in: FileSource(file: file, size: size))
    }

    /// Reads the manifest from an ELF image held anywhere.
    static func manifest(in source: any ELFImage.Source) throws(ManifestError) -> PluginManifest {
        try plugin(in: source).manifest
    }

    /// What a plugin file says about itself.
    struct Plugin {
        let manifest: PluginManifest
        /// Where its loadable segments lie once mapped.
        let segments: ELFImage.Segments?
        /// The libraries it links (`DT_NEEDED`).
        let needed: [String]
        /// The manifest section as stored.
        let stored: [UInt8]
    }

    /// Reads the manifest from an ELF image held anywhere, with where its loadable segments
    /// lie once mapped and the libraries it links.
    static func plugin(in source: any ELFImage.Source) throws(ManifestError) -> Plugin {
        let bytes: [UInt8]?
        let image: ELFImage
        do {
            image = try ELFImage(source: source)
            bytes = try image.contents(ofSection: sectionName, maximumSize: maximumSize)
        } catch let error as ELFError {
            if case .sectionTooLarge = error { throw .malformed("\(error)") }
            throw .notSharedObject(error)
        } catch let error as SystemError {
            throw .unreadable(error)
        } catch {
            throw .malformed("\(error)")
        }
        guard let bytes else { throw .missing }
        return Plugin(manifest: try PluginManifest(json: bytes), segments: image.segments, needed: image.neededLibraries(), stored: bytes)
    }
}

/// An open file as a source of ELF bytes.
///
/// Reads the ELF header with the program headers after it, then the section table with
/// the section names that linkers put just before it, and serves every read that falls
/// inside them from memory; reading a manifest takes three small `pread`s (head, section
/// table, manifest), a few kilobytes in all.
private struct FileSource: ELFImage.Source {
    /// The ELF header (64 bytes) and the program headers that follow it (56 bytes each).
    static let headSize = 1024
    /// How much is read before the section table, for the section names.
    static let namesRoom: UInt64 = 2048
    /// The most read at once for the section table and names; a larger table is read
    /// where it is needed.
    static let tailLimit: UInt64 = 64 * 1024

    let file: ReadOnlyFile
    let size: UInt64
    private let head: [UInt8]
    private let tail: [UInt8]
    private let tailStart: UInt64

    init(file: ReadOnlyFile, size: UInt64) throws(ManifestError) {
        self.file = file
        self.size = size
        do {
            head = try file.read(count: Int(min(UInt64(Self.headSize), size)), at: 0)
            if let table = ELFImage.sectionTable(inHeader: head, fileSize: size), UInt64(table.count) <= Self.tailLimit {
                tailStart = table.lowerBound > Self.namesRoom ? table.lowerBound - Self.namesRoom : 0
                tail = try file.read(count: Int(table.upperBound - tailStart), at: tailStart)
            } else {
                (tailStart, tail) = (size, [])
            }
        } catch {
            throw .unreadable(error)
        }
    }

    func read(count: Int, at offset: UInt64) throws -> [UInt8] {
        if offset + UInt64(count) <= UInt64(head.count) {
            return Array(head[Int(offset)..<Int(offset) + count])
        }
        if offset >= tailStart, offset - tailStart + UInt64(count) <= UInt64(tail.count) {
            let start = Int(offset - tailStart)
            return Array(tail[start..<start + count])
        }
        return try file.read(count: count, at: offset)
    }
}

/// Bytes in memory as a source of ELF bytes.
struct MemorySource: ELFImage.Source {
    let bytes: [UInt8]

    var size: UInt64 { UInt64(bytes.count) }

    func read(count: Int, at offset: UInt64) throws -> [UInt8] {
        let start = Int(min(offset, UInt64(bytes.count)))
        return Array(bytes[start..<min(start + count, bytes.count)])
    }
}
