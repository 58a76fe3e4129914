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

        /// Records a problem of one plugin, which it fails.
        mutating func record(_ code: Problem.Code, of plugin: PluginCandidate, _ message: String) {
            record(Problem(code, plugin: plugin.name, file: plugin.file, message), failing: [plugin.name])
        }
    }

    /// Resolves the bootstrap order of `candidates`.
    ///
    /// Every step is linear in the number of plugins and requirements: names are matched by
    /// sorting them together with the names plugins require (``SortedStrings``), not by a
    /// hash table, and the graph is ordered by Kahn's algorithm over compact arrays.
    func resolve(_ candidates: [PluginCandidate]) -> Resolution {
        var resolution = Resolution()
        // Plugins built for another plugin ABI, noted while their manifests are read.
        var otherABI: [Int] = []
        let names = NamesToMatch(candidates) { index, manifest in
            if manifest.abi != abiVersion { otherABI.append(index) }
        }

        // One sort of the names plugins require and the plugins' own names. Each group of
        // equal names holds the requirements that name it, then the plugins that declare it
        // (normally one). The position of a plugin's group among the declared names is its
        // rank. First pass: the ranks.
        let sorted = SortedStrings(names.table)
        let (sortedItems, startsGroup) = (sorted.order, sorted.startsGroup)
        // The plugins kept, in name order, as indices into `candidates`.
        var unique: [Int32] = []
        unique.reserveCapacity(candidates.count)
        var rankOfCandidate = [Int32](repeating: -1, count: candidates.count)
        // For each rank: the positions in `sortedItems` of the requirements that name it.
        var requirementsNaming: [Range<Int32>] = []
        requirementsNaming.reserveCapacity(candidates.count)
        // Ranks declared by more than one plugin, with all their plugins.
        var duplicates: [Int: [Int]] = [:]
        // Required and optional names no plugin declares.
        var unmatched: [Int] = []
        var start = 0
        while start < sortedItems.count {
            var end = start + 1
            while end < sortedItems.count && !startsGroup[end] { end += 1 }
            var declarations = end
            while declarations > start && names.isDeclaration(Int(sortedItems[declarations - 1])) { declarations -= 1 }
            if declarations < end {
                let rank = unique.count
                let kept = names.candidate(declaredBy: Int(sortedItems[declarations]))
                unique.append(Int32(kept))
                rankOfCandidate[kept] = Int32(rank)
                requirementsNaming.append(Int32(start)..<Int32(declarations))
                if end - declarations > 1 {
                    duplicates[rank] = sortedItems[declarations..<end].map { names.candidate(declaredBy: Int($0)) }
                }
            } else {
                unmatched.append(contentsOf: sortedItems[start..<end].lazy.map(Int.init))
            }
            start = end
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

        for rank in otherABI.map({ rankOfCandidate[$0] }).filter({ $0 >= 0 }).sorted() {
            let plugin = plugins[Int(rank)]
            resolution.record(
                .abiMismatch, of: plugin,
                "plugin \(plugin.label) was built for plugin ABI \(plugin.manifest.abi), but this host "
                    + "provides ABI \(abiVersion); " + Self.abiAdvice(found: plugin.manifest.abi, host: abiVersion))
        }

        // A plugin that links another plugin's library loads it with the dynamic loader,
        // whatever its manifest says: it must declare it, directly or through the plugins it
        // declares (which load first), or the graph would be wrong.
        var pluginByLibrary: [String: PluginCandidate] = [:]
        var pluginByName: [String: PluginCandidate] = [:]
        for rank in plugins.indices {
            let plugin = plugins[rank]
            pluginByLibrary["lib\(plugin.name).so"] = plugin
            pluginByLibrary[String(plugin.file.split(separator: "/").last ?? "")] = plugin
            pluginByName[plugin.name] = plugin
        }
        /// The plugins `plugin` depends on, directly or transitively.
        func declared(by plugin: PluginCandidate) -> Set<String> {
            var reached = Set<String>()
            var pending = plugin.manifest.identity.dependencies
            while let name = pending.popLast() {
                guard reached.insert(name).inserted else { continue }
                pending += pluginByName[name]?.manifest.identity.dependencies ?? []
            }
            return reached
        }
        for rank in plugins.indices {
            let plugin = plugins[rank]
            let linked = plugin.needed.compactMap { library in pluginByLibrary[library].map { (library, $0) } }
                .filter { $0.1.name != plugin.name }
            guard !linked.isEmpty else { continue }
            let reached = declared(by: plugin)
            for (library, linked) in linked where !reached.contains(linked.name) {
                resolution.record(
                    .undeclaredDependency, of: plugin,
                    "plugin \(plugin.label) links \(library), the library of plugin \(linked.label), but its manifest does not "
                        + "declare \(linked.name); add \"\(linked.name)\" to \"requires\" in the manifest of \(plugin.name)")
            }
        }

        // In the order of `candidates` and of their manifests.
        unmatched.sort()
        for item in unmatched {
            let owner = names.owner(of: item)
            guard rankOfCandidate[owner] >= 0, !names.isOptional(item, heldBy: owner) else { continue }
            let plugin = candidates[owner]
            let required = names.table[item]
            resolution.record(
                .missingDependency, of: plugin,
                "plugin \(plugin.label) requires \(required), which is not installed; "
                    + "add the plugin \(required) to the plugin directory or remove it from \(plugin.name)'s requires")
        }

        // Each plugin kept waits for each of its requirements that names a plugin (an
        // optional requirement counts when the plugin is installed): its required and
        // optional names but the unmatched ones, counted candidate by candidate.
        var dependencyCounts = [Int32](repeating: 0, count: unique.count)
        var next = 0
        for (candidate, requirements) in names.requirementRanges.enumerated() where rankOfCandidate[candidate] >= 0 {
            var count = requirements.count
            while next < unmatched.count && unmatched[next] < requirements.lowerBound { next += 1 }
            while next < unmatched.count && unmatched[next] < requirements.upperBound { count -= 1; next += 1 }
            dependencyCounts[Int(rankOfCandidate[candidate])] = Int32(count)
        }
        // Second pass: the requirements that name a plugin are the edges from that plugin
        // to its dependents, rank by rank, the order the graph keeps them in.
        var builder = DependentsGraph.Builder(dependencyCounts: dependencyCounts, edges: names.requirementCount)
        let dependentRanks = names.ranksOfOwners(rankOfCandidate)
        for (rank, positions) in requirementsNaming.enumerated() {
            for item in sortedItems[Int(positions.lowerBound)..<Int(positions.upperBound)] {
                let dependent = dependentRanks[Int(item)]
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
        // Ranks to candidates in place: a new array would be 100,000 plugins' worth of fresh pages.
        for position in order.indices { order[position] = unique[Int(order[position])] }
        resolution.order = BootstrapOrder(candidates, positions: order)
        return resolution
    }

    /// What to do about a plugin built for another plugin ABI.
    private static func abiAdvice(found: Int, host: Int) -> String {
        guard found < host else { return "use a plugin-host that provides ABI \(found), or rebuild the plugin against this one" }
        let rebuild = "rebuild the plugin against this host's libPluginABI.so"
        guard found == 1 else { return rebuild }
        return rebuild + " (since ABI 2 a component sets itself up in init(_ bootstrapped:) and registers its service and "
            + "hooks with bootstrapped.lifecycle; see \"From ABI 1\" in docs/writing-plugins.md)"
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

/// The names a resolution matches, copied out of the manifests in one pass: every name each
/// plugin requires or uses optionally, in the order of `candidates` and of their manifests
/// (the requirements), then every plugin's own name, one per candidate (the declarations).
/// Their positions in ``table`` are the items the resolution sorts; sorting equal names by
/// item puts a group's requirements before its declarations.
private struct NamesToMatch {
    let table: NameTable
    /// The number of required and optional names: the items before the declarations.
    let requirementCount: Int
    private let candidates: [PluginCandidate]
    /// For each candidate: the item of its first required or optional name; then
    /// ``requirementCount``. A candidate's required and optional names are the items
    /// from its first to the next candidate's.
    private let firsts: [Int32]

    /// Reads the names of `candidates`, and passes each manifest with its candidate's index
    /// to `visit` on the way: the manifests are all over memory, so each is read only once.
    init(_ candidates: [PluginCandidate], visiting visit: (Int, PluginManifest) -> Void) {
        // Room for three requirements each, the usual number, of 8 bytes or less, so that
        // the arrays seldom grow.
        var table = NameTable(capacity: candidates.count * 4, bytes: candidates.count * 4 * 8)
        var declared = NameTable(capacity: candidates.count, bytes: candidates.count * 8)
        var firsts: [Int32] = []
        firsts.reserveCapacity(candidates.count + 1)
        for index in candidates.indices {
            let manifest = candidates[index].manifest
            firsts.append(Int32(truncatingIfNeeded: table.count))
            for name in manifest.requires { table.append(name) }
            for name in manifest.optional { table.append(name) }
            declared.append(manifest.name)
            visit(index, manifest)
        }
        requirementCount = table.count
        firsts.append(Int32(truncatingIfNeeded: requirementCount))
        table.append(contentsOf: declared)
        precondition(table.count < Int(Int32.max), "too many plugins")
        self.table = table
        self.candidates = candidates
        self.firsts = firsts
    }

    /// Whether `item` is a plugin's own name.
    func isDeclaration(_ item: Int) -> Bool { item >= requirementCount }

    /// The candidate whose own name is `item`.
    func candidate(declaredBy item: Int) -> Int { item - requirementCount }

    /// The candidate whose manifest holds the required or optional name `item`: the last
    /// whose first item is not after it.
    func owner(of item: Int) -> Int {
        var (low, high) = (0, candidates.count)
        while high - low > 1 {
            let middle = (low + high) / 2
            if Int(firsts[middle]) <= item { low = middle } else { high = middle }
        }
        return low
    }

    /// Whether the required or optional name `item`, which `owner`'s manifest holds, is
    /// optional.
    func isOptional(_ item: Int, heldBy owner: Int) -> Bool {
        item - Int(firsts[owner]) >= candidates[owner].manifest.requires.count
    }

    /// For each candidate, in order: the items of its required and optional names.
    var requirementRanges: some Collection<Range<Int>> {
        candidates.indices.lazy.map { Int(firsts[$0])..<Int(firsts[$0 + 1]) }
    }

    /// For each required or optional name, in order: the value `rank` gives its candidate.
    func ranksOfOwners(_ rank: [Int32]) -> [Int32] {
        var ranks: [Int32] = []
        ranks.reserveCapacity(requirementCount)
        for (candidate, items) in requirementRanges.enumerated() {
            ranks.append(contentsOf: repeatElement(rank[candidate], count: items.count))
        }
        return ranks
    }
}
