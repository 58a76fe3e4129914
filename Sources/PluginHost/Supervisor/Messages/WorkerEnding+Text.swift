/// How a worker ended, in the words an operator reads on standard error: the line of an end
/// the host did not mean, told from the cause the machine judged and its evidence.
extension EndingAccount {
    /// `plugin Ticker (plugins/libTicker.so) crashed during the run phase: SIGSEGV`.
    var message: String {
        Context(evidence: evidence).message(cause)
    }

    /// What the evidence says about the moment the worker ended, in the operator's words.
    private struct Context {
        let evidence: EndingEvidence

        func message(_ cause: EndingCause) -> String {
            switch cause {
            case .overran(let overrun, let spokeForHost):
                let ended = endedClause(spokeForHost)
                let allowed = TextFormat.seconds(overrun.allowed)
                guard let owner = overrun.owner else {
                    return "plugin-host did not finish its \(overrun.phase) within \(allowed): \(explanation(of: overrun.stall)); "
                        + "\(ended) without waiting for it"
                }
                return overrun.policy == .endHost
                    ? "\(label(owner)) timed out during \(overrun.phase): still running after \(allowed) (--timeout); \(ended) without waiting for it"
                    : "\(label(owner)) did not finish its \(overrun.phase) within \(allowed), and the host was stuck behind it "
                        + "for another \(TextFormat.seconds(OverrunPolicy.grace)); \(ended) without waiting for it"
            case .stayedSuspended(let signal, let limit, let suspects, let spokeForHost):
                let running = evidence.running
                let who = running.isEmpty ? "no plugin code was known to run" : running.map { label($0.plugin) }.joined(separator: " and ") + " ran"
                let stayed = "the worker process stayed stopped by \(signal.name) for \(TextFormat.seconds(limit)) (--timeout) while \(who); "
                    + "\(endedClause(spokeForHost)) without waiting for it"
                guard suspects.isEmpty else { return stayed }
                return stayed + "; no plugin was in a short call, so the signal came from outside plugin-host (another "
                    + "process, or a service no different from one waiting for work): no plugin is blamed"
            case .stopDeadline(let allowed, let suspendedBy, let suspects, let spokeForHost):
                let running = evidence.running.isEmpty ? "" : "; " + activities(of: evidence.running)
                let stopped = "plugin-host did not finish stopping within \(TextFormat.seconds(allowed)) (--shutdown-timeout and "
                    + "\(TextFormat.seconds(OverrunPolicy.grace)) of grace)\(running); "
                let ended = "\(endedClause(spokeForHost)) without waiting for it"
                guard let signal = suspendedBy else { return stopped + "\(explanation(of: evidence.stall)); " + ended }
                return stopped + "the worker process was stopped by \(signal.name) meanwhile; " + ended
                    + (suspects.isEmpty ? "; no plugin was in a short call, so the signal came from outside plugin-host: no plugin is blamed" : "")
            case .crashed(let crash):
                return crashed(crash)
            case .calledExit(let call):
                return calledExit(call)
            case .exitedDuringExit(let code, let intended):
                return "plugin code ended the process with status \(code) during exit, after the host had finished with "
                    + "status \(intended); an atexit handler of a plugin called exit or _exit"
            case .exited(let code):
                return endedUnexpectedly(
                    byPlugin: "ended the process with status \(code)", otherwise: "ended with status \(code)",
                    how: "a call to _exit(), or to exit() where the host could not see it", among: evidence.running)
            case .killed(let suspects):
                guard suspects.isEmpty else {
                    return endedUnexpectedly(
                        byPlugin: "was running when the process was ended by SIGKILL", otherwise: "was ended by SIGKILL",
                        how: "SIGKILL came from plugin code, another process or the kernel's out-of-memory killer", among: suspects)
                }
                let running = evidence.running
                return "the worker process was ended by SIGKILL during \(evidence.workerPhase.description)"
                    + (running.isEmpty ? ", while no plugin code was known to run" : ", while no plugin was in a short call "
                        + "(\(activities(of: running)))")
                    + ": it came from outside plugin-host (another process, or the kernel's out-of-memory killer); "
                    + "no plugin is blamed"
            case .signalled(let signal):
                return endedUnexpectedly(
                    byPlugin: "was running when the process was ended by \(signal.name)", otherwise: "was ended by \(signal.name)",
                    how: "the host's crash handler did not run: plugin code replaced it or blocked the signal, "
                        + "or a thread the host did not start overflowed its stack",
                    among: evidence.running)
            case .couldNotStart(let reason):
                return reason
            case .rewrittenInPlace(let files, let under):
                let clause = files.count == 1 ? "the file \(files[0]) was" : "the files \(files.joined(separator: ", ")) were"
                return message(under) + "; but \(clause) written in place while the worker had its code loaded, which changes "
                    + "the code under it: no plugin is blamed, and the next worker loads the files as they are now (replace a "
                    + "plugin file with install or mv, never by writing over it)"
            }
        }

        /// What the supervisor ends is a worker: the one that speaks for the host, or a new
        /// one loading beside it. Whether the host goes on is said where it is decided.
        func endedClause(_ spokeForHost: Bool) -> String {
            spokeForHost ? "ended the worker" : "ended the new worker"
        }

        func phase(_ phase: Phase) -> String {
            phase == .unknown ? evidence.workerPhase.description : phase.description
        }

        func label(_ plugin: PluginNumber) -> String { "plugin \(evidence.plugins.label(of: plugin))" }

        func explanation(of stall: Stall?) -> String {
            switch stall {
            case .outputNotRead: "its output is not being read"
            case .pluginCode(let culprit): "the host's own thread is stuck in code of \(label(culprit)), such as an atexit handler"
            case .hostCode, nil: "the host's own thread is blocked (by a lock plugin code holds, or in the C library)"
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
