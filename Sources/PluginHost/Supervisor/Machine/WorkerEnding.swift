/// How a worker process ended, as the operator reads it, and whom it blames: the judgement of
/// ``EndingEvidence`` (and of the supervisor's reason, when it ended the worker itself).
///
/// The rules, in order:
///
/// 1. The supervisor ended it: at a deadline (124, naming what ran), or because it was not
///    needed any more (as the host meant).
/// 2. A crash record names the plugin whose code faulted, or was on the crashing thread's
///    stack, or ran on that thread; an `exit()` record the same for the caller. A crash
///    record that names no plugin blames none.
/// 3. It exited with the status the host said it would: as the host meant.
/// 4. Otherwise (`_exit()`, a signal the crash handler did not see): the plugins whose code
///    was running. SIGKILL, which nothing in the process can catch, blames only plugins in a
///    short call (a load, a bootstrap, a hook); a service waiting for work did not cause it:
///    it came from outside (another process, the kernel's out-of-memory killer). A worker
///    that stayed stopped by a signal (SIGSTOP) past its limit is judged the same way: who
///    sent the signal cannot be told, so only a plugin in a short call is blamed.
/// 5. Whatever the records say, a plugin file written in place while its code was loaded
///    changed the code under the worker: nobody is blamed.
struct WorkerEnding: Equatable, Sendable {
    let status: ExitStatus
    /// How it ended, as values the operator's line is told from (``EndingAccount/message``, in
    /// `Messages/`); `nil` when the host ended as it meant to.
    let account: EndingAccount?
    /// The plugins to blame: one when the records name it, each plugin that was running
    /// when they do not, none when no plugin's code was running or nobody is to blame.
    let culprits: [PluginNumber]
    /// What happened, said in a few words after the culprit's name (in `Messages/`):
    /// `crashed during the run phase: SIGSEGV`.
    let summary: Summary
    /// Why nobody is blamed for an unexpected end, when the evidence clears everyone.
    let exoneration: Exoneration?

    /// Why an unexpected end blames nobody.
    enum Exoneration: Equatable, Sendable {
        /// These plugins' files were written in place while their code was loaded.
        case rewrittenInPlace([PluginNumber])
        /// SIGKILL came from outside while no plugin was in a short call.
        case killedFromOutside
        /// A signal kept the worker stopped past its limit while no plugin was in a short call.
        case stoppedFromOutside
    }

    /// What happened, as values: the culprit's end in a few words, said in `Messages/`. A
    /// phase is as the operator reads it: `the run phase`.
    enum Summary: Equatable, Sendable {
        /// The host ended it as it meant to: nothing to say.
        case asMeant
        /// Its process could not be started.
        case couldNotStart
        /// A step ran past its deadline: the host ended for it, or only the worker did.
        case overran(Phase, endingTheHost: Bool)
        /// A signal kept the worker stopped past its limit while a plugin was in a short call.
        case stoppedItsProcess
        /// A signal kept the worker stopped past its limit while no plugin was in a short call.
        case stoppedFromOutside(by: Signal)
        /// Its code held the worker past the stop's deadline.
        case keptTheHostFromStopping
        case crashed(during: String, Signal)
        case calledExit(Int32, during: String)
        /// The process ended with `code` after the host had finished with another status.
        case exitedDuringExit(Int32)
        case exited(Int32, during: String)
        /// It was running when the process was ended by a signal the crash handler did not see.
        case ranWhenEnded(by: Signal, during: String)
        /// SIGKILL came from outside while no plugin was in a short call.
        case killedFromOutside
    }

    /// A worker whose process could not be started: `reason`, the system's words.
    static func couldNotStart(_ reason: String) -> WorkerEnding {
        // A process that never ran leaves no evidence but that.
        WorkerEnding(
            status: .crashed, account: EndingAccount(cause: .couldNotStart(reason), evidence: EndingEvidence(termination: .exited(ExitStatus.crashed.rawValue))),
            culprits: [], summary: .couldNotStart)
    }

    /// Whether the host itself ended the worker as it meant to (after a stop, a failure it
    /// reported, or at the end of a batch run), rather than plugin code or a signal.
    var isIntended: Bool { account == nil }

    init(status: ExitStatus, account: EndingAccount?, culprits: [PluginNumber], summary: Summary, exoneration: Exoneration? = nil) {
        self.status = status
        self.account = account
        self.culprits = culprits
        self.summary = summary
        self.exoneration = exoneration
    }

    /// Judges `evidence`.
    ///
    /// - Parameters:
    ///   - reason: Why the supervisor ended the worker, when it did.
    ///   - spokeForHost: Whether the worker spoke for the host when it was ended, rather than
    ///     being a new worker loading beside the one that did.
    init(judging evidence: EndingEvidence, killedBecause reason: KillReason? = nil, spokeForHost: Bool = true) {
        let judged = Self.judge(evidence, reason, spokeForHost)
        guard let account = judged.account, !evidence.rewrittenInPlace.isEmpty else {
            self = judged
            return
        }
        let files = evidence.rewrittenInPlace.map { evidence.plugins[number: $0]?.file ?? $0.description }
        self.init(
            status: judged.status, account: EndingAccount(cause: .rewrittenInPlace(files: files, under: account.cause), evidence: evidence),
            culprits: [], summary: judged.summary, exoneration: .rewrittenInPlace(evidence.rewrittenInPlace))
    }

