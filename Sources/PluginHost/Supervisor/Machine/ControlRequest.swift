/// What an operator asks a running host through its control socket (`plugin-host status`,
/// `wait`, `reload`, `restart`, `stop`, ...): one more input of the supervisor's state machine.
enum ControlRequest: Equatable, Sendable {
    /// The host's state, its generations, its plugins.
    case status
    /// The status once the host serves and no change of generation is under way: at once
    /// when it does now.
    case wait
    /// The status now, then each change of it as it happens, until the client leaves.
    case follow
    /// The figures of `status --metrics`.
    case metrics
    /// What SIGHUP does, answered with whether the reload was applied.
    case reload
    /// A new generation; the plugins named that are left out are tried again first.
    case restart([String])
    /// What SIGTERM does, answered with the host's exit status once it has ended.
    case stop
    /// The trials of the plugins named (every one, when none is) end now: their builds are
    /// permanent.
    case accept([String])
    /// The builds that run of the plugins named are left out now, and the builds before come
    /// back: the build a trial replaced, else the newest permanent build kept before the one
    /// that runs, or the kept build of version `to`. With no plugin named, every build on
    /// trial is rolled back. Answered as a restart is.
    case rollBack([String], to: String?)
    /// Replace the host by the plugin-host binary now installed at its path
    /// (`plugin-host upgrade-host`).
    case upgradeHost

    /// The plugins it names.
    var plugins: [String] {
        switch self {
        case .restart(let names), .accept(let names), .rollBack(let names, _): names
        case .status, .wait, .follow, .metrics, .reload, .stop, .upgradeHost: []
        }
    }

    /// Whether the host answers it at once, unless the supervisor is itself stopped: a client
    /// gives up on it after a while, not on one the host answers once something happened.
    var answersAtOnce: Bool {
        switch self {
        case .status, .metrics: true
        case .wait, .follow, .reload, .restart, .stop, .accept, .rollBack, .upgradeHost: false
        }
    }
}

/// What became of an operator's restart, accept or rollback.
enum RestartOutcome: Equatable, Sendable {
    /// The new generation serves.
    case serves(generation: Int)
    /// Its worker could not be started: the system's words.
    case couldNotStart(generation: Int, reason: String)
    /// It ended before it served, as `ending` says.
    case endedBeforeServing(generation: Int, WorkerEnding)
    /// These builds on trial are permanent now.
    case permanent([PublishedPlugin])

    /// Whether it did what was asked.
    var ok: Bool {
        switch self {
        case .serves, .permanent: true
        case .couldNotStart, .endedBeforeServing: false
        }
    }
}

/// What the supervisor's state machine answers a control request with.
enum ControlAnswer: Equatable, Sendable {
    /// The host's status now.
    case status(HostStatus)
    /// A change, in a few words, and the status after it: for a client that follows.
    case change(String, HostStatus)
    /// The status, for its figures.
    case metrics(HostStatus)
    /// The outcome of a reload, as the generation told it.
    case reload(applied: Bool, reasons: [String])
    /// A reload not applied: generation `generation` ended, as `ending` says, before it told
    /// the reload's outcome.
    case reloadEnded(generation: Int, WorkerEnding)
    /// The outcome of a restart (an accept, a rollback): what became of what it asked for.
    case restart(RestartOutcome)
    /// The host ended, with this status.
    case stopped(ExitStatus)
    /// The request cannot be served now, and why.
    case refused(Refusal)
    /// What a host upgrade did: the new host serves on trial, or why this host serves on.
    case hostUpgrade(HostUpgradeOutcome)

    /// The status the answer carries, if it carries one.
    var carriedStatus: HostStatus? {
        switch self {
        case .status(let status), .change(_, let status), .metrics(let status): status
        case .reload, .reloadEnded, .restart, .stopped, .refused, .hostUpgrade: nil
        }
    }

    /// Whether the client has its whole answer: the connection can close.
    var isFinal: Bool {
        if case .change = self { false } else { true }
    }
}
