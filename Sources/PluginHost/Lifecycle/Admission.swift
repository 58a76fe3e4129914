import PluginABI

/// The one path by which plugins join a worker: checked as a whole (the graph, the ABI,
/// what they link) together with the plugins already running, published to the
/// supervisor, loaded, then bootstrapped onto the running chain.
///
/// A generation's start and plugins added while it runs both come through here; their
/// services start and their readiness is awaited next (``LifecycleRunner``).
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
        /// The plugins whose code was loaded (bootstrapped or not): their paths and names
        /// can no longer be loaded afresh in this worker.
        var loaded: [PluginCandidate] = []
    }


    /// Admits the plugins named `adding` of `resolution` (`nil`: all of them), which was
    /// resolved together with the plugins `running`.
    ///
    /// - Parameters:
    ///   - chain: The running components, which the new ones may use.
    ///   - settings: Each plugin's settings, by name.
    ///   - beforeBootstrap: Called with the names of the plugins that failed to load, once
    ///     every plugin is loaded; no plugin bootstraps when it returns `false`.
    func admit(
        _ resolution: DependencyResolver.Resolution, adding: Set<String>?, running: [RunningPlugin], onto chain: Bootstrapped,
        settings: [String: Settings], strictness: Strictness.Admission, beforeBootstrap: (Set<String>) -> Bool = { _ in true }
    ) -> Result {
        let subset = Self.subset(of: resolution, adding: adding)
        // With nothing admitted, the chain is the one given: the environment and sockets it
        // carries are those the plugins added later see.
        var result = Result(outcome: ChainRunner.Outcome(
            plugins: subset.order.map { PluginOutcome(candidate: $0, status: .notRun) }, bootstrapped: chain))
        result.refused = adding.map { names in resolution.problems.filter { $0.plugin.map(names.contains) ?? false } }
            ?? resolution.problems
        if strictness == .allOrNothing, !result.refused.isEmpty { return result }
        guard !subset.order.isEmpty else { return result }

        // Published with what each requires, so that the supervisor knows which plugins
        // leave with one it blames.
        var numbers = Dictionary(running.map { ($0.name, $0.number) }, uniquingKeysWith: { first, _ in first })
        let next = PluginNumber(link.page.pluginCount)
        for (position, candidate) in subset.order.enumerated() { numbers[candidate.name] = next.advanced(by: position) }
        let entries = subset.order.map { candidate in
            SupervisionPage.PluginEntry(
                name: candidate.name, file: candidate.file, version: candidate.manifest.version.description,
                identity: candidate.status?.identity, requires: candidate.manifest.requires.compactMap { numbers[$0] })
        }
        guard let first = link.publish(entries) else {
            result.problems.append(Problem(
                .pluginNotAdded, file: nil,
                "\(subset.order.count) more plugins are more than one host can track (\(SupervisionPage.pluginCapacity)); "
                    + "split them over several hosts"))
            return result
        }

        var runner = runner
        runner.settings = settings
        runner.keepGoing = strictness == .leaveFailuresOut || runner.keepGoing
        let outcome = runner.run(subset, onto: chain, numberedFrom: first, beforeBootstrap: beforeBootstrap)
        result.outcome = outcome
        result.problems = outcome.problems.filter { problem in subset.failures[problem.plugin ?? ""] == nil }
        result.loaded = outcome.plugins.filter { $0.componentType != nil }.map(\.candidate)
        result.admitted = outcome.plugins.enumerated().compactMap { position, plugin -> RunningPlugin? in
            guard plugin.status == .bootstrapped, let component = plugin.component else { return nil }
            return RunningPlugin(number: first.advanced(by: position), candidate: plugin.candidate, component: component, lifecycle: plugin.lifecycle)
        }
        for plugin in result.admitted { link.recordRunning(plugin.number, providesService: plugin.lifecycle.service != nil) }
        return result
    }

    /// The part of `resolution` that concerns the plugins `adding`: their order, the edges
    /// between them (their edges to running plugins are satisfied already) and their
    /// failures.
    private static func subset(of resolution: DependencyResolver.Resolution, adding: Set<String>?) -> DependencyResolver.Resolution {
        guard let adding else { return resolution }
        let positions = resolution.order.indices.filter { adding.contains(resolution.order[$0].name) }
        var numbers = [Int](repeating: -1, count: resolution.order.count)
        for (number, position) in positions.enumerated() { numbers[position] = number }
        var edges: [DependencyGraph.Edge] = []
        for position in positions {
            for dependency in resolution.graph.dependencies(of: position) where numbers[dependency] >= 0 {
                edges.append(DependencyGraph.Edge(node: numbers[position], dependency: numbers[dependency]))
            }
        }
        var subset = DependencyResolver.Resolution()
        subset.order = positions.map { resolution.order[$0] }
        subset.graph = DependencyGraph(count: positions.count, edges: edges)
        subset.failures = resolution.failures.filter { adding.contains($0.key) }
        return subset
    }
}
