/// The record of what the host proved (``BuildRecord``) on disk: one file for each set of
/// plugin directories as the file system resolves them (``ResolvedDirectories``), in the
/// state directory, kept by the supervisor only. It is written
/// whole (a new file, flushed, renamed over the old one, the directory flushed) and checked
/// when read, so that a crash at any moment leaves either a record the next start reads or
/// one it finds damaged, says so once, and ignores.
///
/// The format is text, a line per fact, fields separated by tabs (`%`, tab and newline
/// written as `%25`, `%09`, `%0A`):
///
/// ```
/// plugin-host record 2
/// directories	/srv/app/plugins
/// left-out	Ticker	/srv/app/plugins/libTicker.so	0.3.1	DEVICE	INODE	SIZE	MTIME_NS	CTIME_NS	SINCE	crashed during the run phase: SIGSEGV
/// permanent	Ticker	/srv/app/plugins/libTicker.so	0.3.0	DEVICE	INODE	SIZE	MTIME_NS	CTIME_NS	COPY: DEVICE INODE SIZE MTIME_NS CTIME_NS, or five -	SINCE
/// on-trial	Echo	/srv/app/plugins/libEcho.so	1.2.0	DEVICE	INODE	SIZE	MTIME_NS	CTIME_NS	SINCE
/// end	FNV-1a 64 of every byte before this line, in hex
/// ```
///
/// `SINCE` is when the record first kept the build so, in seconds since 1970, or `-`. A record
/// of format 1 (builds left out only, without `SINCE`) is read as one that keeps nothing else.
struct RecordFile {
    let path: String
    /// The plugin directories it is the record of, as the file system resolves them.
    let directories: ResolvedDirectories
    /// The directory relative paths are read from: a build's file is kept as an absolute
    /// path, its directory resolved, so that a start from another directory, or with
    /// another spelling of it, finds it.
    var workingDirectory = "/"

    /// The record's first line: a later format is refused, not misread.
    static let format = "plugin-host record 2"
    private static let formatsRead = [format, "plugin-host record 1"]

    /// What reading found.
    enum Reading: Equatable {
        /// No record: the host has proved nothing here yet.
        case none
        case record(BuildRecord)
        /// A record that is there and cannot be opened (this user may not read it).
        case unreadable(SystemError)
        /// A record that cannot be trusted, and why: ignored.
        case damaged(String)
    }

    init(path: String, directories: ResolvedDirectories, workingDirectory: String = "/") {
        self.path = path
        self.directories = directories
        self.workingDirectory = workingDirectory
    }

    /// The record of `directories`, in the state directory (``stateDirectory(_:workingDirectory:environment:)``);
    /// `nil` when there is none. The file's name holds the ``ResolvedDirectories/key`` of the
    /// directories: every spelling of them names one record.
    init?(of directories: [String], state: String?, workingDirectory: String, environment: (String) -> String?) {
        guard let base = Self.stateDirectory(state, workingDirectory: workingDirectory, environment: environment) else { return nil }
        self.directories = ResolvedDirectories(directories, workingDirectory: workingDirectory)
        self.workingDirectory = workingDirectory
        path = base + "/record-" + self.directories.key
    }

    /// The state directory: `state` (`--state`), else systemd's `$STATE_DIRECTORY` (its
    /// first), else `$XDG_STATE_HOME/plugin-host`, else `$HOME/.local/state/plugin-host`;
    /// `nil` when none of these is an absolute path.
    static func stateDirectory(_ state: String?, workingDirectory: String, environment: (String) -> String?) -> String? {
        if let state, !state.isEmpty {
            return state.hasPrefix("/") ? state : workingDirectory + "/" + state
        } else if let systemd = environment("STATE_DIRECTORY")?.split(separator: ":").first, systemd.hasPrefix("/") {
            return String(systemd)
        } else if let xdg = environment("XDG_STATE_HOME"), xdg.hasPrefix("/") {
            return xdg + "/plugin-host"
        } else if let home = environment("HOME"), home.hasPrefix("/") {
            return home + "/.local/state/plugin-host"
        }
        return nil
    }

    /// The directory that holds the record.
    var stateDirectory: String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The file a write of the record holds locked while it writes.
    var lockPath: String { path + ".lock" }

