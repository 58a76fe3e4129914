#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("plugin-host runs on Linux: it needs Glibc or Musl")
#endif

/// The limit on the number of open descriptors of the process (`RLIMIT_NOFILE`).
enum DescriptorLimit {
    /// The soft limit now, and the hard limit.
    static var current: (soft: UInt64, hard: UInt64) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return (1024, 1024) }
        return (UInt64(limit.rlim_cur), UInt64(limit.rlim_max))
    }

    /// Raises the soft limit to at least `count`, as far as the hard limit allows.
    static func raise(toAtLeast count: UInt64) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, UInt64(limit.rlim_cur) < count else { return }
        limit.rlim_cur = rlim_t(min(count, UInt64(limit.rlim_max)))
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }

    /// Sets the soft limit back to `soft`: for a child that must see the limit its parent
    /// started with.
    static func restore(soft: UInt64) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, UInt64(limit.rlim_cur) != soft else { return }
        limit.rlim_cur = rlim_t(min(soft, UInt64(limit.rlim_max)))
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
}

/// Closes `descriptors`, ignoring those already closed: for a forked child that must not
/// keep its parent's.
func closeDescriptors(_ descriptors: [Int32]) {
    for descriptor in descriptors where descriptor >= 0 { close(descriptor) }
}
