#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("plugin-host runs on Linux: it needs Glibc or Musl")
#endif

/// An open file, socket or pipe, by its descriptor number.
struct FileDescriptor: Hashable, Sendable, CustomStringConvertible {
    let rawValue: Int32

    init(rawValue: Int32) { self.rawValue = rawValue }

    static let standardOutput = FileDescriptor(rawValue: 1)
    static let standardError = FileDescriptor(rawValue: 2)

    /// Makes reading, writing and accepting on it return at once instead of waiting
    /// (`O_NONBLOCK`).
    func neverWaiting() {
        let flags = fcntl(rawValue, F_GETFL)
        if flags >= 0 { _ = fcntl(rawValue, F_SETFL, flags | O_NONBLOCK) }
    }

    /// Closes it when this process runs another program (`FD_CLOEXEC`), as every descriptor
    /// the host opens itself does.
    func closedOnExec() {
        let flags = fcntl(rawValue, F_GETFD)
        if flags >= 0 { _ = fcntl(rawValue, F_SETFD, flags | FD_CLOEXEC) }
    }

    /// Closes it; nothing may use it afterwards.
    func close() {
        _ = Glibc.close(rawValue)
    }

    var description: String { String(rawValue) }
}
