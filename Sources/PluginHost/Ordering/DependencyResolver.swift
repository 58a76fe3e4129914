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
        // the graph can still be checked. Indices are sorted, not the candidates, and the
        // position in name order is the plugin's rank for tie-breaking.
        let names = candidates.map(\.name)
        let byName = candidates.indices.sorted { a, b in
            names[a] != names[b] ? names[a] < names[b] : candidates[a].file < candidates[b].file
        }
        // The plugins kept, as indices into `candidates`: nothing is copied but the result.
        var unique: [Int] = []
        unique.reserveCapacity(candidates.count)
        var start = 0
        while start < byName.count {
            let name = names[byName[start]]
            var end = start + 1
            while end < byName.count && names[byName[end]] == name { end += 1 }
            if end - start > 1 {
                let files = byName[start..<end].map { candidates[$0].file }
                resolution.record(
                    Problem(
                        .duplicateName, plugin: name, file: files.joined(separator: ", "),
                        "duplicate plugin name \(name): \(files.joined(separator: " and ")) "
                            + "both declare it; remove all but one of these files"),
                    failing: [name])
            }
            unique.append(byName[start])
            start = end
        }
        let plugins = Plugins(candidates: candidates, unique: unique)

        var indexByName: [String: Int] = [:]
        indexByName.reserveCapacity(unique.count)
        for (index, candidate) in unique.enumerated() { indexByName[names[candidate]] = index }

        for plugin in plugins.all where plugin.manifest.abi != abiVersion {
            resolution.record(
                Problem(
                    .abiMismatch, plugin: plugin.name, file: plugin.file,
                    "plugin \(plugin.label) was built for plugin ABI \(plugin.manifest.abi), but this host "
                        + "provides ABI \(abiVersion); rebuild the plugin against this host's libPluginABI.so"),
                failing: [plugin.name])
        }

        // The edges from each plugin to the plugins it depends on (an optional dependency
        // counts when it is installed), resolved to indices once.
        // Visited in the order of `candidates`, which is the order of their memory, not in
        // name order: fewer cache misses with a hundred thousand plugins (a few per cent in
        // Benchmarks/Micro; the name lookups stay random).
        var position = [Int](repeating: -1, count: candidates.count)
        for (index, candidate) in unique.enumerated() { position[candidate] = index }
        var edges: [(dependency: Int, dependent: Int)] = []
        edges.reserveCapacity(plugins.count * 3)
        for (candidateIndex, plugin) in candidates.enumerated() {
            let index = position[candidateIndex]
            guard index >= 0 else { continue }
            for required in plugin.manifest.requires {
                if let dependency = indexByName[required] {
                    edges.append((dependency, index))
                } else {
                    resolution.record(
                        Problem(
                            .missingDependency, plugin: plugin.name, file: plugin.file,
                            "plugin \(plugin.label) requires \(required), which is not installed; "
                                + "add the plugin \(required) to the plugin directory or remove it from \(plugin.name)'s requires"),
                        failing: [plugin.name])
                }
            }
            for optional in plugin.manifest.optional {
                if let dependency = indexByName[optional] { edges.append((dependency, index)) }
            }
        }

        // Kahn's algorithm over every edge finds the plugins stuck behind a cycle.
        let graph = DependentsGraph(count: plugins.count, edges: edges)
        let placed = graph.topologicalOrder()
        var order = placed
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
            // A second pass without the edges out of failed plugins places everything: all
            // cycle members have failed, so what is left is acyclic.
            let failed = plugins.indices.filter { resolution.failures[plugins[$0].name] != nil }
            order = graph.topologicalOrder(ignoringEdgesFrom: Set(failed))
        }
        resolution.order = order.map { plugins[$0] }
        return resolution
    }

    /// One cycle per strongly connected component of `members` that has one, each as the
    /// shortest path from its smallest-named plugin back to itself, with all the members of
    /// its component.
    private static func cycles(
        among members: Set<Int>, plugins: Plugins, indexByName: [String: Int]
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

/// The plugins a resolution keeps, one per name in name order, as a view of the candidates
/// (indices, not copies).
private struct Plugins {
    let candidates: [PluginCandidate]
    let unique: [Int]

    var count: Int { unique.count }
    var indices: Range<Int> { unique.indices }
    subscript(index: Int) -> PluginCandidate { candidates[unique[index]] }
    var all: LazyMapSequence<[Int], PluginCandidate> { unique.lazy.map { candidates[$0] } }
}
