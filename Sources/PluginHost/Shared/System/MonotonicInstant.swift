#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("plugin-host runs on Linux: it needs Glibc or Musl")
#endif

/// An instant of `CLOCK_MONOTONIC`: the clock that the supervisor and the worker both read,
/// so that a deadline one of them posts means the same instant to the other.
///
/// Shared memory holds an instant as its nanoseconds since the clock's start; everything
/// above that reads instants and `Duration`s.
struct MonotonicInstant: Comparable, Hashable, Sendable, CustomStringConvertible {
    /// Nanoseconds since the clock's unspecified start.
    let nanoseconds: Int64

    init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    /// Now.
    static var now: MonotonicInstant {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return MonotonicInstant(nanoseconds: Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec))
    }

    /// An instant later than any other: no deadline.
    static let distantFuture = MonotonicInstant(nanoseconds: .max)

    /// The instant `duration` after `instant`, saturating at ``distantFuture``.
    static func + (instant: MonotonicInstant, duration: Duration) -> MonotonicInstant {
        let (sum, overflow) = instant.nanoseconds.addingReportingOverflow(duration.nanoseconds)
        return overflow ? (duration < .zero ? MonotonicInstant(nanoseconds: .min) : .distantFuture) : MonotonicInstant(nanoseconds: sum)
    }

    /// The time from `earlier` to `later`.
    static func - (later: MonotonicInstant, earlier: MonotonicInstant) -> Duration {
        let (difference, overflow) = later.nanoseconds.subtractingReportingOverflow(earlier.nanoseconds)
        return overflow ? (later > earlier ? .nanoseconds(Int64.max) : .nanoseconds(Int64.min)) : .nanoseconds(difference)
    }

    static func < (lhs: MonotonicInstant, rhs: MonotonicInstant) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

    var description: String { "\(nanoseconds) ns" }
}

/// The wall clock (`CLOCK_REALTIME`), for writing instants as the times operators read.
enum WallClock {
    /// Now, in seconds since the Unix epoch.
    static var secondsSinceEpoch: Double {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}

extension Duration {
    /// The duration in whole nanoseconds, saturating at `Int64.max` (and `Int64.min`).
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return seconds < 0 ? .min : .max }
        let (total, carry) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
        return carry ? (seconds < 0 ? .min : .max) : total
    }
}
