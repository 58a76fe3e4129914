#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("plugin-host runs on Linux: it needs Glibc or Musl")
#endif

/// Nanoseconds of `CLOCK_MONOTONIC`: the clock that the supervisor and the worker both read,
/// so that a deadline one of them posts means the same instant to the other.
enum MonotonicClock {
    /// Now, in nanoseconds since an unspecified start.
    static var now: Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }

    /// `duration` in nanoseconds, saturating at `Int64.max`.
    static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return seconds < 0 ? 0 : .max }
        let (total, carry) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
        return carry ? .max : max(0, total)
    }

    /// The instant `duration` from now; `Int64.max` for no limit.
    static func deadline(after duration: Duration?) -> Int64 {
        guard let duration else { return .max }
        let (sum, overflow) = now.addingReportingOverflow(nanoseconds(duration))
        return overflow ? .max : sum
    }
}