    /// Reads the record once no write of it is under way: one that a host before this one
    /// began (its process outlives that host) finishes first, so that what that host proved
    /// is read. A state directory that does not answer holds this up, as reading would.
    func readAfterWrites() -> Reading {
        let lock = FileLock.forReading(lockPath)
        defer { lock?.unlock() }
        return read()
    }

    /// Reads the record; a file that is not there is no record.
    func read() -> Reading {
        let file: ReadOnlyFile
        do {
            file = try ReadOnlyFile(path: path)
        } catch {
            return error.isMissing ? .none : .unreadable(error)
        }
        guard let bytes = try? file.readAll() else { return .damaged("it cannot be read") }
        return Self.decode(bytes)
    }

    /// Why the record cannot be read, when it cannot: the state directory is missing, is not a
    /// directory, or it or the record may not be read by this user. `nil` when it can be read,
    /// or simply holds no record yet.
    func unreadable() -> SystemError? {
        do {
            let status = try FileStatus(path: stateDirectory)
            guard status.kind == .directory else { return .notADirectory("read the state directory", path: stateDirectory) }
            _ = try directoryEntries(at: stateDirectory)
            if (try? FileStatus(path: path)) != nil { _ = try ReadOnlyFile(path: path) }
            return nil
        } catch {
            return error
        }
    }

    /// A record of the same directories under another name, which a host that keyed records by
    /// the text of `--dir` (not as the file system resolves it) wrote: the newest, when the
    /// record has no file of its own yet. Each record names its directories on its second line.
    func earlier() -> String? {
        guard (try? FileStatus(path: path)) == nil, let names = try? directoryEntries(at: stateDirectory) else { return nil }
        var found: (path: String, modified: Int64)?
        for name in names where name.hasPrefix("record-") && !name.hasSuffix(".tmp") && !name.hasSuffix(".lock") {
            let candidate = stateDirectory + "/" + name
            guard candidate != path, let status = try? FileStatus(path: candidate), status.kind == .regular,
                let named = Self.directories(in: candidate), ResolvedDirectories(named, workingDirectory: "/") == directories,
                found.map({ status.modificationNanoseconds > $0.modified }) ?? true
            else { continue }
            found = (candidate, status.modificationNanoseconds)
        }
        return found?.path
    }

    /// Takes over the record at `earlier` (``earlier()``) as this one: it and its copies are
    /// renamed to this record's names.
    ///
    /// - Throws: ``SystemError`` when it cannot be renamed; it stays where it was.
    func takeOver(_ earlier: String) throws(SystemError) {
        try renameEntry(earlier, to: path)
        let copies = BuildCopies(besideRecordAt: earlier).directory
        if (try? FileStatus(path: copies)) != nil { try renameEntry(copies, to: BuildCopies(beside: self).directory) }
    }

    /// The directories the record at `file` names, as its second line holds them.
    private static func directories(in file: String) -> [String]? {
        guard let bytes = try? ReadOnlyFile(path: file).readAll() else { return nil }
        let lines = bytes.split(separator: UInt8(ascii: "\n"), maxSplits: 2, omittingEmptySubsequences: false)
        guard lines.count >= 2, formatsRead.contains(String(decoding: lines[0], as: UTF8.self)) else { return nil }
        let fields = lines[1].split(separator: UInt8(ascii: "\t"), omittingEmptySubsequences: false)
        guard fields.count == 2, fields[0].elementsEqual("directories".utf8) else { return nil }
        return String(decoding: fields[1], as: UTF8.self).split(separator: ":").map { unescape(String($0)) }
    }

    /// Replaces the record with `record`.
    ///
    /// - Throws: ``SystemError`` naming what failed; the record before stays as it was.
    func write(_ record: BuildRecord) throws(SystemError) {
        try makeDirectories(stateDirectory)
        var kept = record
        var resolved: [String: String] = [:]
        func file(_ file: String) -> String {
            if let known = resolved[file] { return known }
            let path = ResolvedDirectories.resolveFile(file, in: workingDirectory)
            resolved[file] = path
            return path
        }
        for index in kept.leftOut.indices { kept.leftOut[index].file = file(kept.leftOut[index].file) }
        for index in kept.permanent.indices { kept.permanent[index].file = file(kept.permanent[index].file) }
        for index in kept.onTrial.indices { kept.onTrial[index].file = file(kept.onTrial[index].file) }
        try replacePrivateFile(path, bytes: Self.encode(kept, directories: directories.paths), durably: true)
    }

