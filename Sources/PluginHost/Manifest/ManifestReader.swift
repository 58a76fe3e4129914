/// Reads a plugin's manifest from its `.so` file without loading it.
///
/// The manifest is JSON in an ELF section named ``sectionName``, added to the built
/// library with `objcopy --add-section`. Reading it only parses the ELF section table, so
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
        do {
            file = try ReadOnlyFile(path: path)
        } catch {
            throw .unreadable(error)
        }
        return try manifest(in: FileSource(file: file))
    }

    /// Reads the manifest from an ELF image held anywhere.
    static func manifest(in source: any ELFImage.Source) throws(ManifestError) -> PluginManifest {
        let bytes: [UInt8]?
        do {
            bytes = try ELFImage(source: source).contents(ofSection: sectionName, maximumSize: maximumSize)
        } catch let error as ELFError {
            if case .sectionTooLarge = error { throw .malformed("\(error)") }
            throw .notSharedObject(error)
        } catch let error as SystemError {
            throw .unreadable(error)
        } catch {
            throw .malformed("\(error)")
        }
        guard let bytes else { throw .missing }
        return try PluginManifest(json: bytes)
    }
}

/// An open file as a source of ELF bytes.
private struct FileSource: ELFImage.Source {
    let file: ReadOnlyFile
    let size: UInt64

    init(file: ReadOnlyFile) throws(ManifestError) {
        self.file = file
        do {
            size = UInt64(max(try file.status().size, 0))
        } catch {
            throw .unreadable(error)
        }
    }

    func read(count: Int, at offset: UInt64) throws -> [UInt8] {
        try file.read(count: count, at: offset)
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
