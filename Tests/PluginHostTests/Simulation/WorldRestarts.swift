#if !STANDALONE_SIMULATOR
@testable import PluginHost
#endif

/// The restarts as the world counts them, by docs/operations.md ("Restarts"): the failure the
/// next restart answers and how long it must wait, and every restart started, those leaving
/// out healed and those it did not, which alone count against the limit and in a row. The
/// world counts a restart when its generation starts; the host counts it when it decides it,
/// so the two agree whenever no failure waits for its restart.
struct WorldRestarts {
    /// The failure the next restart answers: when, how long the backoff asks, and whether
    /// leaving out its culprit healed it.
    var pending: (at: MonotonicInstant, wait: Duration, healed: Bool)?
    /// Restarts in a row whose failure leaving out did not heal, since a generation served steadily.
    private(set) var unhealedInARow = 0
    /// When each restart started.
    private(set) var starts: [MonotonicInstant] = []
    /// When each restart whose failure leaving out did not heal started.
    private(set) var unhealedStarts: [MonotonicInstant] = []
    /// How many of the restarts started leaving out healed.
    private(set) var healed = 0

    /// A generation served steadily (`--restart-max-delay`) before it failed: the next restart
    /// is the first in a row again.
    mutating func servedSteadily() {
        unhealedInARow = 0
    }

    /// A failure at `now` calls for a restart, which leaving out its culprit `heals` or not:
    /// at once when it does, or the first in a row; else after the backoff of one more in a row.
    mutating func failed(at now: MonotonicInstant, heals: Bool, policy: RestartPolicy) {
        let wait = heals ? .zero : WorldRules.backoff(restartsInARow: unhealedInARow + 1, delay: policy.delay, maximum: policy.maximumDelay)
        pending = (now, wait, heals)
    }

    /// A restart's generation starts at `now`, answering the failure that waited, if any.
    ///
    /// - Returns: That failure.
    mutating func start(at now: MonotonicInstant) -> (at: MonotonicInstant, wait: Duration, healed: Bool)? {
        defer { pending = nil }
        guard let failure = pending else { return nil }
        starts.append(now)
        if failure.healed {
            healed += 1
        } else {
            unhealedInARow += 1
            unhealedStarts.append(now)
        }
        return failure
    }

    /// The restarts leaving out did not heal that started within `window` before `instant`.
    func unhealed(within window: Duration, before instant: MonotonicInstant) -> Int {
        unhealedStarts.filter { instant - $0 < window }.count
    }
}
