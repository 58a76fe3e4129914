/// The host's upgrade to the plugin-host binary now installed (`plugin-host upgrade-host`), as
/// one life seen from both ends: the host that serves gives way (it lives in its state
/// ``SupervisionMachine/State/upgradingHost(_:)``), and the new host, a child it started,
/// takes over (it lives in the new host's machine beside its state, ``SupervisionMachine/takeOver``).
///
/// ```
///  checking ──a plugin-host of this protocol, another build──▶ starting ──started──▶ loading
///     │ refused: nothing stopped                                  │ could not start: serve on
///  loading ──its generation loaded, bootstraps after──▶ handing over ──this host's generation ended──▶
///     └──its generation bootstraps beside, ready──────────────────────────────────────────────────▶ on trial
///  on trial ──the trial passed──▶ (the new host serves; this one ends)
///  any phase ──the new host ended──▶ failed: this host serves on (its generation had not begun to drain),
///                                    or falling back ──none of this host's generations lives──▶ a new one serves
///  checking, starting, loading ──this host's generation ended (crashed)──▶ the same phase, with none to drain
/// ```
struct HostUpgrade: Equatable, Sendable {
    /// Where the upgrade is.
    enum Phase: Equatable, Sendable {
        /// The file at the host's path is read, not run: it must be a plugin-host that speaks
        /// this host's protocol, and another build than the one that runs.
        case checking
        /// The new host's process is being started.
        case starting
        /// The new host's first generation loads its plugins, beside the generation that serves.
        case loading
        /// The new host's generation loaded and waits: the generation that served drains and
        /// hands over, and its hand-off goes to the new host.
        case handingOver
        /// The new host's generation serves, on trial until `--trial` has passed (the new
        /// host's deadline): the host before keeps what it needs to serve again.
        case onTrial
        /// On the end that gives way: the new host failed, as its failure says, once this
        /// host's generation had begun to drain; when none of this host's lives, a new one
        /// serves with what the last one handed over.
        case fallingBack(HostUpgradeFailure)
    }

    /// Which end of the upgrade this host is.
    enum Role: Equatable, Sendable {
        /// The host that served: `serving` is its generation that served when the operator
        /// asked (client `asked`, until answered), `newHost` the process it started.
        case givingWay(serving: Int, asked: Int?, newHost: ProcessID?)
        /// The new host: `hostBefore` started it, and its generation `generationBefore`
        /// served; `first` is this host's first generation, and its trial ends at `trialEnds`
        /// once it serves.
        case takingOver(hostBefore: ProcessID, generationBefore: Int, first: Int, trialEnds: MonotonicInstant?)
    }

    var phase: Phase
    var role: Role
    /// Whether the other end is gone: on the new host's end, the host before ended.
    var otherEndGone = false
    /// On the end that gives way: whether its generation that served ended before it was
    /// asked to drain (it crashed): the new host's generation takes over from none.
    var servingEnded = false
    /// On the new host's end: the plugins the host before runs, by name.
    var runningBefore: [String] = []

    init(phase: Phase, role: Role) {
        self.phase = phase
        self.role = role
    }

    /// The generation of this host that serves while the new host's loads, if this host is
    /// the one giving way and it has not begun to drain.
    var servingBeside: Int? {
        guard case .givingWay(let serving, _, _) = role, !servingEnded else { return nil }
        switch phase {
        case .checking, .starting, .loading: return serving
        case .handingOver, .onTrial, .fallingBack: return nil
        }
    }

    /// The new host, on the end that gives way, while it runs: started, and not failed.
    var runningNewHost: ProcessID? {
        if case .fallingBack = phase { nil } else { newHost }
    }

    /// The process of the new host, once started, on the end that gives way.
    var newHost: ProcessID? {
        if case .givingWay(_, _, let process) = role { process } else { nil }
    }

    /// The operator's client still owed the outcome, on the end that gives way.
    var asked: Int? {
        if case .givingWay(_, let client, _) = role { client } else { nil }
    }

    /// The operator's client has its answer.
    mutating func answered() {
        if case .givingWay(let serving, _, let process) = role { role = .givingWay(serving: serving, asked: nil, newHost: process) }
    }

    /// The new host's process started.
    mutating func started(_ process: ProcessID) {
        if case .givingWay(let serving, let client, _) = role { role = .givingWay(serving: serving, asked: client, newHost: process) }
        phase = .loading
    }
}

/// What the two ends of a host upgrade tell each other over the channel the host before
/// opened when it started the new one.
enum HostWord: Equatable, Sendable {
    /// From the new host: its generation loaded and bootstraps after the one that serves;
    /// that one is to drain and hand over.
    case drain
    /// From the new host: its generation serves; its trial begins.
    case serves
    /// From the new host: its trial passed; the host before may end.
    case trialPassed
    /// From the new host, on trial: it stops, as systemd (whose main process it is now) or
    /// an operator asked; the service stops, and the host before with it.
    case stop
    /// From the host before: what its generation handed over as it stopped (these items,
    /// `Plugin/name`), with the descriptors it carried.
    case handedOver([String])
}

/// What the hosts say of a host upgrade as it goes, each in a line of its own.
enum HostUpgradeNews: Equatable, Sendable {
    /// SIGUSR2 asked for a host upgrade, which cannot begin now, as `refusal` says.
    case notNow(Refusal)
    /// The host before started the new host, this process.
    case started(newHost: ProcessID)
    /// The new host begins to take over from `hostBefore`.
    case takingOver(hostBefore: ProcessID)
    /// The new host's trial passed: the host before ends.
    case passed(newHost: ProcessID)
    /// The new host gives up, as its first generation, plugin `failed`, failed: it ends, and
    /// the host before serves again.
    case pluginFailed(String)
    /// The new host gives up, as its first generation ended so before its trial passed: it
    /// ends, and the host before serves again.
    case givingUp(WorkerEnding.Summary)
    /// The upgrade ended so, on this end.
    case ended(HostUpgradeOutcome)
}

/// The last host upgrade: when it ended, and how.
struct HostUpgradeRecord: Equatable, Sendable {
    let at: MonotonicInstant
    let outcome: HostUpgradeOutcome
}

/// What became of a host upgrade, as operators read it: in the answer to `upgrade-host`, in
/// the lines the hosts say, and in status (the last host upgrade).
enum HostUpgradeOutcome: Equatable, Sendable {
    /// The file at the host's path was refused before anything stopped, and why.
    case refused(String)
    /// The new host (`newHost`) serves, on trial for `trial` (none: it passed at once).
    case onTrial(newHost: ProcessID, trial: Duration?)
    /// This host took over from `hostBefore`, and its trial passed; `alone` when the host
    /// before ended first, so that there was nothing to go back to.
    case tookOver(hostBefore: ProcessID, alone: Bool)
    /// The new host failed, as `why` says, and this host serves on; `drained` when its
    /// generation had stopped, so that a new generation of this host serves.
    case failed(HostUpgradeFailure, drained: Bool)

    /// Whether the host upgrade did what the operator asked, so far.
    var succeeded: Bool {
        switch self {
        case .onTrial, .tookOver: true
        case .refused, .failed: false
        }
    }
}

/// Why a host upgrade failed, on the end that gives way.
enum HostUpgradeFailure: Equatable, Sendable {
    /// The new host could not be started, as the system said.
    case couldNotStart(String)
    /// The new host ended so before its trial passed.
    case newHostEnded(Termination)
}
