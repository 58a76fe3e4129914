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
}
