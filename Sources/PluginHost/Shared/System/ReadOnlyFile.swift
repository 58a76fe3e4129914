#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("plugin-host runs on Linux: it needs Glibc or Musl")
#endif

/// A file opened for reading at arbitrary offsets; closed when the value goes away.
final class ReadOnlyFile {
    let path: String
    /// The descriptor: a forked child that reads the file keeps it open.
    let descriptor: Int32

    /// Opens `path` for reading. Opening does not block, even on a FIFO.
    ///
    /// - Parameter followingLinks: Whether a symbolic link is followed; when it is not, a
    ///   link fails with ``SystemError/isSymbolicLink``.
    /// - Throws: ``SystemError`` when the file cannot be opened.
    init(path: String, followingLinks: Bool = true) throws(SystemError) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (followingLinks ? 0 : O_NOFOLLOW))
        guard descriptor >= 0 else { throw SystemError("open", path: path) }
        self.path = path
        self.descriptor = descriptor
    }

    /// Takes `descriptor`, open for reading (one another process passed), as the file at
    /// `path`; closed when the value goes away.
    init(adopting descriptor: Int32, path: String) {
        self.path = path
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// The file's status.
    func status() throws(SystemError) -> FileStatus {
        try FileStatus(descriptor: descriptor, path: path)
    }

    /// A path that opens this very file, in this process and in every process forked from
    /// it while the value lives, even after the file was replaced or removed (the open
    /// descriptor keeps it): `/proc/self/fd/N`.
    var pathInForkedProcesses: String { "/proc/self/fd/\(descriptor)" }

    /// Reads up to `count` bytes starting at `offset`; fewer only at the end of the file.
    ///
    /// - Throws: ``SystemError`` when reading fails.
    func read(count: Int, at offset: UInt64) throws(SystemError) -> [UInt8] {
        guard count > 0 else { return [] }
        var failure: SystemError?
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            while initialized < count {
                let result = SystemCall.retryingOnInterrupt {
                    pread(descriptor, buffer.baseAddress! + initialized, count - initialized, off_t(offset) + off_t(initialized))
                }
                if result < 0 {
                    failure = SystemError("read", path: path)
                    return
                }
                if result == 0 { return }
                initialized += result
            }
        }
        if let failure { throw failure }
        return bytes
    }

    /// Reads until the end of the file, sequentially from where the descriptor stands: also a
    /// pipe, whose size is not known ahead. At most `limit` bytes.
    ///
    /// - Throws: ``SystemError`` when reading fails.
    func readToEnd(limit: Int) throws(SystemError) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let flags = fcntl(descriptor, F_GETFL)
        if flags >= 0 { _ = fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK) }
        while bytes.count < limit {
            let count = SystemCall.retryingOnInterrupt { Glibc.read(descriptor, &chunk, chunk.count) }
            if count < 0 { throw SystemError("read", path: path) }
            if count == 0 { break }
            bytes += chunk[..<count]
        }
        return bytes
    }

    /// Reads the whole file.
    func readAll() throws(SystemError) -> [UInt8] {
        let size = try status().size
        return try read(count: Int(max(size, 0)), at: 0)
    }
}

/// Creates the directory `path` (mode 755, or 700 when `private`); an existing directory is fine.
///
/// - Throws: ``SystemError``.
func makeDirectory(_ path: String, private: Bool = false) throws(SystemError) {
    guard mkdir(path, `private` ? 0o700 : 0o755) == 0 || errno == EEXIST else { throw SystemError("create directory", path: path) }
}

/// Creates the directory at `path` and any missing parents (mode 755, or 700 when
/// `private`), as `mkdir -p` does.
///
/// - Throws: ``SystemError`` when one cannot be created.
func makeDirectories(_ path: String, private: Bool = false) throws(SystemError) {
    var prefix = path.hasPrefix("/") ? "/" : ""
    for component in path.split(separator: "/") {
        prefix += (prefix.isEmpty || prefix.hasSuffix("/") ? "" : "/") + component
        try makeDirectory(prefix, private: `private`)
    }
}

/// Writes a file that must not exist yet (mode 644).
///
/// - Throws: ``SystemError``, also when the file exists.
func writeNewFile(_ path: String, contents: String) throws(SystemError) {
    try write(Array(contents.utf8), to: path, flags: O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode: 0o644)
}

/// Reads the file at `path` when it is a regular file (not a symbolic link) owned by this
/// user and writable by no one else; `nil` otherwise or when it cannot be read.
func readPrivateFile(_ path: String) -> [UInt8]? {
    guard let file = try? ReadOnlyFile(path: path, followingLinks: false), let status = try? file.status(),
        status.kind == .regular, status.owner == geteuid(), status.permissions & 0o022 == 0
    else { return nil }
    return try? file.readAll()
}

