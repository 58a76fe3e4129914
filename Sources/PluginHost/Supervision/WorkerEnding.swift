/// How a worker process ended, as the operator reads it, and the status the host exits
/// with: the worker's own when it exited as the host decided, otherwise ``ExitStatus/crashed``
/// with a line naming the culprit as precisely as the worker's records allow.
struct WorkerEnding {
    let status: ExitStatus
    /// What to print on standard error; `nil` when the host ended as it meant to.
    let message: String?
    /// The plugins to blame: one when the records name it, each plugin that was running
    /// when they do not, none when no plugin's code was running.
    let culprits: [PluginNumber]
    /// What the culprits were doing, as the operator reads it: `the run phase`.
    let phase: String
    /// What happened, in a few words after the culprit's name: `crashed during the run
    /// phase: SIGSEGV`; empty when the host ended as it meant to.
    let summary: String

    /// Whether the host itself ended the worker as it meant to (after a stop, a failure it
    /// reported, or at the end of a batch run), rather than plugin code or a signal.
    var isIntended: Bool { message == nil }

    init(_ termination: Termination, page: SupervisionPage) {
        let context = Context(page: page)
        if let crash = page.crash {
            status = .crashed
            message = context.crashed(crash)
            culprits = crash.culprit.map { [$0] } ?? context.runningPlugins.map(\.plugin)
            phase = context.phase(crash.phase)
            summary = "crashed during \(phase): \(FatalSignals.name(of: crash.signal))"
        } else if let call = page.exitCall {
            status = .crashed
            message = context.calledExit(call)
            culprits = call.culprit.map { [$0] } ?? context.runningPlugins.map(\.plugin)
            phase = context.phase(call.phase)
            summary = "called exit(\(call.status)) during \(phase)"
        } else {
            let running = context.runningPlugins
            culprits = running.map(\.plugin)
            phase = running.count == 1 ? context.phase(running[0].phase) : context.workerPhase.description
            switch termination {
            case .exited(let code) where page.intendedExit == code:
                status = ExitStatus(rawValue: code)
                message = nil
                summary = ""
            case .exited(let code) where page.intendedExit != nil:
                status = .crashed
                summary = "ended the process with status \(code) during exit"
                message = "plugin code ended the process with status \(code) during exit, after the host had finished with "
                    + "status \(page.intendedExit ?? 0); an atexit handler of a plugin called exit or _exit"
            case .exited(let code):
                status = .crashed
                summary = "ended the process with status \(code) during \(phase)"
                message = context.endedUnexpectedly(
                    byPlugin: "ended the process with status \(code)", otherwise: "ended with status \(code)",
                    how: "a call to _exit(), or to exit() where the host could not see it")
            case .signalled(let signal):
                let name = FatalSignals.name(of: signal)
                status = .crashed
                summary = "was running when the process was ended by \(name) during \(phase)"
                message = context.endedUnexpectedly(
                    byPlugin: "was running when the process was ended by \(name)", otherwise: "was ended by \(name)",
                    how: signal == Signals.kill
                        ? "SIGKILL came from plugin code, another process or the kernel's out-of-memory killer"
                        : "the host's crash handler did not run: plugin code replaced it or blocked the signal, "
                            + "or a thread the host did not start overflowed its stack")
            }
        }
    }

    /// A worker the supervisor ended itself, at a deadline: the status and line it said.
    init(endedBySupervisor status: ExitStatus, message: String, summary: String, culprits: [PluginNumber], phase: String) {
        self.status = status
        self.message = message
        self.summary = summary
        self.culprits = culprits
        self.phase = phase
    }

    /// What the page says about the moment the worker ended.
    private struct Context {
        let page: SupervisionPage
        let workerPhase: WorkerPhase

        init(page: SupervisionPage) {
            self.page = page
            workerPhase = page.workerPhase
        }

        func phase(_ phase: Phase) -> String {
            phase == .unknown ? workerPhase.description : phase.description
        }

        func label(_ plugin: PluginNumber) -> String { "plugin \(page.label(of: plugin))" }

        func crashed(_ crash: WorkerRecord) -> String {
            let signal = FatalSignals.name(of: crash.signal)
            if let culprit = crash.culprit {
                return "\(label(culprit)) crashed during \(phase(crash.phase)): \(signal)"
            }
            if crash.thread == .notTheHosts {
                return "a thread that plugin-host did not start crashed during \(phase(crash.phase)): \(signal); "
                    + "no plugin's code was found on its stack, so the culprit is unknown\(runningClause)"
            }
            return "plugin-host crashed during \(phase(crash.phase)): \(signal); this is a bug in plugin-host"
        }

        func calledExit(_ call: WorkerRecord) -> String {
            let advice = "a plugin must throw an error instead of ending the process"
            if let culprit = call.culprit {
                return "\(label(culprit)) called exit(\(call.status)) during \(phase(call.phase)); \(advice)"
            }
            return "exit(\(call.status)) was called during \(phase(call.phase)) by code not found to belong to a plugin"
                + "\(runningClause); \(advice)"
        }

        /// The worker ended without a record: said of the one plugin that was running, or of
        /// the process; `how` may explain it.
        func endedUnexpectedly(byPlugin: String, otherwise: String, how: String) -> String {
            let running = runningPlugins
            if running.count == 1, let (plugin, phase) = running.first {
                return "\(label(plugin)) \(byPlugin) during \(self.phase(phase)) (\(how)); "
                    + "a plugin must throw an error instead of ending the process"
            }
            return "the process \(otherwise) during \(workerPhase.description)\(runningClause) (\(how)); "
                + "a plugin must throw an error instead of ending the process"
        }

        /// The plugins whose code ran, or whose steps were in progress, when the worker ended,
        /// in bootstrap order (whichever threads they ran on).
        var runningPlugins: [(plugin: PluginNumber, phase: Phase)] {
            var seen = Set<PluginNumber>()
            let running = page.pluginCodeRunning().filter { seen.insert($0.plugin).inserted }.sorted { $0.plugin < $1.plugin }
            guard running.isEmpty else { return running }
            return page.plugins.compactMap { plugin in page.step(of: plugin).map { (plugin, $0.phase) } }
        }

        var runningClause: String {
            let running = runningPlugins
            guard !running.isEmpty else { return ", while no plugin code was known to run" }
            var clauses = running.prefix(5).map { "\(label($0.plugin)) was \($0.phase.activity)" }
            if running.count > 5 { clauses.append("\(running.count - 5) more were running") }
            guard let last = clauses.popLast() else { return "" }
            return ", while " + (clauses.isEmpty ? last : clauses.joined(separator: ", ") + " and " + last)
        }
    }
}
