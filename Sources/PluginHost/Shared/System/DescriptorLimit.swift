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

/// The process's table of descriptors.
enum DescriptorTable {
    /// Grows the table to hold descriptors below `count` (at most the soft limit), for a
    /// process that will open that many once it runs several threads. Linux grows the table
    /// by doubling, and it grows a table that several threads share only after a grace period
    /// of RCU (`synchronize_rcu`), which takes milliseconds, each time: called while the
    /// calling thread is the only one, the growth costs an allocation instead. The table
    /// never shrinks while the process lives; `fork` gives the child a table sized by the
    /// descriptors open, so a child grows its own.
    static func reserve(_ count: UInt64) {
        let highest = Int32(clamping: min(count, DescriptorLimit.current.soft)) - 1
        guard highest > 2 else { return }
        let anchor = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard anchor >= 0 else { return }
        let placed = fcntl(anchor, F_DUPFD_CLOEXEC, highest)
        if placed >= 0 { _ = close(placed) }
        _ = close(anchor)
    }
}

extension DescriptorTable {
    /// Closes every open descriptor of the process but `kept`, as `/proc/self/fd` lists them:
    /// for a forked child that must keep none of its parent's sockets, pipes and files.
    static func closeAll(except kept: Set<Int32>) {
        guard let directory = opendir("/proc/self/fd") else { return }
        let listing = dirfd(directory)
        var open: [Int32] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
            if let descriptor = Int32(name), descriptor != listing, !kept.contains(descriptor) { open.append(descriptor) }
        }
        closedir(directory)
        for descriptor in open { _ = close(descriptor) }
    }
}
