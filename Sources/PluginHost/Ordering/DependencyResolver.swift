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
        var order = BootstrapOrder()
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
    ///
    /// Every step is linear in the number of plugins and requirements: names are matched by
    /// sorting them together with the names plugins require (``SortedStrings``), not by a
    /// hash table, and the graph is ordered by Kahn's algorithm over compact arrays.
    func resolve(_ candidates: [PluginCandidate]) -> Resolution {
        var resolution = Resolution()
        let names = NamesToMatch(candidates)

        // One sort of the plugins' names and the names they require. Each group of equal
        // names holds the plugins that declare it (normally one), then the requirements
        // that name it. The position of a plugin's group among the declared names is its
        // rank. First pass: the ranks.
        let sorted = SortedStrings(names.names)
        let declaring = candidates.count
        // The plugins kept, in name order, as indices into `candidates`.
        var unique: [Int32] = []
        unique.reserveCapacity(candidates.count)
        var rankOfCandidate = [Int32](repeating: -1, count: candidates.count)
        // Ranks declared by more than one plugin, with all their plugins.
        var duplicates: [Int: [Int]] = [:]
        // Requirements no plugin declares.
        var missing: [Int] = []
        var rank = -1
        for (position, item) in sorted.order.lazy.map(Int.init).enumerated() {
            if sorted.startsGroup[position] { rank = -1 }
            if item >= declaring {
                if rank < 0 && !names.isOptional(item) { missing.append(item) }
            } else if rank < 0 {
                rank = unique.count
                unique.append(Int32(item))
                rankOfCandidate[item] = Int32(rank)
            } else {
                duplicates[rank, default: [Int(unique[rank])]].append(item)
            }
        }
        // Of plugins that share a name, the first file is kept so that the rest of the graph
        // can still be checked; the others take no further part.
        for (rank, sharing) in duplicates.sorted(by: { $0.key < $1.key }) {
            let files = sharing.map { candidates[$0].file }.sorted()
            let kept = sharing.first { candidates[$0].file == files[0] }!
            rankOfCandidate[Int(unique[rank])] = -1
            unique[rank] = Int32(kept)
            rankOfCandidate[kept] = Int32(rank)
            let name = candidates[kept].name
            resolution.record(
                Problem(
                    .duplicateName, plugin: name, file: files.joined(separator: ", "),
                    "duplicate plugin name \(name): \(files.joined(separator: " and ")) "
                        + "both declare it; remove all but one of these files"),
                failing: [name])
        }
        let plugins = Plugins(candidates: candidates, unique: unique)

        var mismatches: [Int] = []
        for (index, candidate) in candidates.enumerated() where rankOfCandidate[index] >= 0 && candidate.manifest.abi != abiVersion {
            mismatches.append(Int(rankOfCandidate[index]))
        }
        for rank in mismatches.sorted() {
            let plugin = plugins[rank]
            resolution.record(
                Problem(
                    .abiMismatch, plugin: plugin.name, file: plugin.file,
                    "plugin \(plugin.label) was built for plugin ABI \(plugin.manifest.abi), but this host "
                        + "provides ABI \(abiVersion); rebuild the plugin against this host's libPluginABI.so"),
                failing: [plugin.name])
        }

        // In the order of `candidates` and of their manifests.
        for item in missing.sorted() where rankOfCandidate[names.owner(of: item)] >= 0 {
            let plugin = candidates[names.owner(of: item)]
            let required = names.names[item]
            resolution.record(
                Problem(
                    .missingDependency, plugin: plugin.name, file: plugin.file,
                    "plugin \(plugin.label) requires \(required), which is not installed; "
                        + "add the plugin \(required) to the plugin directory or remove it from \(plugin.name)'s requires"),
                failing: [plugin.name])
        }

        // Second pass: the requirements that name a plugin, group by group, are the edges
        // from that plugin to its dependents (an optional requirement counts when the plugin
        // is installed), in the order the graph keeps them.
        var builder = DependentsGraph.Builder(count: unique.count, edges: names.count - declaring)
        rank = -1
        var groups = 0
        for (position, item) in sorted.order.lazy.map(Int.init).enumerated() {
            if sorted.startsGroup[position] {
                rank = item < declaring ? groups : -1
                if item < declaring { groups += 1 }
            }
            if item >= declaring && rank >= 0 {
                let dependent = rankOfCandidate[names.owner(of: item)]
                if dependent >= 0 { builder.addEdge(from: rank, to: Int(dependent)) }
            }
        }
        let graph = builder.build()

        // Kahn's algorithm over every edge finds the plugins stuck behind a cycle.
        let placed = graph.topologicalOrder()
        var order = placed
        if placed.count < plugins.count {
            let stuck = Set(plugins.indices).subtracting(placed.map(Int.init))
            var requirements: [Int: [Int]] = [:]
            for dependency in stuck {
                for dependent in graph.dependents(of: dependency) where stuck.contains(Int(dependent)) {
                    requirements[Int(dependent), default: []].append(dependency)
                }
            }
            for (cycle, members) in Self.cycles(among: stuck, requirements: { requirements[$0, default: []].sorted() }, plugins: plugins) {
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
        resolution.order = BootstrapOrder(candidates, positions: order.map { unique[Int($0)] })
        return resolution
    }

    /// One cycle per strongly connected component of `members` that has one, each as the
    /// shortest path from its smallest-named plugin back to itself, with all the members of
    /// its component.
    ///
    /// - Parameter requirements: The members a member depends on, sorted.
    private static func cycles(
        among members: Set<Int>, requirements: (Int) -> [Int], plugins: Plugins
    ) -> [(path: [Int], members: [Int])] {
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
                for next in requirements(current) where inComponent.contains(next) {
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
    let unique: [Int32]

    var count: Int { unique.count }
    var indices: Range<Int> { unique.indices }
    subscript(rank: Int) -> PluginCandidate { candidates[Int(unique[rank])] }
}

/// The names a resolution matches: every plugin's own name (one per candidate, in order),
/// then every name each plugin requires or uses optionally, in the order of `candidates`
/// and of their manifests.
private struct NamesToMatch {
    /// The names; their indices are the items the resolution sorts.
    let names: [String]
    private let candidateCount: Int
    /// For each required or optional name: the index of the candidate whose manifest holds it.
    private let owners: [Int32]
    /// For each required or optional name: whether it is optional.
    private let optional: [Bool]

    init(_ candidates: [PluginCandidate]) {
        // Room for three requirements each, the usual number, so that the arrays seldom grow.
        var names: [String] = []
        names.reserveCapacity(candidates.count * 4)
        names.append(contentsOf: candidates.lazy.map(\.name))
        var owners: [Int32] = []
        owners.reserveCapacity(candidates.count * 3)
        var optional: [Bool] = []
        optional.reserveCapacity(candidates.count * 3)
        for (index, candidate) in candidates.enumerated() {
            let manifest = candidate.manifest
            names.append(contentsOf: manifest.requires)
            names.append(contentsOf: manifest.optional)
            owners.append(contentsOf: repeatElement(Int32(index), count: manifest.requires.count + manifest.optional.count))
            optional.append(contentsOf: repeatElement(false, count: manifest.requires.count))
            optional.append(contentsOf: repeatElement(true, count: manifest.optional.count))
        }
        precondition(names.count < Int(Int32.max), "too many plugins")
        self.names = names
        candidateCount = candidates.count
        self.owners = owners
        self.optional = optional
    }

    var count: Int { names.count }

    /// The candidate whose manifest holds the required or optional name `item`.
    func owner(of item: Int) -> Int { Int(owners[item - candidateCount]) }

    /// Whether `item` is an optional name.
    func isOptional(_ item: Int) -> Bool { optional[item - candidateCount] }
}
