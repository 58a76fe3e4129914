import PluginABI

/// The one path by which plugins join a worker, at its generation's start: checked as a
/// whole (the graph, the ABI, what they link), published to the supervisor, loaded, then
/// bootstrapped onto the chain. Their services start and their readiness is awaited next
/// (``LifecycleRunner``). A worker takes in no plugin later: one dropped in comes with a new
/// generation.
struct Admission: Sendable {
    let link: WorkerLink
    /// Loads and bootstraps, with `--jobs` threads and `--timeout`.
    var runner: ChainRunner

    /// What an admission did.
    struct Result {
        /// Every plugin it considered, with what happened to it.
        var outcome: ChainRunner.Outcome
        /// The graph problems of the plugins it considered: they were not loaded.
        var refused: [Problem] = []
        /// The failures of those it loaded and bootstrapped.
        var problems: [Problem] = []
        /// The plugins that bootstrapped, in bootstrap order.
        var admitted: [RunningPlugin] = []
    }

    /// Admits the plugins of `resolution`.
    ///
    /// - Parameters:
    ///   - chain: The chain they bootstrap onto: the environment and the sockets.
    ///   - settings: Each plugin's settings, by name.
    ///   - beforeBootstrap: Called with the names of the plugins that failed to load, once
    ///     every plugin is loaded; no plugin bootstraps when it returns `false`.
    func admit(
        _ resolution: DependencyResolver.Resolution, onto chain: Bootstrapped,
        settings: [String: Settings], strictness: Strictness.Tolerance, beforeBootstrap: (Set<String>) -> Bool = { _ in true }
    ) -> Result {
        // With nothing admitted, the chain is the one given.
        var result = Result(outcome: ChainRunner.Outcome(
            plugins: resolution.order.map { PluginOutcome(candidate: $0, status: .notRun) }, bootstrapped: chain))
        result.refused = resolution.problems
        if strictness == .allOrNothing, !result.refused.isEmpty { return result }
        guard !resolution.order.isEmpty else { return result }

        // Published with what each requires, so that the supervisor knows which plugins
        // leave with one it blames.
        var numbers: [String: PluginNumber] = [:]
        let next = PluginNumber(link.page.pluginCount)
        for (position, candidate) in resolution.order.enumerated() { numbers[candidate.name] = next.advanced(by: position) }
        let entries = resolution.order.map { candidate in
            SupervisionPage.PluginEntry(
                name: candidate.name, file: candidate.file, version: candidate.manifest.version.description,
                identity: candidate.status?.identity, requires: candidate.manifest.requires.compactMap { numbers[$0] })
        }
        guard let first = link.publish(entries) else {
            result.problems.append(Problem(
                .pluginNotAdded, file: nil,
                "\(resolution.order.count) plugins are more than one host can track (\(SupervisionPage.pluginCapacity)); "
                    + "split them over several hosts"))
            return result
        }

        var runner = runner
        runner.settings = settings
        runner.keepGoing = strictness == .leaveFailuresOut || runner.keepGoing
        let outcome = runner.run(resolution, onto: chain, numberedFrom: first, beforeBootstrap: beforeBootstrap)
        result.outcome = outcome
        result.problems = outcome.problems.filter { problem in resolution.failures[problem.plugin ?? ""] == nil }
        result.admitted = outcome.plugins.enumerated().compactMap { position, plugin -> RunningPlugin? in
            guard plugin.status == .bootstrapped, let component = plugin.component else { return nil }
            return RunningPlugin(number: first.advanced(by: position), candidate: plugin.candidate, component: component, lifecycle: plugin.lifecycle)
        }
        for plugin in result.admitted { link.recordRunning(plugin.number, providesService: plugin.lifecycle.service != nil) }
        return result
    }
}
