/// What the supervisor asks of one worker generation: why it starts, which builds it must
/// leave out or load instead, whether it waits before bootstrapping, and the sockets it
/// hands to plugins.
///
/// The worker is forked from the supervisor, so the plan reaches it as a value in its
/// memory: nothing is encoded or sent.
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

        /// Whether a generation started for this loads beside the serving one, reports what it
        /// loaded and waits for the machine's word to bootstrap.
        var loadsBeside: Bool {
            switch self {
            case .upgrade, .operatorRestart: true
            case .start, .restart, .restore: false
            }
        }
    }

    /// 1 for the first generation, counting up.
    var number = 1
    var cause = Cause.start
    var builds = BuildSelection<LeaveOutReason>()
    /// The sockets the host listens on, by name, which plugins obtain from the chain.
    var sockets: [String: Int32] = [:]
    /// The worker's end of the channel the supervisor passes on what the generation before
    /// handed over, and takes what this one hands over as it stops; -1 for none.
    var handOff: Int32 = -1
    /// Whether systemd listens to the host's notifications: when it does not, the worker
    /// keeps to itself those that only systemd needs.
    var systemdListens = false

    /// Whether the generation reports what it loaded, then what it bootstrapped, and waits
    /// each time for the supervisor's word (``CandidateVerdict``).
    var waitsBeforeBootstrap: Bool { cause.loadsBeside }

    /// How much its start may leave out and still serve, as the machine decided.
    var strictness = Strictness(for: .start, watching: false, keepingGoing: false)
}
