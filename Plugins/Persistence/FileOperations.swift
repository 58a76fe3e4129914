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
        let descriptor = openAboveStandardStreams(path, O_RDONLY | O_CLOEXEC)
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
        let descriptor = openAboveStandardStreams(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
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
        let directoryDescriptor = openAboveStandardStreams(directory.isEmpty ? "/" : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
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

    /// Opens `path` on a descriptor above 2: when plugin code has closed standard output
    /// or error, a file opened on their number would receive whatever is printed.
    ///
    /// - Returns: The descriptor, or -1 with `errno` set.
    static func openAboveStandardStreams(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 {
        let descriptor = open(path, flags, mode)
        guard descriptor >= 0, descriptor <= 2 else { return descriptor }
        let moved = fcntl(descriptor, F_DUPFD_CLOEXEC, 3)
        let saved = errno
        close(descriptor)
        errno = saved
        return moved
    }

    /// An exclusive lock on a file, held until ``release()`` or the end of the process.
    ///
    /// A POSIX record lock (`fcntl`): the kernel names its holder to a process that is
    /// refused, and a process forked from the holder does not inherit it. Such a lock is
    /// lost when any descriptor of the file is closed, so ``verify()`` takes it again (or
    /// learns it was taken) before every write. One store per lock file per process:
    /// opening a second one in the same process is refused too.
    final class Lock: Sendable {
        private let descriptor: Int32
        private let path: String
        private let store: String
        private let released = Mutex(false)
        /// The lock files this process holds.
        private static let held = Mutex(Set<String>())

        /// Takes the lock on `path` (created if needed), writing this process's id in it.
        ///
        /// - Throws: ``BananaStoreError/inUse(path:holder:)`` when another process holds it.
        init(path: String, guarding store: String) throws(BananaStoreError) {
            guard Self.held.withLock({ $0.insert(path).inserted }) else {
                throw .inUse(path: store, holder: "this process (another component opened it already)")
            }
            let descriptor = openAboveStandardStreams(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else {
                let failure = reason()
                Self.held.withLock { _ = $0.remove(path) }
                throw .unwritable(path: store, reason: "cannot open lock file \(path): \(failure)")
            }
            do {
                try Self.lock(descriptor, path: path, store: store)
            } catch {
                close(descriptor)
                Self.held.withLock { _ = $0.remove(path) }
                throw error
            }
            let pid = Array("\(getpid())\n".utf8)
            _ = ftruncate(descriptor, 0)
            _ = pwrite(descriptor, pid, pid.count, 0)
            self.descriptor = descriptor
            self.path = path
            self.store = store
        }

        /// Takes the lock, or names the process that holds it.
        private static func lock(_ descriptor: Int32, path: String, store: String) throws(BananaStoreError) {
            for _ in 0..<100 {
                var request = Glibc.flock()
                request.l_type = Int16(F_WRLCK)
                request.l_whence = Int16(SEEK_SET)
                if fcntl(descriptor, F_SETLK, &request) == 0 { return }
                guard errno == EACCES || errno == EAGAIN else {
                    throw .unwritable(path: store, reason: "cannot lock \(path): \(reason())")
                }
                var holder = Glibc.flock()
                holder.l_type = Int16(F_WRLCK)
                holder.l_whence = Int16(SEEK_SET)
                if fcntl(descriptor, F_GETLK, &holder) == 0, holder.l_type != Int16(F_UNLCK) {
                    throw .inUse(path: store, holder: "process \(holder.l_pid)")
                }
                // Released between the two calls: try again.
            }
            throw .inUse(path: store, holder: "another process")
        }

        /// Whether ``release()`` was called.
        var isReleased: Bool { released.withLock { $0 } }

        /// Checks that the lock is still this process's: its descriptor still refers to the
        /// lock file, and the lock can be taken again (it can, unless it was lost and
        /// another process took it).
        ///
        /// - Throws: ``BananaStoreError`` saying the store must not be written.
        func verify() throws(BananaStoreError) {
            var open = stat()
            var named = stat()
            guard fstat(descriptor, &open) == 0, stat(path, &named) == 0, open.st_dev == named.st_dev, open.st_ino == named.st_ino
            else {
                throw .lockLost(path: store, reason: "its lock file \(path) is no longer open (plugin code closed the descriptor?)")
            }
            do {
                try Self.lock(descriptor, path: path, store: store)
            } catch {
                throw .lockLost(path: store, reason: "\(error)")
            }
        }

        /// Releases the lock and closes its file.
        func release() {
            released.withLock { released in
                guard !released else { return }
                released = true
                close(descriptor)
                Self.held.withLock { _ = $0.remove(path) }
            }
        }

        deinit { release() }
    }

    private static func reason() -> String { String(cString: strerror(errno)) }
}
