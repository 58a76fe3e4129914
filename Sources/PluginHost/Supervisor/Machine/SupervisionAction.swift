/// What the supervisor's state machine asks its driver to do: the only way its decisions
/// reach processes, files, systemd and the operator.
enum SupervisionAction: Equatable, Sendable {
    /// Fork a worker generation with this plan, handing it the held builds its plan names that
    /// the driver still holds as they were. The driver says it did with
    /// ``SupervisionEvent/started(generation:substitutes:rewritten:)``, or that the system refused with
    /// ``SupervisionEvent/couldNotStart(generation:reason:)``.
    case start(GenerationPlan)
    /// Pass a request to a generation's worker.
    case ask(generation: Int, WorkerLink.Request)
    /// End a generation's worker and its process group at once (SIGKILL). With `probing`,
    /// first ask its driving thread what holds it up, for the judgement of its end.
    case kill(generation: Int, probing: Bool)
    /// End every process the generation started that is left: its process group, and the
    /// processes it left orphaned (those that called `setsid` or changed their group too).
    case endProcesses(generation: Int)
    /// Tell the operator what the supervisor decided: the driver writes it as a line of its
    /// own on standard error.
    case say(Announcement)
    /// Tell systemd, when the host runs under it.
    case notify(HostNotice)
    /// Tell systemd's watchdog the host is alive.
    case pingWatchdog
    /// Keep these builds open, and let go of the others: the builds an upgrade that fails
    /// after the generation before stopped can bring back. The driver says which it holds
    /// with ``SupervisionEvent/holding(_:asked:)``.
    case hold([PublishedPlugin])
    /// Read the manifests of the files on disk, as `check` does (no plugin code runs), with
    /// `builds` selected, and say what they would break of the plugins `running` with
    /// ``SupervisionEvent/restartChecked(client:problems:)``: an operator's restart waits for it.
    case checkRestart(client: Int, builds: BuildSelection<LeaveOutReason>, running: [String])
    /// Send generation `to` what generation `from` handed over (nothing, for `nil`), before
    /// it bootstraps; every generation that bootstraps after another is sent one, except one
    /// that bootstraps beside the serving generation. What `to` does not take it closes.
    case handOver(from: Int?, to: Int)
    /// Close what generation `from` handed over: no generation will take it.
    case discardHandOff(from: Int)
    /// Keep `record` on disk in place of the one kept before, so that the next start honours
    /// it: what it keeps changed. The write is numbered `number`; the driver writes it outside
    /// its loop, and says when it finished with ``SupervisionEvent/recordKept(number:failure:)``.
    case keepRecord(BuildRecord, number: Int)
    /// Answer the control client numbered `client`; a final answer closes its connection.
    case answer(client: Int, ControlAnswer)
    /// Read the plugin-host file at the path this host was started from, without running it,
    /// and say with ``SupervisionEvent/hostBinaryChecked(problem:)`` whether it can be the new
    /// host: a plugin-host of this supervision protocol, another build than this one.
    case checkHostBinary
    /// Start that file as the new host, with this host's arguments, handing it the sockets,
    /// the control socket and what `plan` says over a channel of their own. The driver says
    /// with ``SupervisionEvent/newHostStarted(_:)`` or ``SupervisionEvent/newHostFailed(_:)``,
    /// and passes on what the new host says, and its end.
    case startNewHost(NewHostPlan)
    /// Send the new host what generation `from` handed over as it stopped, and keep it, for a
    /// generation of this host to take should the new host fail.
    case handOverToNewHost(from: Int)
    /// Ask the new host to stop (SIGTERM): this host stops, or no longer needs it.
    case endNewHost
    /// Tell the host before something, over the channel it started this host with.
    case tellHostBefore(HostWord)
    /// Answer operators on the control socket (`true`), or leave them to the new host, which
    /// answers on the same socket (`false`).
    case answerOperators(Bool)
    /// When the host ends, leave the sockets' files in place: another host serves on them.
    case leaveSocketsInPlace
    /// End the host: end what is left, write what is waiting, remove the sockets' files, and
    /// exit with this status.
    case exit(ExitStatus, EndReason)
}

/// Why the host ended: every way it can end, each with the statuses it ends with.
enum EndReason: Equatable, Sendable, CaseIterable {
    /// A run without services or `--watch` finished, or the worker ended as the host meant
    /// (every service ended): the worker's status.
    case finished
    /// The first generation failed before it was ready: its status (1, 70, 124).
    case failedBeforeReady
    /// A generation failed while serving and `--restart=no` or a batch run forbids a restart,
    /// or it failed while stopping by itself: its status.
    case notRestartable
    /// The restart limit was reached: the last failure's status (70, 124, or 1 for a failed
    /// upgrade).
    case restartLimit
    /// Without the plugins blamed and those that require them, nothing would serve: the
    /// failure's status.
    case nothingLeftToServe
    /// SIGINT or SIGTERM, and every generation stopped: the serving generation's status
    /// (0; 1 when a hook failed; 124 when the host had to stop it at the deadline).
    case stopped
    /// The same stop signal again after a moment: at once, 128 + the signal.
    case stoppedAtOnce
    /// The system refused a worker process: 1 at start, 70 later.
    case cannotStartWorker
    /// A new host took this host's place and its trial passed: 0, and systemd is told nothing
    /// (it follows the new host, the main process now).
    case gaveWay

    /// The statuses the host may end with for this reason.
    var statuses: Set<Int32> {
        switch self {
        case .finished: [0, 1]
        case .failedBeforeReady: [1, 70, 124]
        case .notRestartable, .restartLimit, .nothingLeftToServe: [1, 70, 124]
        case .stopped: [0, 1, 70, 124]
        case .stoppedAtOnce: [128 + 2, 128 + 15]
        case .cannotStartWorker: [1, 70]
        case .gaveWay: [0]
        }
    }
}
