/// An end the host did not mean: what happened, and the evidence it was judged on (the
/// plugins, what ran, what the worker as a whole did), which its line names.
struct EndingAccount: Equatable, Sendable {
    let cause: EndingCause
    let evidence: EndingEvidence
}

/// What ended the worker, by the rule that judged it.
enum EndingCause: Equatable, Sendable {
    /// The supervisor ended it: a step ran past its limit; what held the host's own
    /// thread up, for its own step. `spokeForHost`: the worker that spoke for the host,
    /// rather than a new one loading beside it.
    case overran(Overrun, spokeForHost: Bool)
    /// The supervisor ended it: a signal kept it stopped past `limit`; `suspects`, the
    /// plugins that were in a short call.
    case stayedSuspended(Signal, limit: Duration, suspects: [RunningCode], spokeForHost: Bool)
    /// The supervisor ended it: asked to stop, it had not within `allowed`; `suspendedBy`: the
    /// signal that kept it stopped then, if one did, and `suspects`, the plugins that were in
    /// a short call.
    case stopDeadline(allowed: Duration, suspendedBy: Signal?, suspects: [RunningCode], spokeForHost: Bool)
    /// Its crash handler recorded this crash.
    case crashed(WorkerRecord)
    /// Its exit handler recorded this `exit()` call of code other than the host's.
    case calledExit(WorkerRecord)
    /// It exited with `code` while it exited, after the host had said `intended`.
    case exitedDuringExit(code: Int32, intended: Int32)
    /// It exited with `code`, which the host never said.
    case exited(code: Int32)
    /// SIGKILL; `suspects`, the plugins that were in a short call.
    case killed(suspects: [RunningCode])
    /// Another signal its crash handler did not see.
    case signalled(Signal)
    /// Its process could not be started, for this reason (the system's words).
    case couldNotStart(String)
    /// Any of the others, but these plugin files were written in place under it: nobody
    /// is blamed.
    indirect case rewrittenInPlace(files: [String], under: EndingCause)
}
