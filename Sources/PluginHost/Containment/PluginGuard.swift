import Synchronization

/// Contains what a plugin can do to the host while its code runs: a crash is reported as
/// one line naming the plugin, a call to `exit()` is reported likewise, and a plugin that
/// does not return within the timeout is named and the host ends without waiting for it.
///
/// All of it is in-process: fatal signals are caught by handlers on an alternate stack
/// (``FatalSignals``, told whose code each thread runs by the ``PluginThreadPool``), the
/// timeout by the ``DeadlineWatch`` thread, which sleeps until the earliest deadline.
/// Arming the watchdog costs a lock, and disarming it another, per plugin and phase: it adds
/// microseconds, not a process per plugin.
final class PluginGuard: Sendable {
    /// What a plugin is doing.
    enum Phase: String, Sendable {
        case load
        case bootstrap
    }

    private let timeout: Duration?

    /// Installs the crash handlers; the watchdog is ``DeadlineWatch``.
    ///
    /// - Parameter timeout: How long one plugin may take to load, or to bootstrap; `nil`
    ///   for no limit.
    init(timeout: Duration?) {
        self.timeout = timeout
        FatalSignals.install(exitStatus: ExitStatus.crashed.rawValue)
    }

    /// Runs `body`, code of the plugin `subject` names (`plugin NAME (FILE)`), under the
    /// watchdog. The crash handlers know whose code runs from the ``PluginThreadPool``.
    func watching<Result, Failure: Error>(
        _ subject: String, during phase: Phase, _ body: () async throws(Failure) -> Result
    ) async throws(Failure) -> Result {
        let alarm = arm(subject, during: phase)
        defer { disarm(alarm) }
        return try await body()
    }

    /// Runs `body` like ``watching(_:during:_:)``, for synchronous code.
    func watchingSynchronously<Result, Failure: Error>(
        _ subject: String, during phase: Phase, _ body: () throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let alarm = arm(subject, during: phase)
        defer { disarm(alarm) }
        return try body()
    }

    /// Starts the clock of a plugin: when it runs out, the host names the plugin and ends.
    /// Returns the alarm to cancel, or `nil` without a timeout.
    private func arm(_ subject: String, during phase: Phase) -> Int? {
        guard let timeout else { return nil }
        return DeadlineWatch.shared.schedule(after: timeout) {
            StandardStreams.writeToError(
                "\(subject) timed out during \(phase.rawValue): still running after "
                    + "\(TextReport.format(seconds: timeout)) (--timeout); stopped the host without waiting for it\n")
            exitImmediately(ExitStatus.timedOut.rawValue)
        }
    }

    private func disarm(_ alarm: Int?) {
        if let alarm { DeadlineWatch.shared.cancel(alarm) }
    }
}
