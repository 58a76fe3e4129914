#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("plugin-host runs on Linux: it needs Glibc or Musl")
#endif

/// The one place where a system call that a signal interrupted is made again.
enum SystemCall {
    /// Calls `body` until it does not fail with `EINTR`.
    ///
    /// - Returns: What the last call returned; a failure (-1) leaves `errno` as the call set it.
    @inline(__always)
    static func retryingOnInterrupt<Result: BinaryInteger>(_ body: () -> Result) -> Result {
        while true {
            let result = body()
            if result == -1 && errno == EINTR { continue }
            return result
        }
    }
}
