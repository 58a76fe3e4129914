import PluginABI

/// The phases after the chain: the run phase of services, reloads on SIGHUP, and the
/// shutdown in reverse bootstrap order.
///
/// ```
///  bootstrap ──▶ run (services) ──▶ shutdown ──▶ exit
///     │            │   ▲   SIGHUP: reload, in bootstrap order
///     │            └───┘
///     └─ failure ─────────────────▶ shutdown (what bootstrapped) ──▶ exit 1
/// ```
///
/// The worker's driving thread drives it and only waits; every hook runs on the plugin
/// threads, within its deadline (``PluginCalls``), and the services' tasks prefer them too.
struct Lifecycle {
    /// A bootstrapped plugin, with its roles.
    struct Member: Sendable {
        /// The plugin's number in the supervision page.
        let index: Int
        let candidate: PluginCandidate
        let component: any Bootstrapping
        let service: (any Service)?
        let reloadable: (any Reloadable)?
    }

    /// The bootstrapped plugins, in bootstrap order.
    let members: [Member]
    let events: HostEvents
    /// Threads for plugin code that may never return: a new one whenever all are busy.
    let threads: PluginThreads
    let console: Console
    /// How long one shutdown hook, or the services together, may take to stop.
    var shutdownTimeout: Duration?
    /// How long one reload hook may take.
    var reloadTimeout: Duration?
    /// Reads the configuration file again: the settings of each plugin, or a problem.
    var readConfiguration: @Sendable () -> Result<[String: Settings], Problem>

    private var link: WorkerLink { threads.link }

    /// Runs the services until the host is asked to stop or they have all ended, handling
    /// reloads meanwhile.
    ///
    /// - Returns: The services that failed, or did not stop in time once cancelled.
    func runServices() -> [Problem] {
        let services = members.filter { $0.service != nil }
        guard !services.isEmpty, !link.stopRequested else { return [] }
        link.enter(.running)
        var tasks: [Int: Task<Void, Never>] = [:]
        for member in services {
            guard let service = member.service else { continue }
            tasks[member.index] = Task(executorPreference: threads.executor(for: member.index, phase: .run)) { [events] in
                var error: String?
                do {
                    try await service.run()
                } catch let thrown {
                    error = "\(thrown)"
                }
                ExitTrap.endIfForkedCopy()
                events.post(.serviceEnded(plugin: member.index, error: error))
            }
        }
        var problems: [Problem] = []
        var running = Set(tasks.keys)
        var stopping = false
        while let event = events.next() {
            switch event {
            case .reload:
                // A failed reload leaves the components as they were; the host keeps running.
                if !stopping { _ = reload() }
            case .serviceEnded(let index, let error):
                running.remove(index)
                if let error, let member = members.first(where: { $0.index == index }) {
                    problems.append(report(Problem(
                        .serviceFailed, plugin: member.candidate.name, file: member.candidate.file,
                        "service \(member.candidate.label) failed: \(error); stopping the others")))
                    stopping = true
                }
            case .stop:
                stopping = true
            }
            if running.isEmpty { break }
            if stopping {
                problems += stop(running, tasks: tasks)
                break
            }
        }
        return problems
    }

    /// Cancels the running services and waits up to the shutdown timeout for them to
    /// return; names those that did not.
    private func stop(_ running: Set<Int>, tasks: [Int: Task<Void, Never>]) -> [Problem] {
        link.enter(.stopping)
        let deadline = MonotonicClock.deadline(after: shutdownTimeout)
        for index in running.sorted() {
            link.begin(.stop, of: index, within: shutdownTimeout, policy: .skip)
            // Cancelling runs the task's cancellation handlers, plugin code, on the
            // cancelling thread: a plugin thread, not this one.
            if let task = tasks[index] {
                threads.submit { thread in
                    thread.running(index, phase: .stop) { task.cancel() }
                    ExitTrap.endIfForkedCopy()
                }
            }
        }
        var left = running
        while !left.isEmpty, let event = events.next(until: deadline) {
            if case .serviceEnded(let index, _) = event, left.remove(index) != nil { link.end(stepOf: index) }
        }
        return members.filter { left.contains($0.index) }.map { member in
            link.end(stepOf: member.index)
            return report(Problem(
                .shutdownTimedOut, plugin: member.candidate.name, file: member.candidate.file,
                "service \(member.candidate.label) did not stop within \(TextFormat.seconds(shutdownTimeout ?? .zero)) "
                    + "of being cancelled (--shutdown-timeout); left behind"))
        }
    }

