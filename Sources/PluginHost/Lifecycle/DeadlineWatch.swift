import Synchronization

/// One thread that fires actions at deadlines: the plugin watchdog and the shutdown,
/// service and reload deadlines all register here. Registering costs a lock (and a
/// semaphore post only when the thread would otherwise sleep past the new deadline), not a
/// sleeping task per deadline.
final class DeadlineWatch: Sendable {
    /// The process's watch; its thread starts with the first registration.
    static let shared = DeadlineWatch()

    private struct Entry {
        let deadline: ContinuousClock.Instant
        let action: @Sendable () -> Void
    }

    private struct State {
        var entries: [Int: Entry] = [:]
        var nextIdentifier = 0
        var started = false
        /// When the thread wakes by itself; `nil` while it sleeps until posted.
        var wakes: ContinuousClock.Instant?
    }

    private let state = Mutex(State())
    private let wake = Semaphore()

    /// Calls `action` on the watch thread when `delay` has passed, unless cancelled first.
    /// The action runs with the watch locked, so ``cancel(_:)`` never returns while it runs.
    ///
    /// - Returns: An identifier for ``cancel(_:)``.
    func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> Int {
        let deadline = ContinuousClock.now + delay
        let (identifier, mustWake, mustStart) = state.withLock { state in
            let identifier = state.nextIdentifier
            state.nextIdentifier += 1
            state.entries[identifier] = Entry(deadline: deadline, action: action)
            let mustStart = !state.started
            state.started = true
            return (identifier, state.wakes.map { deadline < $0 } ?? true, mustStart)
        }
        if mustStart { startDetachedThread { [self] in watch() } }
        if mustWake { wake.signal() }
        return identifier
    }

    /// Forgets a scheduled action; the thread notices when it next wakes.
    func cancel(_ identifier: Int) {
        state.withLock { _ = $0.entries.removeValue(forKey: identifier) }
    }

    private func watch() {
        while true {
            let now = ContinuousClock.now
            let next = state.withLock { state -> ContinuousClock.Instant? in
                for (identifier, entry) in state.entries where entry.deadline <= now {
                    state.entries[identifier] = nil
                    entry.action()
                }
                state.wakes = state.entries.values.map(\.deadline).min()
                return state.wakes
            }
            wake.wait(timeout: next.map { $0 - ContinuousClock.now })
        }
    }
}
