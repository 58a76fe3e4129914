import Synchronization

/// Contains what a plugin can do to the host while its code runs: a crash is reported as
/// one line naming the plugin, a call to `exit()` is reported likewise, and a plugin that
/// does not return within the timeout is named and the host ends without waiting for it.
///
/// All of it is in-process: fatal signals are caught by handlers on an alternate stack
/// (``FatalSignals``, told whose code each thread runs by the ``PluginThreadPool``), the
/// timeout by the ``DeadlineWatch`` thread, which sleeps until the earliest deadline.
/// Arming the watchdog costs two locks per plugin and phase, so it adds microseconds, not a
/// process per plugin.
final class PluginGuard: Sendable {
    /// What a plugin is doing.
    enum Phase: String, Sendable {
        case load
        case bootstrap
    }

    private let timeout: Duration?
    /// The watchdog alarms of the plugins running, by their place in the order.
    private let alarms = Mutex<[Int: Int]>([:])

    /// Installs the crash handlers; the watchdog is ``DeadlineWatch``.
    ///
    /// - Parameter timeout: How long one plugin may take to load, or to bootstrap; `nil`
    ///   for no limit.
    init(timeout: Duration?) {
        self.timeout = timeout
        FatalSignals.install(exitStatus: ExitStatus.crashed.rawValue)
    }

    /// Runs `body`, code of `candidate` (the plugin at `position` in the order), under the
    /// watchdog. The crash handlers know whose code runs from the ``PluginThreadPool``.
    func watching<Result, Failure: Error>(
        _ candidate: PluginCandidate, at position: Int, during phase: Phase, _ body: () async throws(Failure) -> Result
    ) async throws(Failure) -> Result {
        arm(candidate, at: position, during: phase)
        defer { disarm(position) }
        return try await body()
    }

    /// Runs `body` like ``watching(_:at:during:_:)``, for synchronous code.
    func watchingSynchronously<Result, Failure: Error>(
        _ candidate: PluginCandidate, at position: Int, during phase: Phase, _ body: () throws(Failure) -> Result
    ) throws(Failure) -> Result {
        arm(candidate, at: position, during: phase)
        defer { disarm(position) }
        return try body()
    }

    /// Starts the clock of a plugin: when it runs out, the host names the plugin and ends.
    private func arm(_ candidate: PluginCandidate, at position: Int, during phase: Phase) {
        guard let timeout else { return }
        let label = "plugin \(candidate.label)"
        let alarm = DeadlineWatch.shared.schedule(after: timeout) {
            StandardStreams.writeToError(
                "\(label) timed out during \(phase.rawValue): still running after "
                    + "\(TextReport.format(seconds: timeout)) (--timeout); stopped the host without waiting for it\n")
            exitImmediately(ExitStatus.timedOut.rawValue)
        }
        alarms.withLock { $0[position] = alarm }
    }

    private func disarm(_ position: Int) {
        guard timeout != nil, let alarm = alarms.withLock({ $0.removeValue(forKey: position) }) else { return }
        DeadlineWatch.shared.cancel(alarm)
    }
}
