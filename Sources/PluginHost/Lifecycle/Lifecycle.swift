import PluginABI
import Synchronization

/// The phases after the chain: the run phase of services, reloads on SIGHUP, and the
/// shutdown in reverse bootstrap order.
///
/// ```
///  bootstrap ──▶ run (services) ──▶ shutdown ──▶ exit
///     │            │   ▲   SIGHUP: reload, in bootstrap order
///     │            └───┘
///     └─ failure ─────────────────▶ shutdown (what bootstrapped) ──▶ exit 1
/// ```
struct Lifecycle: Sendable {
    /// The bootstrapped plugins with their components, in bootstrap order.
    let plugins: [(candidate: PluginCandidate, component: any Bootstrapping)]
    let events: HostEvents
    /// How long one shutdown hook, or the services together, may take to stop.
    var shutdownTimeout: Duration?
    /// How long one reload hook may take.
    var reloadTimeout: Duration?
    /// Reads the configuration file again: the settings of each plugin, or a problem.
    var readConfiguration: @Sendable () -> Result<[String: Settings], Problem>

    /// The services among the plugins, in bootstrap order.
    var services: [(candidate: PluginCandidate, service: any Service)] {
        plugins.compactMap { plugin in plugin.component.asService.map { (plugin.candidate, $0) } }
    }

    /// Runs the services until the host is asked to stop or they have all ended, handling
    /// reloads meanwhile.
    ///
    /// - Returns: The services that failed, or did not stop in time once cancelled.
    func runServices() async -> [Problem] {
        let services = services
        guard !services.isEmpty, !events.stopRequested else { return [] }
        var tasks: [String: Task<Void, Never>] = [:]
        for (candidate, service) in services {
            tasks[candidate.name] = Task { [events] in
                do {
                    try await service.run()
                    events.serviceEnded(candidate.name, error: nil)
                } catch {
                    events.serviceEnded(candidate.name, error: "\(error)")
                }
            }
        }
        var problems: [Problem] = []
        var running = Set(tasks.keys)
        var stopping = false
        for await event in events.stream {
            switch event {
            case .reload:
                // A failed reload leaves the components as they were; the host keeps running.
                if !stopping { _ = await reload() }
            case .serviceEnded(let name, let error):
                running.remove(name)
                if let error, let candidate = services.first(where: { $0.candidate.name == name })?.candidate {
                    problems.append(report(Problem(
                        .serviceFailed, plugin: name, file: candidate.file,
                        "service \(candidate.label) failed: \(error); stopping the others")))
                    stopping = true
                }
            case .stop:
                stopping = true
            }
            if running.isEmpty { break }
            if stopping {
                for name in running { tasks[name]?.cancel() }
                problems += await waitForServices(running, of: services)
                break
            }
        }
        return problems
    }

    /// After cancelling the services: waits up to the shutdown timeout for them to return,
    /// and names those that did not.
    private func waitForServices(
        _ running: Set<String>, of services: [(candidate: PluginCandidate, service: any Service)]
    ) async -> [Problem] {
        let left = Mutex(running)
        let waited = await withDeadline(shutdownTimeout) { [events] in
            for await event in events.stream {
                if case .serviceEnded(let name, _) = event, left.withLock({ $0.remove(name); return $0.isEmpty }) {
                    return
                }
            }
        }
        guard case .overran = waited else { return [] }
        let stillRunning = left.withLock { $0 }
        return services.filter { stillRunning.contains($0.candidate.name) }.map { candidate, _ in
            report(Problem(
                .shutdownTimedOut, plugin: candidate.name, file: candidate.file,
                "service \(candidate.label) did not stop within \(TextReport.format(seconds: shutdownTimeout ?? .zero)) "
                    + "of being cancelled (--shutdown-timeout); left behind"))
        }
    }

    /// Reads the configuration file again and calls `reload(_:)` of every reloadable
    /// component, in bootstrap order, each with its new settings.
    ///
    /// - Returns: The reloads that failed or overran, also reported on stderr; those
    ///   components keep running as they were.
    func reload() async -> [Problem] {
        let settings: [String: Settings]
        switch readConfiguration() {
        case .failure(let problem):
            return [report(Problem(problem.code, plugin: nil, file: problem.file, "reload refused: \(problem.message); nothing was reloaded"))]
        case .success(let read):
            settings = read
        }
        var problems: [Problem] = []
        var reloaded: [String] = []
        for (candidate, component) in plugins {
            guard let reloadable = component.asReloadable else { continue }
            let own = settings[candidate.name] ?? Settings(for: candidate.name)
            switch await withDeadline(reloadTimeout, { try await reloadable.reload(own) }) {
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
                        + "\(TextReport.format(seconds: reloadTimeout ?? .zero)) (--timeout); left running")))
            }
        }
        StandardStreams.writeToError("plugin-host: reloaded \(reloaded.isEmpty ? "no plugins" : reloaded.joined(separator: ", "))\n")
        return problems
    }

    /// Calls `shutdown()` of every component in reverse bootstrap order, each within the
    /// shutdown timeout.
    ///
    /// The hooks run one after the other in one task; only when one overruns does a new task
    /// take over the rest, leaving the stuck one behind. A thousand hooks that return at once
    /// cost one task, not a thousand.
    ///
    /// - Returns: The hooks that failed or overran (and were skipped), also on stderr.
    func shutDown() async -> [Problem] {
        let hooks = Array(plugins.reversed())
        var problems: [Problem] = []
        var next = 0
        while next < hooks.count {
            let run = ShutdownRun(timeout: shutdownTimeout)
            let outcome = await run.perform(hooks.map(\.component), from: next)
            for (index, error) in outcome.failures {
                let candidate = hooks[index].candidate
                problems.append(report(Problem(
                    .shutdownFailed, plugin: candidate.name, file: candidate.file,
                    "plugin \(candidate.label) failed to shut down: \(error)")))
            }
            guard let overran = outcome.overran else { break }
            let candidate = hooks[overran].candidate
            problems.append(report(Problem(
                .shutdownTimedOut, plugin: candidate.name, file: candidate.file,
                "plugin \(candidate.label) did not shut down within "
                    + "\(TextReport.format(seconds: shutdownTimeout ?? .zero)) (--shutdown-timeout); skipped")))
            next = overran + 1
        }
        return problems
    }

    /// Prints a problem of the running host on stderr at once.
    private func report(_ problem: Problem) -> Problem {
        StandardStreams.writeToError(TextReport.diagnostics(problems: [problem]))
        return problem
    }
}
