#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("plugin-host runs on Linux: it needs Glibc or Musl")
#endif

/// An advisory lock on a file (`flock`), held until ``unlock()`` or the process ends: for
/// processes that must not read what another writes half done, such as a start that reads the
/// record while a write of it, left by the host before, is under way.
struct FileLock {
    private let descriptor: Int32

    /// Takes the lock on the file at `path` for writing (exclusive), creating the file (mode
    /// 600), waiting as long as another process holds it.
    ///
    /// - Throws: ``SystemError`` when the file cannot be opened or locked.
    static func forWriting(_ path: String) throws(SystemError) -> FileLock {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw SystemError("open the lock", path: path) }
        guard SystemCall.retryingOnInterrupt({ flock(descriptor, LOCK_EX) }) == 0 else {
            let error = SystemError("lock", path: path)
            close(descriptor)
            throw error
        }
        return FileLock(descriptor: descriptor)
    }

    /// Takes the lock on the file at `path` for reading (shared with other readers), waiting
    /// as long as a writer holds it; `nil` when there is no such file (nothing ever wrote
    /// under it) or it cannot be locked.
    static func forReading(_ path: String) -> FileLock? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { return nil }
        guard SystemCall.retryingOnInterrupt({ flock(descriptor, LOCK_SH) }) == 0 else {
            close(descriptor)
            return nil
        }
        return FileLock(descriptor: descriptor)
    }

    /// Lets go of the lock.
    func unlock() {
        close(descriptor)
    }
}
