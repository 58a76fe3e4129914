/// What the supervisor knows of how a worker ended, gathered when it is reaped: the wait
/// status, what the worker's handlers recorded in its page, and the plugin files as they are
/// on disk now. The judgement (``WorkerEnding``) is made from it alone.
struct EndingEvidence: Equatable, Sendable {
    var termination: Termination
    /// The status the host itself said it exits with; `nil` when it never said so.
    var intendedExit: Int32? = nil
    /// The crash the worker's fatal-signal handler recorded.
    var crash: WorkerRecord? = nil
    /// The `exit()` call of code other than the host's that its exit handler recorded.
    var exitCall: WorkerRecord? = nil
    /// The plugins whose code ran, or whose steps were in progress, when it ended, in
    /// bootstrap order: each once, with what it was doing.
    var running: [RunningCode] = []
    /// What the worker as a whole was doing.
    var workerPhase: WorkerPhase = .startUp
    /// The plugin whose failure (an error, not a crash) made the worker give up.
    var failedPlugin: PluginNumber? = nil
    /// Every plugin it published, by number.
    var plugins: [PublishedPlugin] = []
    /// The plugins whose file was written in place while their code was loaded: the same
    /// file (device and inode), other contents. The code mapped from it changed under the
    /// worker.
    var rewrittenInPlace: [PluginNumber] = []
    /// What its driving thread was found doing, when the supervisor asked before ending it.
    var stall: Stall? = nil

}

/// A plugin whose code a worker ran, and in which phase.
struct RunningCode: Equatable, Sendable {
    var plugin: PluginNumber
    var phase: Phase
}

/// What holds up a worker's driving thread, as far as can be told from outside.
enum Stall: Equatable, Sendable {
    /// The supervisor holds output of the worker that the reader does not take.
    case outputNotRead
    /// The thread is in code of this plugin (an `atexit` handler, say).
    case pluginCode(PluginNumber)
    /// The thread did not answer, or runs no plugin's code: a lock plugin code holds, or the
    /// C library.
    case hostCode
}

/// A step of a worker that ran past its limit, as the supervisor saw it.
struct Overrun: Equatable, Sendable {
    /// The plugin whose step it is; `nil` for the host's own.
    var owner: PluginNumber?
    var phase: Phase
    var policy: OverrunPolicy
    /// How long the step was allowed.
    var allowed: Duration
    /// For the host's own step: what holds it up.
    var stall: Stall?
}

/// Why the supervisor ended a worker itself.
enum KillReason: Equatable, Sendable {
    /// A step ran past its limit.
    case overran(Overrun)
    /// A signal kept the worker stopped past `--timeout`.
    case stayedSuspended(Signal, limit: Duration)
    /// Asked to stop, it had not ended within the time allowed (`--shutdown-timeout` and the
    /// grace); `suspendedBy`: the signal that kept it stopped then, if one did.
    case stopDeadline(allowed: Duration, suspendedBy: Signal?)
    /// An upgrade's new worker that had not begun to serve, when the host stops or the
    /// generation it was to replace ended: nothing is lost by ending it.
    case notNeeded
    /// The same stop signal came again later: every worker ends at once.
    case stopAtOnce(Signal)
}