    private static func judge(_ evidence: EndingEvidence, _ reason: KillReason?, _ spokeForHost: Bool) -> WorkerEnding {
        func phase(_ phase: Phase) -> String { phase == .unknown ? evidence.workerPhase.description : phase.description }
        func ended(_ cause: EndingCause, culprits: [PluginNumber], summary: Summary, exoneration: Exoneration? = nil,
                   status: ExitStatus = .crashed) -> WorkerEnding {
            WorkerEnding(status: status, account: EndingAccount(cause: cause, evidence: evidence), culprits: culprits,
                         summary: summary, exoneration: exoneration)
        }
        let runningPlugins = evidence.running.map(\.plugin)
        // Who sent a signal that stopped or killed the worker cannot be told: only a plugin in a
        // short call can be suspected; a service waiting for work cannot.
        let inShortCall = evidence.running.filter { $0.phase.isShortCall }
        if let reason {
            switch reason {
            case .notNeeded, .stopAtOnce:
                return WorkerEnding(status: .success, account: nil, culprits: [], summary: .asMeant)
            case .overran(let overrun):
                let culprits = overrun.owner.map { [$0] } ?? overrun.stall?.culprit.map { [$0] } ?? []
                return ended(.overran(overrun, spokeForHost: spokeForHost), culprits: culprits,
                             summary: .overran(overrun.phase, endingTheHost: overrun.policy == .endHost), status: .timedOut)
            case .stayedSuspended(let signal, let limit):
                let suspects = inShortCall
                let cause = EndingCause.stayedSuspended(signal, limit: limit, suspects: suspects, spokeForHost: spokeForHost)
                guard suspects.isEmpty else {
                    return ended(cause, culprits: suspects.map(\.plugin), summary: .stoppedItsProcess, status: .timedOut)
                }
                return ended(cause, culprits: [], summary: .stoppedFromOutside(by: signal), exoneration: .stoppedFromOutside, status: .timedOut)
            case .stopDeadline(let allowed, let suspendedBy):
                // A signal that kept it stopped kept its plugins from stopping: as for SIGSTOP
                // past --timeout, only a plugin in a short call can be suspected of sending it.
                let suspects = inShortCall
                let cause = EndingCause.stopDeadline(allowed: allowed, suspendedBy: suspendedBy, suspects: suspects, spokeForHost: spokeForHost)
                guard suspendedBy == nil else {
                    return ended(cause, culprits: suspects.map(\.plugin), summary: .keptTheHostFromStopping,
                                 exoneration: suspects.isEmpty ? .stoppedFromOutside : nil, status: .timedOut)
                }
                return ended(cause, culprits: evidence.stall?.culprit.map { [$0] } ?? runningPlugins, summary: .keptTheHostFromStopping, status: .timedOut)
            }
        }
        if let crash = evidence.crash {
            let phase = phase(crash.phase)
            // A crash the records cannot pin on a plugin blames none: the plugins that happened
            // to run (a service waiting for work) are no more likely than any other.
            return ended(.crashed(crash), culprits: crash.culprit.map { [$0] } ?? [],
                         summary: .crashed(during: phase, Signal(rawValue: crash.signal)))
        }
        if let call = evidence.exitCall {
            let phase = phase(call.phase)
            return ended(.calledExit(call), culprits: call.culprit.map { [$0] } ?? runningPlugins,
                         summary: .calledExit(call.status, during: phase))
        }
        let running = evidence.running
        let phase = running.count == 1 ? phase(running[0].phase) : evidence.workerPhase.description
        switch evidence.termination {
        case .exited(let code) where evidence.intendedExit == code:
            return WorkerEnding(status: ExitStatus(rawValue: code), account: nil, culprits: [], summary: .asMeant)
        case .exited(let code) where evidence.intendedExit != nil:
            return ended(.exitedDuringExit(code: code, intended: evidence.intendedExit ?? 0), culprits: runningPlugins,
                         summary: .exitedDuringExit(code))
        case .exited(let code):
            return ended(.exited(code: code), culprits: runningPlugins, summary: .exited(code, during: phase))
        case .signalled(let signal) where signal == .kill:
            // Nothing in the process can catch SIGKILL: only a plugin in a short call can be
            // suspected of sending it; a service waiting for work cannot.
            let suspects = inShortCall
            guard suspects.isEmpty else {
                let phase = suspects.count == 1 ? Self.phase(suspects[0].phase, of: evidence) : evidence.workerPhase.description
                return ended(.killed(suspects: suspects), culprits: suspects.map(\.plugin), summary: .ranWhenEnded(by: .kill, during: phase))
            }
            return ended(.killed(suspects: []), culprits: [], summary: .killedFromOutside, exoneration: .killedFromOutside)
        case .signalled(let signal):
            return ended(.signalled(signal), culprits: runningPlugins, summary: .ranWhenEnded(by: signal, during: phase))
        }
    }

    private static func phase(_ phase: Phase, of evidence: EndingEvidence) -> String {
        phase == .unknown ? evidence.workerPhase.description : phase.description
    }
}

extension Stall {
    /// The plugin that holds the host's own thread up, when one does.
    var culprit: PluginNumber? {
        if case .pluginCode(let plugin) = self { plugin } else { nil }
    }
}

extension Phase {
    /// Whether a plugin's code in this phase is a call the host waits for, which returns
    /// within its deadline: everything but a service's `run()`, which may wait for work for
    /// as long as the host runs.
    var isShortCall: Bool { self != .run }
}
