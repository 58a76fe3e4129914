/// Orders plugins so that each comes after the plugins it requires, and finds everything
/// that stands in the way, before any plugin code runs.
///
/// The order is deterministic: among the plugins whose requirements are all placed, the one
/// whose name sorts first comes next. Problems are collected, not thrown, so the operator
/// sees all of them at once.
struct DependencyResolver {
    /// The plugin ABI version plugins must have been built for.
    var abiVersion: Int

    /// The outcome of resolving a set of plugins.
    struct Resolution: Equatable {
        /// Every plugin (one per name), in bootstrap order: each after its dependencies,
        /// except that a plugin with a graph problem (in ``failures``) may come after the
        /// plugins that depend on it, since those cannot run before it anyway.
        var order: [PluginCandidate] = []
        /// Which plugins of ``order`` depend on which, by their positions in it.
        var graph = DependencyGraph(dependencies: [])
        /// Everything that keeps the plugins from running.
        var problems: [Problem] = []
        /// The graph problem of each named plugin that has one: the plugin cannot run.
        /// `--keep-going` runs the others.
        var failures: [String: Problem] = [:]

        mutating func record(_ problem: Problem, failing names: [String]) {
            problems.append(problem)
            for name in names where failures[name] == nil { failures[name] = problem }
        }

        /// Records a problem of one plugin, which it fails.
        mutating func record(_ code: Problem.Code, of plugin: PluginCandidate, _ message: String) {
            record(plugin.problem(code, message), failing: [plugin.name])
        }
    }

    /// The problem of `plugin`, which requires `required`, which is not installed.
    static func missing(_ required: String, of plugin: PluginCandidate) -> Problem {
        plugin.problem(
            .missingDependency,
            "plugin \(plugin.label) requires \(required), which is not installed; "
                + "add the plugin \(required) to the plugin directory or remove it from \(plugin.name)'s requires")
    }

    /// The problem of `plugin`, which requires a version of `found` within `range`, which
    /// `found` is not.
    static func outOfRange(_ found: PluginCandidate, _ range: VersionRange, of plugin: PluginCandidate) -> Problem {
        plugin.problem(
            .versionMismatch,
            "plugin \(plugin.label) requires \(found.name) \(range), but \(found.name) \(found.manifest.version) is installed "
                + "(\(found.file)); install a build of \(found.name) within \(range), or rebuild \(plugin.name) against "
                + "\(found.name) \(found.manifest.version)")
    }

