/// The restarts, as docs/operations.md ("Restarts") says: when the generation that replaces a
/// failed one starts, whether the limit allows it, and what the status counts. It owns the
/// policy and the history of restarts; the machine tells it what happened and carries out what
/// it answers.
struct Restarts: Sendable {
    /// What the machine tells the restarts.
    enum Fact: Equatable, Sendable {
        /// A generation failed and another is to replace it. `healed`: leaving out its culprits
        /// heals the failure (one was never left out before). `readyFor`: how long it had been
        /// ready, if it was; ready for `--restart-max-delay` or longer, it served steadily, and a
        /// loop before it is over.
        case failed(healed: Bool, readyFor: Duration?)
        /// An operator's `plugin-host restart` starts the restart that waits now, cutting its
        /// backoff short.
        case startedByOperator
    }

    /// What the restarts answer.
    enum Action: Equatable, Sendable {
        /// The next generation starts at this instant (now, or once its backoff has passed),
        /// counted as this.
        case restart(at: MonotonicInstant, Announcement.RestartCount)
        /// The limit allows no more: this many restarts leaving out did not heal would be in
        /// the window that ends when the next one would start. The host ends.
        case limitReached(recent: Int)
    }

    let policy: RestartPolicy
    private var history = RestartHistory()

    init(_ policy: RestartPolicy) {
        self.policy = policy
    }

    /// Moves the restarts on by `fact`, which happened at `now`.
    mutating func handle(_ fact: Fact, at now: MonotonicInstant) -> [Action] {
        switch fact {
        case .failed(let healed, let readyFor):
            if let readyFor, readyFor >= policy.maximumDelay { history.servedSteadily() }
            // Healed, at once; otherwise after the backoff of one more restart in a row.
            let start = healed ? now : history.nextStart(after: now, within: policy)
            guard history.recordRestart(decidedAt: now, startingAt: start, within: policy, healed: healed) else {
                return [.limitReached(recent: history.recent(endingAt: start, within: policy))]
            }
            let count = Announcement.RestartCount(
                number: history.count, policy: policy, healed: healed, counted: history.recent(endingAt: start, within: policy),
                wait: start - now, inARow: history.inARow)
            return [.restart(at: start, count)]
        case .startedByOperator:
            history.startLastSooner(at: now)
            return []
        }
    }

    /// The restarts as the status counts them at `now`.
    func status(at now: MonotonicInstant) -> RestartStatus {
        RestartStatus(
            used: history.recent(endingAt: now, within: policy), limit: policy.limit, window: policy.window, total: history.count,
            inARow: history.inARow, healed: history.healed, nextDelay: policy.wait(beforeRestartInARow: history.inARow + 1),
            enabled: policy.enabled)
    }
}
