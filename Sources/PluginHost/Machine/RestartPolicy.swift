/// Whether the supervisor starts a new worker generation when the serving one ends
/// unexpectedly, how often it may, and how long it waits first.
///
/// - The **limit**: at most ``limit`` restarts within any ``window`` of those whose failure
///   leaving out does not heal, as systemd's `StartLimitBurst=` within
///   `StartLimitIntervalSec=`, or an OTP supervisor's intensity within its period. One such
///   restart more ends the host with the failure's status. A failure healed by leaving out a
///   build never left out before (a new build that crashes, a trial's rollback) is no loop:
///   it ends nothing that serves, however often new builds fail.
/// - The **backoff**: a restart whose failure is healed by leaving out a build never left
///   out before is immediate, and does not count in a row: leaving the culprit out is what
///   breaks that loop. A failure that leaving out does not heal (a culprit unknown, nobody
///   blamed, the same build failing again) is a loop only time breaks: the first such restart
///   after a generation served steadily is immediate; each one more in a row waits twice as
///   long as the one before, from ``delay`` up to ``maximumDelay`` (as systemd's
///   `RestartSec=`, `RestartSteps=` and `RestartMaxDelaySec=`), so that such a loop never
///   starts generations back to back. A generation that serves for ``maximumDelay`` counts as
///   steady: the next restart is immediate again.
struct RestartPolicy: Equatable, Sendable {
    /// Restart at all (`--restart=on-failure`, the default), or end at the first failure
    /// (`--restart=no`).
    var enabled = true
    /// The most restarts within ``window`` (`--restart-limit`).
    var limit = 5
    /// The span ``limit`` counts over.
    var window: Duration = .seconds(60)
    /// The wait before the second restart in a row (`--restart-delay`).
    var delay: Duration = .milliseconds(100)
    /// The longest wait between restarts, and how long a generation must serve to count as
    /// steady (`--restart-max-delay`).
    var maximumDelay: Duration = .seconds(10)

    /// `5 in 60 s`, as the operator reads it.
    var description: String { "\(limit) in \(TextFormat.seconds(window))" }

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
