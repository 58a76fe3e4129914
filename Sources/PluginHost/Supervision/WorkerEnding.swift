/// How the worker process ended, as the operator reads it, and the status the host exits
/// with: the worker's own when it exited as the host decided, otherwise ``ExitStatus/crashed``
/// with a line naming the culprit as precisely as the worker's records allow.
struct WorkerEnding {
    let status: ExitStatus
    /// What to print on standard error; `nil` when the host ended as it meant to.
    let message: String?

    init(_ termination: Termination, page: SupervisionPage) {
        let context = Context(page: page)
        if let crash = page.crash {
            status = .crashed
            message = context.crashed(crash)
        } else if let call = page.exitCall {
            status = .crashed
            message = context.calledExit(call)
        } else {
            switch termination {
            case .exited(let code) where page.exiting.load() == 1 && code == page.intendedStatus.load():
                status = ExitStatus(rawValue: code)
                message = nil
            case .exited(let code) where page.exiting.load() == 1:
                status = .crashed
                message = "plugin code ended the process with status \(code) during exit, after the host had finished with "
                    + "status \(page.intendedStatus.load()); an atexit handler of a plugin called exit or _exit"
            case .exited(let code):
                status = .crashed
                message = context.endedUnexpectedly(
                    byPlugin: "ended the process with status \(code)", otherwise: "ended with status \(code)",
                    how: "a call to _exit(), or to exit() where the host could not see it")
            case .signalled(let signal):
                let name = FatalSignals.name(of: signal)
                status = .crashed
                message = context.endedUnexpectedly(
                    byPlugin: "was running when the process was ended by \(name)", otherwise: "was ended by \(name)",
                    how: signal == Signals.kill
                        ? "SIGKILL came from plugin code, another process or the kernel's out-of-memory killer"
                        : "the host's crash handler did not run: plugin code replaced it or blocked the signal, "
                            + "or a thread the host did not start overflowed its stack")
            }
        }
    }

    /// What the page says about the moment the worker ended.
    private struct Context {
        let page: SupervisionPage
        let workerPhase: WorkerPhase

        init(page: SupervisionPage) {
            self.page = page
            workerPhase = WorkerPhase(rawValue: page.workerPhase.load()) ?? .startUp
        }

        func phase(_ code: Int32) -> String {
            let phase = Phase(rawValue: code) ?? .unknown
            return phase == .unknown ? workerPhase.description : phase.description
        }

        func label(_ plugin: Int32) -> String { "plugin \(page.label(of: Int(plugin)))" }

        func crashed(_ crash: SupervisionPage.Record) -> String {
            let signal = FatalSignals.name(of: crash.signal)
            if crash.culprit >= 0 {
                return "\(label(crash.culprit)) crashed during \(phase(crash.phase)): \(signal)"
            }
            if crash.thread == FatalSignals.ThreadKind.notTheHosts.rawValue {
                return "a thread that plugin-host did not start crashed during \(phase(crash.phase)): \(signal); "
                    + "no plugin's code was found on its stack, so the culprit is unknown\(runningClause)"
            }
            return "plugin-host crashed during \(phase(crash.phase)): \(signal); this is a bug in plugin-host"
        }

        func calledExit(_ call: SupervisionPage.Record) -> String {
            let advice = "a plugin must throw an error instead of ending the process"
            if call.culprit >= 0 {
                return "\(label(call.culprit)) called exit(\(call.status)) during \(phase(call.phase)); \(advice)"
            }
            return "exit(\(call.status)) was called during \(phase(call.phase)) by code not found to belong to a plugin"
                + "\(runningClause); \(advice)"
        }

        /// The worker ended without a record: said of the one plugin that was running, or of
        /// the process; `how` may explain it.
        func endedUnexpectedly(byPlugin: String, otherwise: String, how: String) -> String {
            let running = runningPlugins
            if running.count == 1, let (plugin, code) = running.first {
                return "\(label(Int32(plugin))) \(byPlugin) during \(phase(code)) (\(how)); "
                    + "a plugin must throw an error instead of ending the process"
            }
            return "the process \(otherwise) during \(workerPhase.description)\(runningClause) (\(how)); "
                + "a plugin must throw an error instead of ending the process"
        }

        /// The plugins whose code ran, or whose steps were in progress, when the worker ended,
        /// in bootstrap order (whichever threads they ran on).
        var runningPlugins: [(plugin: Int, phase: Int32)] {
            var seen = Set<Int>()
            let running = page.pluginCodeRunning().filter { seen.insert($0.plugin).inserted }.sorted { $0.plugin < $1.plugin }
            guard running.isEmpty else { return running }
            return (0..<page.pluginCount).compactMap { plugin in page.step(of: plugin).map { (plugin, $0.phase) } }
        }

        var runningClause: String {
            let running = runningPlugins
            guard !running.isEmpty else { return ", while no plugin code was known to run" }
            var clauses = running.prefix(5).map { "\(label(Int32($0.plugin))) was \((Phase(rawValue: $0.phase) ?? .unknown).activity)" }
            if running.count > 5 { clauses.append("\(running.count - 5) more were running") }
            guard let last = clauses.popLast() else { return "" }
            return ", while " + (clauses.isEmpty ? last : clauses.joined(separator: ", ") + " and " + last)
        }
    }
}
