#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("plugin-host runs on Linux: it needs Glibc or Musl")
#endif

/// A failed C call: what was attempted, on which path, and the system's reason.
///
/// Reads like `open plugins/libA.so: Permission denied (errno: 13)`.
struct SystemError: Error, Equatable, CustomStringConvertible {
    /// What was attempted, such as `open`.
    let operation: String
    /// The file it concerned, if any.
    let path: String?
    /// The value of `errno` right after the call.
    let code: Int32

    /// Captures `errno` now; create it right after the failing call.
    init(_ operation: String, path: String? = nil) {
        self.init(operation, path: path, code: errno)
    }

    init(_ operation: String, path: String?, code: Int32) {
        self.operation = operation
        self.path = path
        self.code = code
    }

    /// Whether the call failed because the path is a symbolic link it was told not to follow.
    var isSymbolicLink: Bool { code == ELOOP }

    /// A path that had to be a directory and is not, as the system would say it.
    static func notADirectory(_ operation: String, path: String) -> SystemError {
        SystemError(operation, path: path, code: ENOTDIR)
    }

    /// Whether the call failed because the path, or a directory on it, does not exist.
    var isMissing: Bool { code == ENOENT || code == ENOTDIR }

    /// Whether the call failed because the file it was to create exists.
    var isExistingFile: Bool { code == EEXIST }

    /// Whether the call failed because the caller lacks the permission.
    var isPermissionDenied: Bool { code == EACCES || code == EPERM }

    /// The system's text for the error, such as `No such file or directory`.
    var reason: String { String(cString: strerror(code)) }

    var description: String {
        let subject = path.map { "\(operation) \($0)" } ?? operation
        return "\(subject): \(reason) (errno: \(code))"
    }
}