    /// Resolves the bootstrap order of `candidates`.
    ///
    /// The plugins are handled by their indices in `candidates`, which are not copied:
    /// a candidate holds a dozen references.
    func resolve(_ candidates: [PluginCandidate]) -> Resolution {
        var resolution = Resolution()
        // One plugin per name, in name order: the rank of a plugin is its place here.
        let plugins = Self.onePerName(candidates, recordingDuplicatesIn: &resolution)
        var rankByName: [String: Int] = [:]
        rankByName.reserveCapacity(plugins.count)
        for (rank, index) in plugins.enumerated() { rankByName[candidates[index].name] = rank }

        for index in plugins where candidates[index].manifest.abi != abiVersion {
            let plugin = candidates[index]
            resolution.record(
                .abiMismatch, of: plugin,
                "plugin \(plugin.label) was built for plugin ABI \(plugin.manifest.abi), but this host "
                    + "provides ABI \(abiVersion); " + Self.abiAdvice(found: plugin.manifest.abi, host: abiVersion))
        }
        UndeclaredLinks.check(candidates, plugins, rankByName: rankByName, into: &resolution)

        // The edges: each plugin depends on the plugins it requires and on the optional ones
        // that are installed. Missing requirements are reported in the order of the files and
        // of their manifests.
        var rankOfCandidate = [Int?](repeating: nil, count: candidates.count)
        for (rank, index) in plugins.enumerated() { rankOfCandidate[index] = rank }
        var edges: [DependencyGraph.Edge] = []
        for index in candidates.indices {
            guard let rank = rankOfCandidate[index] else { continue }
            for required in candidates[index].manifest.requires {
                if let dependency = rankByName[required] {
                    edges.append(DependencyGraph.Edge(node: rank, dependency: dependency))
                    let found = candidates[plugins[dependency]]
                    if let range = candidates[index].manifest.requiredVersions[required], !range.admits(found.manifest.version) {
                        resolution.record(Self.outOfRange(found, range, of: candidates[index]), failing: [candidates[index].name])
                    }
                } else {
                    resolution.record(Self.missing(required, of: candidates[index]), failing: [candidates[index].name])
                }
            }
            for optional in candidates[index].manifest.optional {
                if let dependency = rankByName[optional] { edges.append(DependencyGraph.Edge(node: rank, dependency: dependency)) }
            }
        }
        let graph = DependencyGraph(count: plugins.count, edges: edges)

        var order = graph.topologicalOrder()
        if order.count < plugins.count {
            // What Kahn's algorithm could not place is on a cycle or behind one.
            let name = { (rank: Int) in candidates[plugins[rank]].name }
            let stuck = Set(plugins.indices).subtracting(order)
            let requirements = { (node: Int) in graph.dependencies(of: node).filter { stuck.contains($0) }.sorted() }
            for (cycle, members) in DependencyCycles.find(among: stuck, requirements: requirements, name: name) {
                let path = (cycle + [cycle[0]]).map(name).joined(separator: " -> ")
                let files = cycle.map { candidates[plugins[$0]].file }
                resolution.record(
                    Problem(
                        .dependencyCycle, plugin: name(cycle[0]), file: files.joined(separator: ", "),
                        "dependency cycle: \(path) (each requires the next); "
                            + "remove one of these requirements from its plugin's manifest"),
                    failing: members.map(name))
            }
            // Without the edges out of failed plugins everything is placed: every cycle
            // member has failed, so what is left is acyclic.
            let failed = Set(plugins.indices.filter { resolution.failures[name($0)] != nil })
            order = graph.topologicalOrder(ignoringEdgesFrom: failed)
        }
        var position = [Int](repeating: 0, count: plugins.count)
        for (index, rank) in order.enumerated() { position[rank] = index }
        resolution.order = order.map { candidates[plugins[$0]] }
        resolution.graph = graph.renumbered(position)
        return resolution
    }

    /// The indices in `candidates` of one plugin per name, in name order. Of plugins that
    /// share a name, the first file is kept, so that the rest of the graph can still be
    /// checked, and the name fails.
    private static func onePerName(_ candidates: [PluginCandidate], recordingDuplicatesIn resolution: inout Resolution) -> [Int] {
        let names = candidates.map(\.name)
        let sorted = candidates.indices.sorted { left, right in
            names[left] != names[right] ? names[left] < names[right] : candidates[left].file < candidates[right].file
        }
        var plugins: [Int] = []
        plugins.reserveCapacity(candidates.count)
        var start = 0
        while start < sorted.count {
            let name = names[sorted[start]]
            var end = start + 1
            while end < sorted.count && names[sorted[end]] == name { end += 1 }
            if end - start > 1 {
                let files = sorted[start..<end].map { candidates[$0].file }
                resolution.record(
                    Problem(
                        .duplicateName, plugin: name, file: files.joined(separator: ", "),
                        "duplicate plugin name \(name): \(files.joined(separator: " and ")) "
                            + "both declare it; remove all but one of these files"),
                    failing: [name])
            }
            plugins.append(sorted[start])
            start = end
        }
        return plugins
    }

    /// What to do about a plugin built for another plugin ABI.
    private static func abiAdvice(found: Int, host: Int) -> String {
        guard found < host else { return "use a plugin-host that provides ABI \(found), or rebuild the plugin against this one" }
        let rebuild = "rebuild the plugin against this host's libPluginABI.so"
        guard found == 1 else { return rebuild }
        return rebuild + " (since ABI 2 a component sets itself up in init(_ bootstrapped:) and registers its service and "
            + "hooks with bootstrapped.lifecycle; see \"From ABI 1\" in docs/writing-plugins.md)"
    }
}