/// Replaces the file at `path` with `bytes` in one step (written to a temporary file in the
/// same directory, mode 600, then renamed over it), creating its directory and the one
/// above (mode 700) if needed; a reader sees the old file or the new one, never a part.
///
/// - Parameter durably: Whether the new file and the rename are on disk when it returns
///   (`fsync` of the file, then of its directory), so that a crash of the machine too
///   leaves the old file or the new one.
/// - Throws: ``SystemError``.
func replacePrivateFile(_ path: String, bytes: [UInt8], durably: Bool = false) throws(SystemError) {
    var directories: [String] = []
    var rest = path[...]
    for _ in 0..<2 {
        guard let slash = rest.utf8.lastIndex(of: UInt8(ascii: "/")), slash > rest.startIndex else { break }
        rest = rest[..<slash]
        directories.insert(String(rest), at: 0)
    }
    for directory in directories {
        guard mkdir(directory, 0o700) == 0 || errno == EEXIST else { throw SystemError("create directory", path: directory) }
    }
    let temporary = path + ".\(getpid()).tmp"
    do {
        try write(bytes, to: temporary, flags: O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode: 0o600, flushing: durably)
    } catch {
        unlink(temporary)
        throw error
    }
    guard rename(temporary, path) == 0 else {
        let error = SystemError("rename", path: path)
        unlink(temporary)
        throw error
    }
    if durably, let directory = directories.last { try syncDirectory(directory) }
}

/// Flushes `directory`'s entries to disk: the names created, renamed or removed in it.
///
/// - Throws: ``SystemError``.
func syncDirectory(_ directory: String) throws(SystemError) {
    let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard descriptor >= 0 else { throw SystemError("open", path: directory) }
    defer { close(descriptor) }
    guard fsync(descriptor) == 0 else { throw SystemError("fsync", path: directory) }
}

/// Writes `bytes` to a new file at `path` (mode 600, replacing none: it must not exist),
/// without waiting for the disk: ``flushFileSystem(of:)`` does, once for many.
///
/// - Throws: ``SystemError``.
func writePrivateFile(_ path: String, bytes: [UInt8]) throws(SystemError) {
    try write(bytes, to: path, flags: O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode: 0o600)
}

/// Flushes everything written to the file system that holds `path` (`syncfs`): one call in
/// place of an `fsync` for each of many files.
///
/// - Throws: ``SystemError``.
func flushFileSystem(of path: String) throws(SystemError) {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw SystemError("open", path: path) }
    defer { close(descriptor) }
    guard let syncfs = systemSyncFS, syncfs(descriptor) == 0 else { throw SystemError("syncfs", path: path) }
}

/// Glibc's `syncfs`, which its headers declare only for GNU sources: found by name.
private let systemSyncFS: (@convention(c) (Int32) -> Int32)? = dlsym(nil, "syncfs").map {
    unsafeBitCast($0, to: (@convention(c) (Int32) -> Int32).self)
}

/// Renames the file or directory at `path` to `target`, replacing a file there.
///
/// - Throws: ``SystemError``.
func renameEntry(_ path: String, to target: String) throws(SystemError) {
    guard rename(path, target) == 0 else { throw SystemError("rename \(path) to", path: target) }
}

/// Makes `path` a symbolic link to `target`, unless a name is there already.
///
/// - Throws: ``SystemError`` when it cannot be made, and nothing is there.
func makeSymbolicLink(_ path: String, to target: String) throws(SystemError) {
    guard symlink(target, path) == 0 || errno == EEXIST else { throw SystemError("create a symbolic link", path: path) }
}

/// Removes the name `path`; a name that is not there is no failure.
func removeFile(_ path: String) {
    _ = unlink(path)
}

/// Writes `contents` to the file at `path`, replacing it (mode 644).
///
/// - Throws: ``SystemError``.
func replaceFile(_ path: String, contents: String) throws(SystemError) {
    try write(Array(contents.utf8), to: path, flags: O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode: 0o644)
}

/// Opens `path` with `flags` (creating it with `mode`) and writes all of `contents`.
private func write(_ contents: [UInt8], to path: String, flags: Int32, mode: mode_t, flushing: Bool = false) throws(SystemError) {
    let descriptor = open(path, flags, mode)
    guard descriptor >= 0 else { throw SystemError("create", path: path) }
    defer { close(descriptor) }
    var bytes = contents[...]
    while !bytes.isEmpty {
        let written = SystemCall.retryingOnInterrupt { bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) } }
        if written < 0 { throw SystemError("write", path: path) }
        bytes = bytes.dropFirst(written)
    }
    if flushing, fsync(descriptor) != 0 { throw SystemError("fsync", path: path) }
}
