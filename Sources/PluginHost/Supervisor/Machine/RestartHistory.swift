/// The backoff, as the machine reads the policy: how long the restart in a row waits.
extension RestartPolicy {
    /// How long to wait before the `count`th restart in a row (1 for the first).
    func wait(beforeRestartInARow count: Int) -> Duration {
        guard count > 1 else { return .zero }
        var wait = delay
        var restart = 2
        while restart < count, wait < maximumDelay {
            wait *= 2
            restart += 1
        }
        return min(wait, maximumDelay)
    }
}

/// When the supervisor restarted, to hold the restarts to a ``RestartPolicy``.
struct RestartHistory: Equatable, Sendable {
    /// When the restarts within the last window that leaving out did not heal happened.
    private(set) var times: [MonotonicInstant] = []
    /// Restarts since the last generation that served steadily, of those leaving out did not heal.
    private(set) var inARow = 0
    /// Restarts so far.
    private(set) var count = 0
    /// Restarts whose failure leaving a build out healed.
    private(set) var healed = 0

    /// When the next restart in a row would start after a failure at `now`: at once, or once
    /// its backoff has passed.
    func nextStart(after now: MonotonicInstant, within policy: RestartPolicy) -> MonotonicInstant {
        now + policy.wait(beforeRestartInARow: inARow + 1)
    }

    /// Records a restart that starts at `start` if `policy` allows one more: a restart
    /// counts when its generation starts, so that a backoff cannot move more of them into
    /// one window than the limit. Only a restart whose failure was not `healed` by leaving a
    /// build out counts against the limit, and in a row: a healed one is always allowed.
    ///
    /// - Parameter now: When it is decided. An operator's restart may start it sooner than
    ///   `start` (``startLastSooner(at:)``), never before now: the restarts forgotten are those
    ///   no window from now on can hold.
    /// - Returns: Whether it does: it was healed, or fewer than `limit` restarts leaving out
    ///   did not heal are in the window that ends at `start`.
    mutating func recordRestart(decidedAt now: MonotonicInstant, startingAt start: MonotonicInstant, within policy: RestartPolicy, healed isHealed: Bool) -> Bool {
        guard !isHealed else {
            healed += 1
            count += 1
            return true
        }
        times.removeAll { now - $0 >= policy.window }
        guard recent(endingAt: start, within: policy) < policy.limit else { return false }
        times.append(start)
        inARow += 1
        count += 1
        return true
    }

    /// The restart recorded last starts at `instant` instead, earlier than its backoff
    /// asked: an operator's `plugin-host restart` does not wait, nor ask the limit.
    mutating func startLastSooner(at instant: MonotonicInstant) {
        guard let last = times.indices.last, instant < times[last] else { return }
        times[last] = instant
    }

    /// How many restarts leaving out did not heal started within the window that ends at `instant`.
    func recent(endingAt instant: MonotonicInstant, within policy: RestartPolicy) -> Int {
        times.filter { instant - $0 < policy.window }.count
    }

    /// A generation served steadily: the next restart is the first in a row again.
    mutating func servedSteadily() {
        inARow = 0
    }
}
