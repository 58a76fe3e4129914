/// What an operator asks a running host through its control socket (`plugin-host status`,
/// `reload`, `restart`, `stop`): one more input of the supervisor's state machine.
enum ControlRequest: Equatable, Sendable {
    /// The host's state, its generations, its plugins.
    case status
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
    /// The builds on trial of the plugins named (every one, when none is) are left out now,
    /// and the builds they replaced come back; answered as a restart is.
    case rollBack([String])
}

/// What the supervisor's state machine answers a control request with.
enum ControlAnswer: Equatable, Sendable {
    /// The host's status now.
    case status(HostStatus)
    /// A change, in a few words, and the status after it: for a client that follows.
    case change(String, HostStatus)
    /// The status, for its figures.
    case metrics(HostStatus)
    /// The outcome of a reload.
    case reload(applied: Bool, reasons: [String])
    /// The outcome of a restart: whether the new generation serves, and what happened.
    case restart(ok: Bool, message: String)
    /// The host ended, with this status.
    case stopped(ExitStatus)
    /// The request cannot be served now, and why.
    case refused(String)

    /// The status the answer carries, if it carries one.
    var carriedStatus: HostStatus? {
        switch self {
        case .status(let status), .change(_, let status), .metrics(let status): status
        case .reload, .restart, .stopped, .refused: nil
        }
    }

    /// Whether the client has its whole answer: the connection can close.
    var isFinal: Bool {
        if case .change = self { false } else { true }
    }
}
