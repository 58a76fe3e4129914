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
    private let descriptor: Int32

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

    deinit { close(descriptor) }

    /// The file's status.
    func status() throws(SystemError) -> FileStatus {
        try FileStatus(descriptor: descriptor, path: path)
    }

    /// Reads up to `count` bytes starting at `offset`; fewer only at the end of the file.
    ///
    /// - Throws: ``SystemError`` when reading fails.
    func read(count: Int, at offset: UInt64) throws(SystemError) -> [UInt8] {
        guard count > 0 else { return [] }
        var failure: SystemError?
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            while initialized < count {
                let result = pread(descriptor, buffer.baseAddress! + initialized, count - initialized, off_t(offset) + off_t(initialized))
                if result < 0 {
                    if errno == EINTR { continue }
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

    /// Reads the whole file.
    func readAll() throws(SystemError) -> [UInt8] {
        let size = try status().size
        return try read(count: Int(max(size, 0)), at: 0)
    }
}

/// Creates the directory `path` (mode 755); an existing directory is fine.
///
/// - Throws: ``SystemError``.
func makeDirectory(_ path: String) throws(SystemError) {
    guard mkdir(path, 0o755) == 0 || errno == EEXIST else { throw SystemError("create directory", path: path) }
}

/// Writes a file that must not exist yet (mode 644).
///
/// - Throws: ``SystemError``, also when the file exists.
func writeNewFile(_ path: String, contents: String) throws(SystemError) {
    try write(contents, to: path, flags: O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC)
}

/// Writes `contents` to the file at `path`, replacing it (mode 644).
///
/// - Throws: ``SystemError``.
func replaceFile(_ path: String, contents: String) throws(SystemError) {
    try write(contents, to: path, flags: O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC)
}

private func write(_ contents: String, to path: String, flags: Int32) throws(SystemError) {
    let descriptor = open(path, flags, 0o644)
    guard descriptor >= 0 else { throw SystemError("create", path: path) }
    defer { close(descriptor) }
    var bytes = Array(contents.utf8)[...]
    while !bytes.isEmpty {
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        if written < 0 {
            if errno == EINTR { continue }
            throw SystemError("write", path: path)
        }
        bytes = bytes.dropFirst(written)
    }
}
