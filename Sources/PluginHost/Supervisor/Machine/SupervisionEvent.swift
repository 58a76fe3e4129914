/// Everything the supervisor reacts to, as its driver turns what it saw into facts: signals,
/// what each worker generation said or did, and time passing. Generations are named by
/// their number; the driver alone knows their processes and pages.
enum SupervisionEvent: Equatable, Sendable {
    /// A signal reached the supervisor, or a worker, which passed it on.
    case signal(Signal, from: SignalSource)
    /// A `*.so` file in a watched plugin directory changed (`--watch`).
    case directoryChanged
    /// Time passed: every deadline up to now is due.
    case tick
    /// The driver started a generation's worker, handing it these held builds in place of the
    /// files whose builds are left out: those it found as they were held, for plugins whose
    /// file on disk is still a build left out. `rewritten`: the held builds of the plan whose
    /// held file reads other bytes now (it was written in place), which nothing can bring back.
    case started(generation: Int, substitutes: [BuildSubstitute], rewritten: [BuildSubstitute])
    /// The worker of a generation could not be started (the system refused a process).
    case couldNotStart(generation: Int, reason: String)
    /// The driver holds these builds now, of those it was asked to hold (``SupervisionAction/hold(_:)``):
    /// a build whose file had changed before it could be opened is not held.
    case holding([PublishedPlugin], asked: [PublishedPlugin])
    /// A generation says every component is ready; what it runs now.
    case ready(generation: Int, plugins: [PublishedPlugin])
    /// An upgrade's new generation loaded, or bootstrapped, its plugins (`plugins`, as it
    /// published them), and waits for the machine's word (``CandidateVerdict``).
    case candidate(generation: Int, CandidateReport, plugins: [PublishedPlugin])
    /// A serving generation saw plugin files change that it cannot take up itself.
    case upgradeRequested(generation: Int, plugins: [PublishedPlugin])
    /// A generation tells systemd something other than that it is ready.
    case notification(generation: Int, ServiceNotification)
    /// A generation's last health check: good until an instant, or bad (`nil`).
    case health(generation: Int, goodUntil: MonotonicInstant?)
    /// A step of a generation ran past its limit.
    case overran(generation: Int, Overrun)
    /// A signal stopped a generation's worker (SIGSTOP, SIGTSTP), while `running` ran.
    case suspended(generation: Int, process: ProcessID, by: Signal, running: [String])
    /// A stopped worker was resumed.
    case resumed(generation: Int, process: ProcessID)
    /// A generation's worker, stopping as asked, handed the driver what its plugins hand the
    /// next build (``PluginABI/HandOff``): these items, `Plugin/name`. Reported before its end.
    case handedOver(generation: Int, items: [String])
    /// A generation's worker ended, and what is known of how.
    case ended(generation: Int, EndingEvidence)
    /// A generation tells what an operator may ask about: its plugins' conditions, a
    /// reload's outcome, the warnings in force, its health checks.
    case news(generation: Int, WorkerNews)
    /// An operator's request on the control socket, from the client numbered `client`.
    case control(client: Int, ControlRequest)
    /// What the files on disk would break of the running plugins (version mismatches), as the
    /// driver found them for a restart of `client`'s (``SupervisionAction/checkRestart(client:builds:running:)``).
    case restartChecked(client: Int, problems: [String])
    /// A client of the control socket went away.
    case clientLeft(client: Int)
    /// The driver finished the write of the record numbered `number`
    /// (``SupervisionAction/keepRecord(_:number:)``), and every one asked before it: it kept
    /// the record, or it failed (`failure` says why).
    case recordKept(number: Int, failure: String?)
    /// The driver read the plugin-host file at the host's path for a host upgrade
    /// (``SupervisionAction/checkHostBinary``): `problem` says why it cannot be the new host,
    /// `nil` when it can.
    case hostBinaryChecked(problem: String?)
    /// The new host's process started (``SupervisionAction/startNewHost(_:)``).
    case newHostStarted(ProcessID)
    /// The new host could not be started, or ended: how, in words.
    case newHostFailed(HostUpgradeFailure)
    /// The other end of a host upgrade said something over its channel.
    case hostSaid(HostWord)
    /// On a new host: the host before ended (its channel closed).
    case hostBeforeEnded
}

/// Where a signal was received.
enum SignalSource: Equatable, Sendable {
    /// By the supervisor itself.
    case supervisor
    /// By a worker, which passed it on: a signal to the whole service reaches both.
    case worker(generation: Int)
}
