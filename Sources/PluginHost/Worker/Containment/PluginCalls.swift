import Synchronization

/// One call into a plugin that the host waits for: a reload or shutdown hook.
struct PluginCall: Sendable {
    /// The plugin, as the supervision page numbers it.
    let plugin: PluginNumber
    let phase: Phase
    let body: @Sendable () async throws -> Void
}

/// How a ``PluginCall`` ended.
enum PluginCallOutcome: Sendable, Equatable {
    case finished
    /// It threw; the error as the plugin describes it.
    case failed(String)
    /// It did not return before its deadline; it was left running.
    case overran
}

/// Calls plugin code one call after another on plugin threads, waiting for each at most
/// until its deadline: the host's one way of bounding plugin hooks.
///
/// All calls run in one task, one after the other, so that a thousand hooks that return at
/// once cost one hand-off between threads, not a thousand. The calling thread waits for each
/// call on a semaphore until the call's deadline; when one overruns, it is named and left
/// behind, and a new task takes over the calls after it. Only the waiting thread decides
/// that a call overran, under the one lock the running task also takes to record an
/// outcome, so a call that returns right at its deadline is either finished or overran,
/// never both. Each call is also a step in the supervision page, so that the supervisor
/// ends the worker if the waiting thread itself cannot go on.
struct PluginCalls {
    let threads: PluginThreads

    /// Performs `calls` in order, each within `timeout` (`nil`: without limit), and none
    /// past `deadline` (`nil`: none), when the calls together have only so long.
    ///
    /// - Returns: The outcome of each call, in order.
    func perform(_ calls: [PluginCall], within timeout: Duration?, until deadline: MonotonicInstant? = nil) -> [PluginCallOutcome] {
        performTimed(calls, within: timeout, until: deadline).map(\.outcome)
    }

    /// ``perform(_:within:until:)``, with how long each call that ended took.
    func performTimed(
        _ calls: [PluginCall], within timeout: Duration?, until deadline: MonotonicInstant? = nil
    ) -> [(outcome: PluginCallOutcome, duration: Duration?)] {
        guard !calls.isEmpty else { return [] }
        let run = SequenceRun(calls: calls, threads: threads, timeout: timeout, until: deadline)
        return run.perform()
    }
}

/// The shared state of one ``PluginCalls/perform(_:within:)``.
private final class SequenceRun: Sendable {
    private struct State {
        var outcomes: [PluginCallOutcome?]
        /// When each call began, and how long each that ended took.
        var started: [MonotonicInstant?]
        var durations: [Duration?]
        /// Bumped each time a call is left behind; a task of an older generation stops.
        var generation = 0
    }

    private let calls: [PluginCall]
    private let threads: PluginThreads
    private let timeout: Duration?
    /// No call may run past it.
    private let until: MonotonicInstant?
    private let state: Mutex<State>
    private let progress = Semaphore()

    init(calls: [PluginCall], threads: PluginThreads, timeout: Duration?, until: MonotonicInstant?) {
        self.calls = calls
        self.threads = threads
        self.timeout = timeout
        self.until = until
        state = Mutex(State(
            outcomes: Array(repeating: nil, count: calls.count), started: Array(repeating: nil, count: calls.count),
            durations: Array(repeating: nil, count: calls.count)))
    }

    func perform() -> [(outcome: PluginCallOutcome, duration: Duration?)] {
        start(from: 0, generation: 0)
        var index = 0
        while index < calls.count {
            let (outcome, started) = state.withLock { ($0.outcomes[index], $0.started[index]) }
            if outcome != nil {
                index += 1
                continue
            }
            let deadline = started.flatMap { self.deadline(ofCallStartedAt: $0) }
            guard !progress.wait(until: deadline), let deadline, MonotonicInstant.now >= deadline else { continue }
            let overran = state.withLock { state -> Int? in
                guard state.outcomes[index] == nil else { return nil }
                state.outcomes[index] = .overran
                state.generation += 1
                return state.generation
            }
            if let generation = overran {
                threads.link.end(stepOf: calls[index].plugin)
                index += 1
                if index < calls.count { start(from: index, generation: generation) }
            }
        }
        return state.withLock { state in state.outcomes.indices.map { (state.outcomes[$0] ?? .overran, state.durations[$0]) } }
    }

    /// When a call that started at `started` must end: its timeout, or the deadline of the
    /// calls together, whichever comes first; `nil` for neither.
    private func deadline(ofCallStartedAt started: MonotonicInstant) -> MonotonicInstant? {
        let own = timeout.map { started + $0 }
        guard let until else { return own }
        return min(own ?? .distantFuture, until)
    }

    /// Starts a task that performs the calls from `first` on, as long as its generation is
    /// current.
    private func start(from first: Int, generation: Int) {
        let executor = threads.executor(for: calls[first].plugin, phase: calls[first].phase)
        Task(executorPreference: executor) { [self] in
            for index in first..<calls.count {
                let call = calls[index]
                let begun = state.withLock { state -> MonotonicInstant? in
                    guard state.generation == generation else { return nil }
                    let now = MonotonicInstant.now
                    state.started[index] = now
                    return now
                }
                guard let begun else { return }
                let limit = deadline(ofCallStartedAt: begun).map { max(.zero, $0 - begun) }
                threads.link.begin(call.phase, of: call.plugin, within: limit, policy: .skip)
                progress.signal()
                executor.retarget(to: call.plugin, phase: call.phase)
                let outcome: PluginCallOutcome
                do {
                    try await call.body()
                    outcome = .finished
                } catch {
                    outcome = .failed("\(error)")
                }
                ExitTrap.endIfForkedCopy()
                executor.retarget(to: nil, phase: .unknown)
                let current = state.withLock { state -> Bool in
                    guard state.generation == generation else { return false }
                    // The step ends before the outcome is seen: once the waiting thread goes
                    // on, the page no longer shows the call, and a late end cannot end the
                    // plugin's next step.
                    threads.link.end(stepOf: call.plugin)
                    state.outcomes[index] = outcome
                    state.durations[index] = state.started[index].map { .now - $0 }
                    return true
                }
                guard current else { return }
                progress.signal()
            }
        }
    }
}