    /// Reads the configuration file again and calls `reload(_:)` of every reloadable
    /// component, in bootstrap order, each with its new settings.
    ///
    /// - Returns: The reloads that failed or overran, also reported on stderr; those
    ///   components keep running as they were.
    func reload() -> [Problem] {
        let settings: [String: Settings]
        switch readConfiguration() {
        case .failure(let problem):
            return [report(Problem(problem.code, plugin: nil, file: problem.file, "reload refused: \(problem.message); nothing was reloaded"))]
        case .success(let read):
            settings = read
        }
        let reloadable = members.filter { $0.reloadable != nil }
        let calls = reloadable.map { member in
            let own = settings[member.candidate.name] ?? Settings(for: member.candidate.name)
            return PluginCall(plugin: member.index, phase: .reload) { try await member.reloadable?.reload(own) }
        }
        var problems: [Problem] = []
        var reloaded: [String] = []
        for (member, outcome) in zip(reloadable, PluginCalls(threads: threads).perform(calls, within: reloadTimeout)) {
            let candidate = member.candidate
            switch outcome {
            case .finished:
                reloaded.append(candidate.name)
            case .failed(let error):
                problems.append(report(Problem(
                    .reloadFailed, plugin: candidate.name, file: candidate.file,
                    "plugin \(candidate.label) failed to reload: \(error); it keeps running as it was")))
            case .overran:
                problems.append(report(Problem(
                    .reloadFailed, plugin: candidate.name, file: candidate.file,
                    "plugin \(candidate.label) did not finish reloading within "
                        + "\(TextFormat.seconds(reloadTimeout ?? .zero)) (--timeout); left running")))
            }
        }
        console.write("plugin-host: reloaded \(reloaded.isEmpty ? "no plugins" : reloaded.joined(separator: ", "))\n", to: .error)
        return problems
    }

    /// Calls `shutdown()` of every component in reverse bootstrap order, each within the
    /// shutdown timeout.
    ///
    /// - Returns: The hooks that failed or overran (and were skipped), also on stderr.
    func shutDown() -> [Problem] {
        link.enter(.shuttingDown)
        let hooks = Array(members.reversed())
        let calls = hooks.map { member in
            PluginCall(plugin: member.index, phase: .shutdown) { try await member.component.shutdown() }
        }
        var problems: [Problem] = []
        for (member, outcome) in zip(hooks, PluginCalls(threads: threads).perform(calls, within: shutdownTimeout)) {
            let candidate = member.candidate
            switch outcome {
            case .finished:
                break
            case .failed(let error):
                problems.append(report(Problem(
                    .shutdownFailed, plugin: candidate.name, file: candidate.file,
                    "plugin \(candidate.label) failed to shut down: \(error)")))
            case .overran:
                problems.append(report(Problem(
                    .shutdownTimedOut, plugin: candidate.name, file: candidate.file,
                    "plugin \(candidate.label) did not shut down within "
                        + "\(TextFormat.seconds(shutdownTimeout ?? .zero)) (--shutdown-timeout); skipped")))
            }
        }
        return problems
    }

    /// Prints a problem of the running host on stderr at once.
    private func report(_ problem: Problem) -> Problem {
        console.write(TextReport.diagnostics(problems: [problem]), to: .error)
        return problem
    }
}
