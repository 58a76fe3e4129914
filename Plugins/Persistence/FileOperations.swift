import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The few file system calls the store needs, with the durability steps spelled out.
enum FileOperations {
    /// Creates `path` and its missing parents.
    static func createDirectories(_ path: String) throws(BananaStoreError) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for part in path.split(separator: "/") {
            prefix += part
            if mkdir(prefix, 0o755) != 0 && errno != EEXIST {
                throw .unwritable(path: path, reason: "cannot create directory \(prefix): \(reason())")
            }
            prefix += "/"
        }
    }

    /// The bytes of the file at `path`, or `nil` when there is no such file.
    static func contents(of path: String) throws(BananaStoreError) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        if descriptor < 0 {
            if errno == ENOENT { return nil }
            throw .unreadable(path: path, reason: reason())
        }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(descriptor, &chunk, chunk.count)
            if count < 0 {
                if errno == EINTR { continue }
                throw .unreadable(path: path, reason: reason())
            }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[..<count])
        }
    }

    /// Replaces the file at `path` with `bytes` so that a crash at any moment leaves
    /// either the old file or the new one: write a temporary file beside it, `fsync` it,
    /// `rename` it over the old one, `fsync` the directory.
    ///
    /// The temporary file has one fixed name, `PATH.tmp`: the store's lock makes it this
    /// process's alone, and a run killed mid-write leaves at most that one file, which the
    /// next open removes.
    static func replaceAtomically(_ path: String, with bytes: [UInt8]) throws(BananaStoreError) {
        let temporary = temporaryFile(for: path)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw .unwritable(path: path, reason: "cannot create \(temporary): \(reason())") }
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                let failure = reason()
                close(descriptor)
                unlink(temporary)
                throw .unwritable(path: path, reason: "cannot write \(temporary): \(failure)")
            }
            written += count
        }
        guard fsync(descriptor) == 0 else {
            let failure = reason()
            close(descriptor)
            unlink(temporary)
            throw .unwritable(path: path, reason: "cannot flush \(temporary) to disk: \(failure)")
        }
        close(descriptor)
        guard rename(temporary, path) == 0 else {
            let failure = reason()
            unlink(temporary)
            throw .unwritable(path: path, reason: "cannot rename \(temporary) to \(path): \(failure)")
        }
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        let directoryDescriptor = open(directory.isEmpty ? "/" : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryDescriptor >= 0 {
            defer { close(directoryDescriptor) }
            guard fsync(directoryDescriptor) == 0 else {
                throw .unwritable(path: path, reason: "cannot flush directory \(directory) to disk: \(reason())")
            }
        }
    }

    static func temporaryFile(for path: String) -> String { path + ".tmp" }

    /// Removes the temporary file a killed run may have left; call with the lock held.
    static func removeLeftover(temporaryFileFor path: String) {
        unlink(temporaryFile(for: path))
    }

    /// An exclusive advisory lock on a file, held until ``release()`` or the end of the
    /// process.
    final class Lock: Sendable {
        private let descriptor: Int32
        private let released = Mutex(false)

        /// Takes the lock on `path` (created if needed), writing this process's id in it.
        ///
        /// - Throws: ``BananaStoreError/inUse(path:holder:)`` when another process holds it.
        init(path: String, guarding store: String) throws(BananaStoreError) {
            let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else { throw .unwritable(path: store, reason: "cannot open lock file \(path): \(reason())") }
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
                let failure = errno
                var holder = [UInt8](repeating: 0, count: 32)
                let count = read(descriptor, &holder, holder.count)
                close(descriptor)
                guard failure == EWOULDBLOCK else {
                    throw .unwritable(path: store, reason: "cannot lock \(path): \(String(cString: strerror(failure)))")
                }
                let pid = count > 0 ? String(decoding: holder[..<count], as: UTF8.self).filter(\.isNumber) : ""
                throw .inUse(path: store, holder: pid.isEmpty ? "another process" : "process \(pid)")
            }
            let pid = Array("\(getpid())\n".utf8)
            _ = ftruncate(descriptor, 0)
            _ = pwrite(descriptor, pid, pid.count, 0)
            self.descriptor = descriptor
        }

        /// Whether ``release()`` was called.
        var isReleased: Bool { released.withLock { $0 } }

        /// Releases the lock and closes its file.
        func release() {
            released.withLock { released in
                guard !released else { return }
                released = true
                close(descriptor)
            }
        }

        deinit { release() }
    }

    private static func reason() -> String { String(cString: strerror(errno)) }
}
