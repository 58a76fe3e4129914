import Synchronization

/// Contains what a plugin can do to the host while its code runs: a crash is reported as
/// one line naming the plugin, a call to `exit()` is reported likewise, and a plugin that
/// does not return within the timeout is named and the host ends without waiting for it.
///
/// All of it is in-process: fatal signals are caught by handlers on an alternate stack
/// (``FatalSignals``, told whose code each thread runs by the ``PluginThreadPool``), the
/// timeout by one watchdog thread that sleeps on a semaphore until the earliest deadline of
/// the plugins running. Arming the watchdog costs a lock and a semaphore post per plugin
/// and phase, so it adds microseconds, not a process per plugin.
final class PluginGuard: Sendable {
    /// What a plugin is doing.
    enum Phase: String, Sendable {
        case load
        case bootstrap
    }

    private struct Armed {
        let label: String
        let phase: Phase
        let deadline: ContinuousClock.Instant
    }

    private let timeout: Duration?
    /// The plugins running, by their place in the order.
    private let armed = Mutex<[Int: Armed]>([:])
    private let wake = Semaphore()

    /// Installs the crash handlers and, when `timeout` is given, starts the watchdog.
    ///
    /// - Parameter timeout: How long one plugin may take to load, or to bootstrap; `nil`
    ///   for no limit.
    init(timeout: Duration?) {
        self.timeout = timeout
        FatalSignals.install(exitStatus: ExitStatus.crashed.rawValue)
        if timeout != nil {
            startDetachedThread { [self] in watch() }
        }
    }

    /// Runs `body`, code of `candidate` (the plugin at `position` in the order), under the
    /// watchdog. The crash handlers know whose code runs from the ``PluginThreadPool``.
    func watching<Result, Failure: Error>(
        _ candidate: PluginCandidate, at position: Int, during phase: Phase, _ body: () async throws(Failure) -> Result
    ) async throws(Failure) -> Result {
        if let timeout {
            let armed = Armed(label: "plugin \(candidate.label)", phase: phase, deadline: .now + timeout)
            self.armed.withLock { $0[position] = armed }
            wake.signal()
        }
        defer {
            if timeout != nil {
                armed.withLock { $0[position] = nil }
                wake.signal()
            }
        }
        return try await body()
    }

    /// The watchdog: sleeps until the earliest deadline, and ends the host when a plugin is
    /// still running then.
    private func watch() {
        while true {
            let earliest = armed.withLock { $0.min { $0.value.deadline < $1.value.deadline } }
            guard let (position, current) = earliest, let timeout else {
                wake.wait(timeout: nil)
                continue
            }
            let now = ContinuousClock.now
            if now < current.deadline {
                wake.wait(timeout: current.deadline - now)
                continue
            }
            // Still the same plugin? It may have returned while we woke up.
            guard armed.withLock({ $0[position]?.deadline == current.deadline }) else { continue }
            StandardStreams.writeToError(
                "\(current.label) timed out during \(current.phase.rawValue): still running after "
                    + "\(TextReport.format(seconds: timeout)) (--timeout); stopped the host without waiting for it\n")
            exitImmediately(ExitStatus.timedOut.rawValue)
        }
    }
}
