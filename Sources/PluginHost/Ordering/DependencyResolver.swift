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
        /// Every plugin that could be placed, in bootstrap order.
        var order: [PluginCandidate] = []
        /// Plugins that could not be placed (members of a cycle, or plugins that require
        /// one), sorted by name.
        var unordered: [PluginCandidate] = []
        /// Everything that keeps the plugins from running.
        var problems: [Problem] = []
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
                resolution.problems.append(Problem(
                    .duplicateName, plugin: sorted[start].name, file: files.joined(separator: ", "),
                    "duplicate plugin name \(sorted[start].name): \(files.joined(separator: " and ")) "
                        + "both declare it; remove all but one of these files"))
            }
            plugins.append(sorted[start])
            start = end
        }

        var indexByName: [String: Int] = [:]
        for (index, plugin) in plugins.enumerated() { indexByName[plugin.name] = index }

        for plugin in plugins where plugin.manifest.abi != abiVersion {
            resolution.problems.append(Problem(
                .abiMismatch, plugin: plugin.name, file: plugin.file,
                "plugin \(plugin.label) was built for plugin ABI \(plugin.manifest.abi), but this host "
                    + "provides ABI \(abiVersion); rebuild the plugin against this host's libPluginABI.so"))
        }

        // Edges from each requirement to the plugins that require it.
        var dependents = [[Int]](repeating: [], count: plugins.count)
        var waitingFor = [Int](repeating: 0, count: plugins.count)
        for (index, plugin) in plugins.enumerated() {
            for required in plugin.manifest.requires {
                guard let requiredIndex = indexByName[required] else {
                    resolution.problems.append(Problem(
                        .missingDependency, plugin: plugin.name, file: plugin.file,
                        "plugin \(plugin.label) requires \(required), which is not installed; "
                            + "add the plugin \(required) to the plugin directory or remove it from \(plugin.name)'s requires"))
                    continue
                }
                dependents[requiredIndex].append(index)
                waitingFor[index] += 1
            }
        }

        // Kahn's algorithm; `plugins` is sorted by name, so the smallest index is the
        // smallest name.
        var ready = MinHeap<Int>()
        for index in plugins.indices where waitingFor[index] == 0 { ready.insert(index) }
        while let next = ready.popMin() {
            resolution.order.append(plugins[next])
            for dependent in dependents[next] {
                waitingFor[dependent] -= 1
                if waitingFor[dependent] == 0 { ready.insert(dependent) }
            }
        }

        let stuck = plugins.indices.filter { waitingFor[$0] > 0 }
        resolution.unordered = stuck.map { plugins[$0] }
        for cycle in Self.cycles(among: Set(stuck), plugins: plugins, indexByName: indexByName) {
            let path = (cycle + [cycle[0]]).map { plugins[$0].name }.joined(separator: " -> ")
            let files = cycle.map { plugins[$0].file }
            resolution.problems.append(Problem(
                .dependencyCycle, plugin: plugins[cycle[0]].name, file: files.joined(separator: ", "),
                "dependency cycle: \(path) (each requires the next); "
                    + "remove one of these requirements from its plugin's manifest"))
        }
        return resolution
    }

    /// One cycle per strongly connected component of `members` that has one, each as the
    /// shortest path from its smallest-named plugin back to itself.
    private static func cycles(among members: Set<Int>, plugins: [PluginCandidate], indexByName: [String: Int]) -> [[Int]] {
        func requirements(of index: Int) -> [Int] {
            plugins[index].manifest.requires.compactMap { indexByName[$0] }.filter(members.contains).sorted()
        }
        var cycles: [[Int]] = []
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
            cycles.append(path.reversed())
        }
        return cycles.sorted { plugins[$0[0]].name < plugins[$1[0]].name }
    }
}
