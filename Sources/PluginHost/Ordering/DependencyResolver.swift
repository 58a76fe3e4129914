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
        /// Everything that keeps the plugins from running.
        var problems: [Problem] = []
        /// The graph problem of each named plugin that has one: the plugin cannot run.
        /// `--keep-going` runs the others.
        var failures: [String: Problem] = [:]

        mutating func record(_ problem: Problem, failing names: [String]) {
            problems.append(problem)
            for name in names where failures[name] == nil { failures[name] = problem }
        }
    }

    /// Resolves the bootstrap order of `candidates`.
    func resolve(_ candidates: [PluginCandidate]) -> Resolution {
        var resolution = Resolution()

        // One plugin per name: report duplicates, keep the first file so that the rest of
        // the graph can still be checked.
        let sorted = candidates.sorted { ($0.name, $0.file) < ($1.name, $1.file) }
        var plugins: [PluginCandidate] = []
        var start = 0
        while start < sorted.count {
            var end = start + 1
            while end < sorted.count && sorted[end].name == sorted[start].name { end += 1 }
            if end - start > 1 {
                let files = sorted[start..<end].map(\.file)
                resolution.record(
                    Problem(
                        .duplicateName, plugin: sorted[start].name, file: files.joined(separator: ", "),
                        "duplicate plugin name \(sorted[start].name): \(files.joined(separator: " and ")) "
                            + "both declare it; remove all but one of these files"),
                    failing: [sorted[start].name])
            }
            plugins.append(sorted[start])
            start = end
        }

        var indexByName: [String: Int] = [:]
        for (index, plugin) in plugins.enumerated() { indexByName[plugin.name] = index }

        for plugin in plugins where plugin.manifest.abi != abiVersion {
            resolution.record(
                Problem(
                    .abiMismatch, plugin: plugin.name, file: plugin.file,
                    "plugin \(plugin.label) was built for plugin ABI \(plugin.manifest.abi), but this host "
                        + "provides ABI \(abiVersion); rebuild the plugin against this host's libPluginABI.so"),
                failing: [plugin.name])
        }

        // Edges from each dependency to the plugins that depend on it; an optional
        // dependency is an edge only when it is installed.
        var dependents = [[Int]](repeating: [], count: plugins.count)
        var waitingFor = [Int](repeating: 0, count: plugins.count)
        for (index, plugin) in plugins.enumerated() {
            for required in plugin.manifest.requires where indexByName[required] == nil {
                resolution.record(
                    Problem(
                        .missingDependency, plugin: plugin.name, file: plugin.file,
                        "plugin \(plugin.label) requires \(required), which is not installed; "
                            + "add the plugin \(required) to the plugin directory or remove it from \(plugin.name)'s requires"),
                    failing: [plugin.name])
            }
            for dependency in plugin.manifest.identity.dependencies {
                guard let dependencyIndex = indexByName[dependency] else { continue }
                dependents[dependencyIndex].append(index)
                waitingFor[index] += 1
            }
        }

        // Kahn's algorithm over every edge finds the plugins stuck behind a cycle.
        let placed = Self.topologicalOrder(dependents: dependents, waitingFor: waitingFor)
        if placed.count < plugins.count {
            let stuck = Set(plugins.indices).subtracting(placed)
            for (cycle, members) in Self.cycles(among: stuck, plugins: plugins, indexByName: indexByName) {
                let path = (cycle + [cycle[0]]).map { plugins[$0].name }.joined(separator: " -> ")
                let files = cycle.map { plugins[$0].file }
                resolution.record(
                    Problem(
                        .dependencyCycle, plugin: plugins[cycle[0]].name, file: files.joined(separator: ", "),
                        "dependency cycle: \(path) (each requires the next); "
                            + "remove one of these requirements from its plugin's manifest"),
                    failing: members.map { plugins[$0].name })
            }
        }

        // A second pass without the edges out of failed plugins places everything: all
        // cycle members have failed, so what is left is acyclic.
        var order = placed
        if placed.count < plugins.count {
            var waiting = waitingFor
            var liveDependents = dependents
            for index in plugins.indices where resolution.failures[plugins[index].name] != nil {
                for dependent in dependents[index] { waiting[dependent] -= 1 }
                liveDependents[index] = []
            }
            order = Self.topologicalOrder(dependents: liveDependents, waitingFor: waiting)
        }
        resolution.order = order.map { plugins[$0] }
        return resolution
    }

    /// Kahn's algorithm: the nodes in dependency order, the smallest index first among those
    /// ready together. Nodes still waiting at the end (on a cycle) are left out.
    private static func topologicalOrder(dependents: [[Int]], waitingFor: [Int]) -> [Int] {
        var waiting = waitingFor
        var ready = MinHeap<Int>()
        for index in waiting.indices where waiting[index] == 0 { ready.insert(index) }
        var order: [Int] = []
        order.reserveCapacity(waiting.count)
        while let next = ready.popMin() {
            order.append(next)
            for dependent in dependents[next] {
                waiting[dependent] -= 1
                if waiting[dependent] == 0 { ready.insert(dependent) }
            }
        }
        return order
    }

    /// One cycle per strongly connected component of `members` that has one, each as the
    /// shortest path from its smallest-named plugin back to itself, with all the members of
    /// its component.
    private static func cycles(
        among members: Set<Int>, plugins: [PluginCandidate], indexByName: [String: Int]
    ) -> [(path: [Int], members: [Int])] {
        func requirements(of index: Int) -> [Int] {
            plugins[index].manifest.identity.dependencies.compactMap { indexByName[$0] }.filter(members.contains).sorted()
        }
        var cycles: [(path: [Int], members: [Int])] = []
        for component in StronglyConnectedComponents.find(in: members.sorted(), edges: requirements) where component.count > 1 {
            let inComponent = Set(component)
            let start = component.min()!
            // Breadth-first from `start` along requirements until a plugin requires `start`.
            var previous: [Int: Int] = [start: start]
            var queue = [start]
            var head = 0
            var last: Int?
            search: while head < queue.count {
                let current = queue[head]
                head += 1
                for next in requirements(of: current) where inComponent.contains(next) {
                    if next == start { last = current; break search }
                    if previous[next] == nil {
                        previous[next] = current
                        queue.append(next)
                    }
                }
            }
            guard var node = last else { continue }
            var path = [node]
            while node != start {
                node = previous[node]!
                path.append(node)
            }
            cycles.append((path.reversed(), component.sorted()))
        }
        return cycles.sorted { plugins[$0.path[0]].name < plugins[$1.path[0]].name }
    }
}
