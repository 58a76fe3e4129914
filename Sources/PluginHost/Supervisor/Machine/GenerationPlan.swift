/// What the machine decides for one worker generation: why it starts, which builds it must
/// leave out (and why, as values) or load instead, and how strict it is. The driver hands it
/// to the worker as a ``WorkerPlan``, the reasons in words, with what only the driver has
/// (the sockets, the hand-off channel).
struct GenerationPlan: Equatable, Sendable {
    /// Why a generation starts.
    enum Cause: CaseIterable, Sendable, Equatable {
        /// The host starts.
        case start
        /// The generation before ended unexpectedly while serving: its culprit is left out.
        case restart
        /// Plugin files changed: this generation loads the new builds beside the running one,
        /// and bootstraps once that one has stopped.
        case upgrade
        /// An upgrade failed after the generation before had stopped: the builds that ran
        /// before come back.
        case restore
        /// An operator asked for a restart (`plugin-host restart`): this generation loads the
        /// files as they are (the plugins named no longer left out) beside the serving one, and
        /// takes over as an upgrade's does.
        case operatorRestart
        /// The host's first generation on a new plugin-host binary: it loads beside the host
        /// before's serving generation and takes over as an upgrade's does.
        case hostUpgrade

        /// Whether a generation started for this loads beside the serving one, reports what it
        /// loaded and waits for the machine's word to bootstrap.
        var loadsBeside: Bool {
            switch self {
            case .upgrade, .operatorRestart, .hostUpgrade: true
            case .start, .restart, .restore: false
            }
        }
    }

    /// 1 for the first generation, counting up.
    var number = 1
    var cause = Cause.start
    var builds = BuildSelection<LeaveOutReason>()
    /// Whether the generation reports what it loaded, then what it bootstrapped, and waits
    /// each time for the supervisor's word (``CandidateVerdict``).
    var waitsBeforeBootstrap: Bool { cause.loadsBeside }

    /// How much its start may leave out and still serve, as the machine decided.
    var strictness = Strictness(for: .start, watching: false, keepingGoing: false)
}
