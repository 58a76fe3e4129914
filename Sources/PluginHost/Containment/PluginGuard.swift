import Synchronization

/// Contains what a plugin can do to the host while its code runs: a crash is reported as
/// one line naming the plugin, a call to `exit()` is reported likewise, and a plugin that
/// does not return within the timeout is named and the host ends without waiting for it.
///
/// All of it is in-process: fatal signals are caught by handlers on an alternate stack
/// (``FatalSignals``), the timeout by one watchdog thread that sleeps on a semaphore while
/// no plugin runs. Arming the guard around a plugin costs two short copies and a semaphore
/// post, so it adds microseconds to start-up, not a process per plugin.
final class PluginGuard: Sendable {
    /// What a plugin is doing.
    enum Phase: String, Sendable {
        case load
        case bootstrap
    }

    /// How the host ends when a plugin crashes or calls `exit()`.
    static let crashStatus = ExitStatus.crashed
    /// How the host ends when a plugin overruns the timeout.
    static let timeoutStatus = ExitStatus.timedOut

    private struct Armed {
        let label: String
        let phase: Phase
        let deadline: ContinuousClock.Instant
    }

    private let timeout: Duration?
    private let armed = Mutex<Armed?>(nil)
    private let wake = Semaphore()

    /// Installs the crash handlers and, when `timeout` is given, starts the watchdog.
    ///
    /// - Parameter timeout: How long one plugin may take to load, or to bootstrap; `nil`
    ///   for no limit.
    init(timeout: Duration?) {
        self.timeout = timeout
        FatalSignals.install(exitStatus: Self.crashStatus.rawValue)
        if timeout != nil {
            startDetachedThread { [self] in watch() }
        }
    }

    /// Runs `body`, which runs code of `candidate`, under the guard.
    func watching<Result, Failure: Error>(
        _ candidate: PluginCandidate, during phase: Phase, _ body: () throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let label = "plugin \(candidate.label)"
        FatalSignals.describe(subject: label, phase: phase.rawValue, isPluginCode: true)
        if let timeout {
            armed.withLock { $0 = Armed(label: label, phase: phase, deadline: .now + timeout) }
            wake.signal()
        }
        defer {
            if timeout != nil {
                armed.withLock { $0 = nil }
                wake.signal()
            }
            FatalSignals.describe(subject: "plugin-host", phase: "its own work")
        }
        return try body()
    }

    /// The watchdog: sleeps until the armed deadline, and ends the host when a plugin is
    /// still running then.
    private func watch() {
        while true {
            let current = armed.withLock { $0 }
            guard let current, let timeout else {
                wake.wait(timeout: nil)
                continue
            }
            let now = ContinuousClock.now
            if now < current.deadline {
                wake.wait(timeout: current.deadline - now)
                continue
            }
            // Still the same plugin? It may have returned while we woke up.
            guard armed.withLock({ $0?.deadline == current.deadline }) else { continue }
            StandardStreams.writeToError(
                "\(current.label) timed out during \(current.phase.rawValue): still running after "
                    + "\(TextReport.format(seconds: timeout)) (--timeout); stopped the host without waiting for it\n")
            exitImmediately(Self.timeoutStatus.rawValue)
        }
    }
}
