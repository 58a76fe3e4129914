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
    /// What to print on standard error; `nil` when the host ended as it meant to.
    let message: String?
    /// The plugins to blame: one when the records name it, each plugin that was running
    /// when they do not, none when no plugin's code was running or nobody is to blame.
    let culprits: [PluginNumber]
    /// What the culprits were doing, as the operator reads it: `the run phase`.
    let phase: String
    /// What happened, in a few words after the culprit's name: `crashed during the run
    /// phase: SIGSEGV`; empty when the host ended as it meant to.
    let summary: String
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

    /// Whether the host itself ended the worker as it meant to (after a stop, a failure it
    /// reported, or at the end of a batch run), rather than plugin code or a signal.
    var isIntended: Bool { message == nil }

    init(status: ExitStatus, message: String?, culprits: [PluginNumber], phase: String, summary: String, exoneration: Exoneration? = nil) {
        self.status = status
        self.message = message
        self.culprits = culprits
        self.phase = phase
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
        guard !judged.isIntended, !evidence.rewrittenInPlace.isEmpty else {
            self = judged
            return
        }
        let files = evidence.rewrittenInPlace.map { evidence.plugins[number: $0]?.file ?? $0.description }
        let clause = files.count == 1 ? "the file \(files[0]) was" : "the files \(files.joined(separator: ", ")) were"
        self.init(
            status: judged.status,
            message: (judged.message ?? "") + "; but \(clause) written in place while the worker had its code loaded, which changes "
                + "the code under it: no plugin is blamed, and the next worker loads the files as they are now (replace a "
                + "plugin file with install or mv, never by writing over it)",
            culprits: [], phase: judged.phase, summary: judged.summary, exoneration: .rewrittenInPlace(evidence.rewrittenInPlace))
    }

    private static func judge(_ evidence: EndingEvidence, _ reason: KillReason?, _ spokeForHost: Bool) -> WorkerEnding {
        let context = Context(evidence: evidence)
        if let reason { return context.killed(because: reason, spokeForHost: spokeForHost) }
        if let crash = evidence.crash {
            let phase = context.phase(crash.phase)
            // A crash the records cannot pin on a plugin blames none: the plugins that happened
            // to run (a service waiting for work) are no more likely than any other.
            return WorkerEnding(
                status: .crashed, message: context.crashed(crash), culprits: crash.culprit.map { [$0] } ?? [], phase: phase,
                summary: "crashed during \(phase): \(Signal(rawValue: crash.signal).name)")
        }
        if let call = evidence.exitCall {
            let phase = context.phase(call.phase)
            return WorkerEnding(
                status: .crashed, message: context.calledExit(call),
                culprits: call.culprit.map { [$0] } ?? context.runningPlugins, phase: phase,
                summary: "called exit(\(call.status)) during \(phase)")
        }
        let running = evidence.running
        let phase = running.count == 1 ? context.phase(running[0].phase) : evidence.workerPhase.description
        switch evidence.termination {
        case .exited(let code) where evidence.intendedExit == code:
            return WorkerEnding(status: ExitStatus(rawValue: code), message: nil, culprits: [], phase: phase, summary: "")
        case .exited(let code) where evidence.intendedExit != nil:
            return WorkerEnding(
                status: .crashed,
                message: "plugin code ended the process with status \(code) during exit, after the host had finished with "
                    + "status \(evidence.intendedExit ?? 0); an atexit handler of a plugin called exit or _exit",
                culprits: context.runningPlugins, phase: phase, summary: "ended the process with status \(code) during exit")
        case .exited(let code):
            return WorkerEnding(
                status: .crashed,
                message: context.endedUnexpectedly(
                    byPlugin: "ended the process with status \(code)", otherwise: "ended with status \(code)",
                    how: "a call to _exit(), or to exit() where the host could not see it", among: running),
                culprits: context.runningPlugins, phase: phase, summary: "ended the process with status \(code) during \(phase)")
        case .signalled(let signal) where signal == .kill:
            // Nothing in the process can catch SIGKILL: only a plugin in a short call can be
            // suspected of sending it; a service waiting for work cannot.
            let suspects = running.filter { $0.phase.isShortCall }
            let how = "SIGKILL came from plugin code, another process or the kernel's out-of-memory killer"
            guard suspects.isEmpty else {
                let phase = suspects.count == 1 ? context.phase(suspects[0].phase) : evidence.workerPhase.description
                return WorkerEnding(
                    status: .crashed,
                    message: context.endedUnexpectedly(
                        byPlugin: "was running when the process was ended by SIGKILL", otherwise: "was ended by SIGKILL",
                        how: how, among: suspects),
                    culprits: suspects.map(\.plugin), phase: phase,
                    summary: "was running when the process was ended by SIGKILL during \(phase)")
            }
            return WorkerEnding(
                status: .crashed,
                message: "the worker process was ended by SIGKILL during \(evidence.workerPhase.description)"
                    + (running.isEmpty ? ", while no plugin code was known to run" : ", while no plugin was in a short call "
                        + "(\(context.activities(of: running)))")
                    + ": it came from outside plugin-host (another process, or the kernel's out-of-memory killer); "
                    + "no plugin is blamed",
                culprits: [], phase: phase, summary: "was ended by SIGKILL from outside", exoneration: .killedFromOutside)
        case .signalled(let signal):
            return WorkerEnding(
                status: .crashed,
                message: context.endedUnexpectedly(
                    byPlugin: "was running when the process was ended by \(signal.name)", otherwise: "was ended by \(signal.name)",
                    how: "the host's crash handler did not run: plugin code replaced it or blocked the signal, "
                        + "or a thread the host did not start overflowed its stack",
                    among: running),
                culprits: context.runningPlugins, phase: phase,
                summary: "was running when the process was ended by \(signal.name) during \(phase)")
        }
    }

    /// What the evidence says about the moment the worker ended, in the operator's words.
    private struct Context {
        let evidence: EndingEvidence

        func phase(_ phase: Phase) -> String {
            phase == .unknown ? evidence.workerPhase.description : phase.description
        }

        func label(_ plugin: PluginNumber) -> String { "plugin \(evidence.plugins.label(of: plugin))" }

        var runningPlugins: [PluginNumber] { evidence.running.map(\.plugin) }

        func killed(because reason: KillReason, spokeForHost: Bool) -> WorkerEnding {
            // What the supervisor ends is a worker: the one that speaks for the host, or a new
            // one loading beside it. Whether the host goes on is said where it is decided.
            let ended = spokeForHost ? "ended the worker" : "ended the new worker"
            switch reason {
            case .notNeeded, .stopAtOnce:
                return WorkerEnding(status: .success, message: nil, culprits: [], phase: evidence.workerPhase.description, summary: "")
            case .overran(let overrun):
                let allowed = TextFormat.seconds(overrun.allowed)
                let summary = overrun.policy == .endHost ? "timed out during \(overrun.phase)" : "did not finish its \(overrun.phase) in time"
                guard let owner = overrun.owner else {
                    let (why, culprit) = explanation(of: overrun.stall)
                    return WorkerEnding(
                        status: .timedOut,
                        message: "plugin-host did not finish its \(overrun.phase) within \(allowed): \(why); \(ended) without waiting for it",
                        culprits: culprit.map { [$0] } ?? [], phase: overrun.phase.description, summary: summary)
                }
                let message = overrun.policy == .endHost
                    ? "\(label(owner)) timed out during \(overrun.phase): still running after \(allowed) (--timeout); \(ended) without waiting for it"
                    : "\(label(owner)) did not finish its \(overrun.phase) within \(allowed), and the host was stuck behind it "
                        + "for another \(TextFormat.seconds(OverrunPolicy.grace)); \(ended) without waiting for it"
                return WorkerEnding(status: .timedOut, message: message, culprits: [owner], phase: overrun.phase.description, summary: summary)
            case .stayedSuspended(let signal, let limit):
                let running = evidence.running
                let who = running.isEmpty ? "no plugin code was known to run" : running.map { label($0.plugin) }.joined(separator: " and ") + " ran"
                let stayed = "the worker process stayed stopped by \(signal.name) for \(TextFormat.seconds(limit)) (--timeout) while \(who); "
                    + "\(ended) without waiting for it"
                // Who sent the signal cannot be told: as for SIGKILL, only a plugin in a short
                // call can be suspected; a service waiting for work cannot.
                let suspects = running.filter { $0.phase.isShortCall }
                guard suspects.isEmpty else {
                    return WorkerEnding(
                        status: .timedOut, message: stayed, culprits: suspects.map(\.plugin), phase: phase(suspects[0].phase),
                        summary: "stopped its process")
                }
                return WorkerEnding(
                    status: .timedOut,
                    message: stayed + "; no plugin was in a short call, so the signal came from outside plugin-host (another "
                        + "process, or a service no different from one waiting for work): no plugin is blamed",
                    culprits: [], phase: running.first.map { $0.phase.description } ?? evidence.workerPhase.description,
                    summary: "was stopped by \(signal.name) from outside", exoneration: .stoppedFromOutside)
            case .stopDeadline(let allowed):
                let (why, culprit) = explanation(of: evidence.stall)
                let running = evidence.running.isEmpty ? "" : "; " + activities(of: evidence.running)
                return WorkerEnding(
                    status: .timedOut,
                    message: "plugin-host did not finish stopping within \(TextFormat.seconds(allowed)) (--shutdown-timeout and "
                        + "\(TextFormat.seconds(OverrunPolicy.grace)) of grace)\(running); \(why); \(ended) without waiting for it",
                    culprits: culprit.map { [$0] } ?? runningPlugins, phase: "stop", summary: "kept the host from stopping")
            }
        }

        func explanation(of stall: Stall?) -> (String, PluginNumber?) {
            switch stall {
            case .outputNotRead: ("its output is not being read", nil)
            case .pluginCode(let culprit):
                ("the host's own thread is stuck in code of \(label(culprit)), such as an atexit handler", culprit)
            case .hostCode, nil: ("the host's own thread is blocked (by a lock plugin code holds, or in the C library)", nil)
            }
        }

        func crashed(_ crash: WorkerRecord) -> String {
            let signal = Signal(rawValue: crash.signal).name
            if let culprit = crash.culprit {
                return "\(label(culprit)) crashed during \(phase(crash.phase)): \(signal)"
            }
            if crash.thread == .notTheHosts {
                return "a thread that plugin-host did not start crashed during \(phase(crash.phase)): \(signal); "
                    + "no plugin's code was found on its stack, so the culprit is unknown\(runningClause(evidence.running))"
            }
            return "plugin-host crashed during \(phase(crash.phase)): \(signal); this is a bug in plugin-host"
        }

        func calledExit(_ call: WorkerRecord) -> String {
            let advice = "a plugin must throw an error instead of ending the process"
            if let culprit = call.culprit {
                return "\(label(culprit)) called exit(\(call.status)) during \(phase(call.phase)); \(advice)"
            }
            return "exit(\(call.status)) was called during \(phase(call.phase)) by code not found to belong to a plugin"
                + "\(runningClause(evidence.running)); \(advice)"
        }

        /// The worker ended without a record: said of the one plugin among `running`, or of
        /// the process; `how` may explain it.
        func endedUnexpectedly(byPlugin: String, otherwise: String, how: String, among running: [RunningCode]) -> String {
            if running.count == 1, let only = running.first {
                return "\(label(only.plugin)) \(byPlugin) during \(phase(only.phase)) (\(how)); "
                    + "a plugin must throw an error instead of ending the process"
            }
            return "the process \(otherwise) during \(evidence.workerPhase.description)\(runningClause(running)) (\(how)); "
                + "a plugin must throw an error instead of ending the process"
        }

        /// `plugin A (FILE) was bootstrapping and plugin B (FILE) was draining`; at most five.
        func activities(of running: [RunningCode]) -> String {
            var clauses = running.prefix(5).map { "\(label($0.plugin)) was \($0.phase.activity)" }
            if running.count > 5 { clauses.append("\(running.count - 5) more were running") }
            guard let last = clauses.popLast() else { return "" }
            return clauses.isEmpty ? last : clauses.joined(separator: ", ") + " and " + last
        }

        func runningClause(_ running: [RunningCode]) -> String {
            running.isEmpty ? ", while no plugin code was known to run" : ", while " + activities(of: running)
        }
    }
}

extension Phase {
    /// Whether a plugin's code in this phase is a call the host waits for, which returns
    /// within its deadline: everything but a service's `run()`, which may wait for work for
    /// as long as the host runs.
    var isShortCall: Bool { self != .run }
}
