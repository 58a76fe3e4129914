/// What earlier scans read from the plugin files of one directory, so that a file that has
/// not changed is not opened and parsed again: in the spirit of GStreamer's registry.
///
/// An entry is used only for the same file, unchanged: same device, inode, size,
/// modification time and change time (`st_ctim`, which only the kernel sets, so a file
/// rewritten or replaced in any way misses). It holds only what the file's bytes say (the
/// stored manifest, the libraries it links, where its segments lie), never what a trust
/// check decides: ownership and permissions are checked on a fresh `lstat` at every scan.
///
/// The cache lives in `$XDG_CACHE_HOME/plugin-host` (else `~/.cache/plugin-host`), one file
/// per plugin directory, written in one step and used only when this user owns it and no
/// one else can write it. A cache that cannot be read, is damaged or is of another format is
/// ignored and rewritten; one that cannot be written is not used. `PLUGIN_HOST_CACHE=off`
/// turns it off.
struct ManifestCache {
    /// What one plugin file said when it was read.
    struct Entry: Equatable {
        let device: UInt64
        let inode: UInt64
        let size: Int64
        let modified: Int64
        let changed: Int64
        let stored: [UInt8]
        let needed: [String]
        let segments: ELFImage.Segments?

        /// Whether it was read from the file `status` describes, as it is now.
        func describes(_ status: FileStatus) -> Bool {
            device == status.device && inode == status.inode && size == status.size
                && modified == status.modificationNanoseconds && changed == status.changeNanoseconds
        }
    }

    static let format = "plugin-host manifest cache 1\n"

    /// The cache file; `nil` when there is none to use.
    let file: String?
    /// The entries read from it, by file name.
    let entries: [String: Entry]

    /// The cache of the plugin directory `directory` (an absolute, resolved path).
    init(directory: String) {
        file = Self.file(for: directory)
        entries = file.flatMap(readPrivateFile).flatMap(Self.decode) ?? [:]
    }

    /// The entry for the file `name`, if it describes the file as `status` says it is now.
    func entry(_ name: String, _ status: FileStatus) -> Entry? {
        guard let entry = entries[name], entry.describes(status) else { return nil }
        return entry
    }

    /// Writes `current`, the entries of every plugin file the scan read, when they differ
    /// from what the cache held. Failing to write it is not an error: the next scan reads
    /// the files again.
    func save(_ current: [String: Entry]) {
        guard let file, current != entries else { return }
        try? replacePrivateFile(file, bytes: Self.encode(current))
    }

    // MARK: The file

    private static func file(for directory: String) -> String? {
        guard Process.environment("PLUGIN_HOST_CACHE") != "off" else { return nil }
        let base: String
        if let cache = Process.environment("XDG_CACHE_HOME"), cache.hasPrefix("/") {
            base = cache
        } else if let home = Process.environment("HOME"), home.hasPrefix("/") {
            base = home + "/.cache"
        } else {
            return nil
        }
        // A hash of the directory's path: one file per directory, a short name.
        return base + "/plugin-host/manifests-" + FNV1a.hex(directory.utf8)
    }

    /// The format: the line ``format``, then per entry a line of numbers (the lengths of the
    /// name, the libraries joined by NUL and the manifest; device, inode, size, the two times;
    /// the bounds of the segments and which of them there are: 0 none, 1 all, 2 all and
    /// code), then those three byte strings.
    static func encode(_ entries: [String: Entry]) -> [UInt8] {
        var bytes = Array(format.utf8)
        for name in entries.keys.sorted() {
            let entry = entries[name]!
            let needed = Array(entry.needed.joined(separator: "\0").utf8)
            let bounds = [entry.segments?.whole.lowerBound, entry.segments?.whole.upperBound, entry.segments?.code?.lowerBound,
                          entry.segments?.code?.upperBound].map { String(Int64(bitPattern: $0 ?? 0)) }
            let kind = entry.segments == nil ? "0" : entry.segments?.code == nil ? "1" : "2"
            let numbers = [name.utf8.count, needed.count, entry.stored.count].map(String.init)
                + [Int64(bitPattern: entry.device), Int64(bitPattern: entry.inode), entry.size, entry.modified, entry.changed].map(String.init)
                + bounds + [kind]
            bytes += numbers.joined(separator: " ").utf8
            bytes.append(UInt8(ascii: "\n"))
            bytes += name.utf8
            bytes += needed
            bytes += entry.stored
        }
        return bytes
    }

    /// The entries of a cache file; `nil` when it is not one of this format, or damaged.
    static func decode(_ bytes: [UInt8]) -> [String: Entry]? {
        let header = Array(format.utf8)
        guard bytes.starts(with: header) else { return nil }
        var entries: [String: Entry] = [:]
        var position = header.count
        while position < bytes.count {
            // Thirteen decimal numbers, separated by spaces, ending with a newline.
            var values: [Int64] = []
            values.reserveCapacity(13)
            var value: Int64 = 0
            var negative = false
            var digits = 0
            var newline = position
            while newline < bytes.count {
                let byte = bytes[newline]
                if byte == UInt8(ascii: "-"), digits == 0, !negative {
                    negative = true
                } else if byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9"), digits < 19 {
                    value = value * 10 + Int64(byte - UInt8(ascii: "0"))
                    digits += 1
                } else if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n"), digits > 0 {
                    values.append(negative ? -value : value)
                    (value, negative, digits) = (0, false, 0)
                    if byte == UInt8(ascii: "\n") { break }
                } else {
                    return nil
                }
                newline += 1
            }
            guard newline < bytes.count, values.count == 13 else { return nil }
            let lengths = values[0..<3].map(Int.init)
            guard lengths.allSatisfy({ $0 >= 0 }), lengths.reduce(0, +) <= bytes.count - newline - 1 else { return nil }
            var cursor = newline + 1
            func take(_ count: Int) -> ArraySlice<UInt8> {
                defer { cursor += count }
                return bytes[cursor..<cursor + count]
            }
            let name = String(decoding: take(lengths[0]), as: UTF8.self)
            let neededBytes = take(lengths[1])
            let needed = neededBytes.isEmpty ? [] : neededBytes.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
            let stored = Array(take(lengths[2]))
            var segments: ELFImage.Segments?
            if values[12] > 0 {
                let bounds = values[8...11].map { UInt64(bitPattern: $0) }
                guard bounds[0] <= bounds[1], bounds[2] <= bounds[3] else { return nil }
                segments = ELFImage.Segments(whole: bounds[0]..<bounds[1], code: values[12] == 2 ? bounds[2]..<bounds[3] : nil)
            }
            entries[name] = Entry(
                device: UInt64(bitPattern: values[3]), inode: UInt64(bitPattern: values[4]), size: values[5], modified: values[6],
                changed: values[7], stored: stored, needed: needed, segments: segments)
            position = cursor
        }
        return entries
    }
}

extension ManifestCache.Entry {
    init(_ status: FileStatus, _ plugin: ManifestReader.Plugin) {
        self.init(status, stored: plugin.stored, needed: plugin.needed, segments: plugin.segments)
    }

    init(_ status: FileStatus, stored: [UInt8], needed: [String], segments: ELFImage.Segments?) {
        self.init(
            device: status.device, inode: status.inode, size: status.size, modified: status.modificationNanoseconds,
            changed: status.changeNanoseconds, stored: stored, needed: needed, segments: segments)
    }
}
