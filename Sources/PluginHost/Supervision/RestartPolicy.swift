/// Whether the supervisor starts a new worker generation when the serving one ends
/// unexpectedly, and how often it may: at most ``limit`` restarts within any ``window``,
/// as systemd's `StartLimitBurst=` within `StartLimitIntervalSec=`, or an OTP supervisor's
/// intensity within its period. One restart more ends the host with the failure's status.
struct RestartPolicy: Equatable, Sendable {
    /// Restart at all (`--restart=on-failure`, the default), or end at the first failure
    /// (`--restart=no`).
    var enabled = true
    /// The most restarts within ``window``.
    var limit = 5
    /// The span ``limit`` counts over.
    var window: Duration = .seconds(60)

    /// `5 in 60 s`, as the operator reads it.
    var description: String { "\(limit) in \(TextFormat.seconds(window))" }
}

/// When the supervisor restarted, to hold the restarts to a ``RestartPolicy``.
struct RestartHistory {
    private var times: [Int64] = []

    /// Restarts so far.
    var count: Int { times.count }

    /// Records a restart at `now` if `policy` allows one more.
    ///
    /// - Returns: Whether it does: fewer than `limit` restarts in the window before `now`.
    mutating func recordRestart(at now: Int64, within policy: RestartPolicy) -> Bool {
        guard recent(at: now, within: policy) < policy.limit else { return false }
        times.append(now)
        return true
    }

    /// How many restarts fall in the window before `now`.
    func recent(at now: Int64, within policy: RestartPolicy) -> Int {
        let window = MonotonicClock.nanoseconds(policy.window)
        return times.filter { now - $0 < window }.count
    }
}