    // MARK: The format

    static func encode(_ record: BuildRecord, directories: [String]) -> [UInt8] {
        var lines = [format, line("directories", directories.joined(separator: ":"))]
        func since(_ seconds: Int64?) -> String { seconds.map(String.init) ?? "-" }
        for build in record.leftOut {
            lines.append(line(["left-out", build.name, build.file, build.version] + fields(build.identity) + [since(build.since), build.reason.text]))
        }
        for build in record.permanent {
            lines.append(line(["permanent", build.name, build.file, build.version] + fields(build.identity)
                + (build.copy.map(fields) ?? Array(repeating: "-", count: 5)) + [since(build.since)]))
        }
        for build in record.onTrial {
            lines.append(line(["on-trial", build.name, build.file, build.version] + fields(build.identity) + [since(build.since)]))
        }
        var bytes = Array((lines.joined(separator: "\n") + "\n").utf8)
        bytes += Array("end\t\(checksum(bytes))\n".utf8)
        return bytes
    }

    static func decode(_ bytes: [UInt8]) -> Reading {
        guard let endLine = bytes.dropLast().lastIndex(of: UInt8(ascii: "\n")).map({ $0 + 1 }), bytes.last == UInt8(ascii: "\n") else {
            return .damaged("it ends before its last line (a write cut short)")
        }
        let body = Array(bytes[..<endLine])
        let end = String(decoding: bytes[endLine..<(bytes.count - 1)], as: UTF8.self)
        guard end.hasPrefix("end\t") else { return .damaged("it ends before its last line (a write cut short)") }
        guard end == "end\t" + checksum(body) else { return .damaged("its checksum does not match its contents") }
        // By bytes: splitting a String by characters finds grapheme boundaries, which a record
        // of a thousand plugins would pay for at every start.
        let lines = body.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).dropLast()
        guard let first = lines.first.map({ String(decoding: $0, as: UTF8.self) }), formatsRead.contains(first) else {
            return .damaged("it does not begin with '\(format)' (a later version of plugin-host may have written it)")
        }
        let formatOne = first != format
        var record = BuildRecord()
        for (number, text) in lines.enumerated().dropFirst() {
            let fields = text.split(separator: UInt8(ascii: "\t"), omittingEmptySubsequences: false)
            let kind = String(decoding: fields[0], as: UTF8.self)
            switch kind {
            case "directories":
                continue
            case "left-out", "permanent", "on-trial":
                // The numbers are read from their bytes, the words unescaped: a record of a
                // thousand plugins is read at every start.
                let count = formatOne ? ["left-out": 10][kind] : ["left-out": 11, "permanent": 15, "on-trial": 10][kind]
                let damaged = Reading.damaged("line \(number + 1) is not a build as this version writes one")
                guard fields.count == count, let identity = Self.identity(fields[4..<9]) else { return damaged }
                let word = { (index: Int) in unescape(String(decoding: fields[index], as: UTF8.self)) }
                // The last field but one of a build left out, the last of the others; none in format 1.
                let sinceField = formatOne ? nil : fields[kind == "left-out" ? 9 : fields.count - 1]
                let since = sinceField.flatMap { $0.elementsEqual("-".utf8) ? nil : Self.signedNumber($0) }
                if let sinceField, since == nil, !sinceField.elementsEqual("-".utf8) { return damaged }
                let build = BuildRecord.Build(name: word(1), file: word(2), version: word(3), identity: identity, since: since)
                switch kind {
                case "left-out":
                    record.leftOut.append(BuildRecord.LeftOut(
                        name: build.name, file: build.file, version: build.version, identity: identity, reason: .recorded(word(fields.count - 1)), since: since))
                case "permanent":
                    var permanent = build
                    permanent.copy = Self.identity(fields[9..<14])
                    guard permanent.copy != nil || fields[9..<14].allSatisfy({ $0.elementsEqual("-".utf8) }) else { return damaged }
                    record.permanent.append(permanent)
                default:
                    record.onTrial.append(build)
                }
            default:
                return .damaged("line \(number + 1) is not understood")
            }
        }
        return .record(record)
    }

    /// An identity's five numbers as fields, as the record writes them (and the record's
    /// writer is handed them).
    static func fields(_ identity: FileIdentity) -> [String] {
        [String(identity.device), String(identity.inode), String(identity.size), String(identity.modificationNanoseconds), String(identity.changeNanoseconds)]
    }

    /// The identity in five fields; `nil` when they are not its numbers.
    static func identity(_ fields: ArraySlice<ArraySlice<UInt8>>) -> FileIdentity? {
        let at = fields.startIndex
        guard fields.count == 5, let device = number(fields[at]), let inode = number(fields[at + 1]),
            let size = number(fields[at + 2]).flatMap(Int64.init(exactly:)), let modified = signedNumber(fields[at + 3]),
            let changed = signedNumber(fields[at + 4])
        else { return nil }
        return FileIdentity(device: device, inode: inode, size: size, modificationNanoseconds: modified, changeNanoseconds: changed)
    }

    /// A decimal number written by `String(_:)`, from its bytes; `nil` for anything else.
    private static func number(_ digits: ArraySlice<UInt8>) -> UInt64? {
        guard !digits.isEmpty, digits.count <= 20 else { return nil }
        var value: UInt64 = 0
        for digit in digits {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(digit) else { return nil }
            let (times, overflowed) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowedAgain) = times.addingReportingOverflow(UInt64(digit - UInt8(ascii: "0")))
            guard !overflowed, !overflowedAgain else { return nil }
            value = sum
        }
        return value
    }

    private static func signedNumber(_ digits: ArraySlice<UInt8>) -> Int64? {
        if digits.first == UInt8(ascii: "-") {
            return number(digits.dropFirst()).flatMap { $0 <= UInt64(Int64.max) + 1 ? Int64(truncatingIfNeeded: 0 &- $0) : nil }
        }
        return number(digits).flatMap(Int64.init(exactly:))
    }

    private static func line(_ fields: String...) -> String {
        line(fields)
    }

    private static func line(_ fields: [String]) -> String {
        fields.map(escape).joined(separator: "\t")
    }

    private static func escape(_ field: String) -> String {
        var escaped = ""
        for character in field.unicodeScalars {
            switch character {
            case "%": escaped += "%25"
            case "\t": escaped += "%09"
            case "\n": escaped += "%0A"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }

    private static func unescape(_ field: String) -> String {
        guard field.utf8.contains(UInt8(ascii: "%")) else { return field }
        var bytes: [UInt8] = []
        var rest = Array(field.utf8)[...]
        while let byte = rest.popFirst() {
            if byte == UInt8(ascii: "%"), rest.count >= 2, let value = UInt8(String(decoding: rest.prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(value)
                rest = rest.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The last line's checksum of the lines before it.
    static func checksum(_ bytes: [UInt8]) -> String {
        FNV1a.hex(bytes)
    }
}

extension BuildRecord {
    /// Gives each build the instant `earlier` kept it so (the same plugin, contents and
    /// verdict), else `now`.
    ///
    /// Each plugin's entries are found by its name first: a record of a thousand plugins is
    /// stamped at every write.
    mutating func stamp(since earlier: BuildRecord, now: Int64) {
        func since(_ name: String, _ identity: FileIdentity, in before: [String: [(identity: FileIdentity, since: Int64?)]]) -> Int64 {
            before[name]?.first { $0.identity.hasSameContents(as: identity) }?.since ?? now
        }
        let leftOutBefore = Dictionary(grouping: earlier.leftOut, by: \.name).mapValues { $0.map { ($0.identity, $0.since) } }
        for index in leftOut.indices { leftOut[index].since = since(leftOut[index].name, leftOut[index].identity, in: leftOutBefore) }
        func stamped(_ builds: inout [Build], _ before: [Build]) {
            let byName = Dictionary(grouping: before, by: \.name).mapValues { $0.map { ($0.identity, $0.since) } }
            for index in builds.indices { builds[index].since = since(builds[index].name, builds[index].identity, in: byName) }
        }
        stamped(&permanent, earlier.permanent)
        stamped(&onTrial, earlier.onTrial)
    }
}
