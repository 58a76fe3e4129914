import PluginABI
import Synchronization

/// One task calling shutdown hooks in order until they are done or one overruns its
/// deadline; see ``Lifecycle/shutDown()``.
final class ShutdownRun: Sendable {
    /// What the run got through.
    struct Outcome: Sendable {
        /// Hooks that threw, by index, with the error's text.
        var failures: [(Int, String)] = []
        /// The hook that overran its deadline, if one did; the run stopped waiting there.
        var overran: Int?
    }

    private struct State {
        var outcome = Outcome()
        var waiter: CheckedContinuation<Outcome, Never>?
        var abandoned = false
        var alarm: Int?
    }

    private let timeout: Duration?
    private let state = Mutex(State())

    init(timeout: Duration?) {
        self.timeout = timeout
    }

    /// Calls `shutdown()` of `components[start...]` in order.
    func perform(_ components: [any Bootstrapping], from start: Int) async -> Outcome {
        await withCheckedContinuation { (waiter: CheckedContinuation<Outcome, Never>) in
            state.withLock { $0.waiter = waiter }
            Task { [self] in
                for index in start..<components.count {
                    guard begin(index) else { return }
                    do {
                        try await components[index].shutdown()
                        end(index, failure: nil)
                    } catch {
                        end(index, failure: "\(error)")
                    }
                }
                state.withLock { state in
                    guard !state.abandoned else { return }
                    state.abandoned = true
                    state.waiter.take()?.resume(returning: state.outcome)
                }
            }
        }
    }

    /// Starts the clock of hook `index`; `false` when the run has been given up.
    private func begin(_ index: Int) -> Bool {
        let alarm = timeout.map { timeout in
            DeadlineWatch.shared.schedule(after: timeout) { [self] in overrun(index) }
        }
        return state.withLock { state in
            guard !state.abandoned else {
                if let alarm { DeadlineWatch.shared.cancel(alarm) }
                return false
            }
            state.alarm = alarm
            return true
        }
    }

    private func end(_ index: Int, failure: String?) {
        state.withLock { state in
            if let alarm = state.alarm { DeadlineWatch.shared.cancel(alarm) }
            state.alarm = nil
            if let failure, !state.abandoned { state.outcome.failures.append((index, failure)) }
        }
    }

    /// Hook `index` is still running at its deadline: stop waiting for this run.
    private func overrun(_ index: Int) {
        state.withLock { state in
            guard !state.abandoned else { return }
            state.abandoned = true
            state.outcome.overran = index
            state.waiter.take()?.resume(returning: state.outcome)
        }
    }
}
