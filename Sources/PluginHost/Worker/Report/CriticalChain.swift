/// The chain of plugins that decided when the boot finished, as `systemd-analyze
/// critical-chain` shows it: start from the plugin that finished last, and go back through
/// the dependency that finished last, since it is the one the plugin waited for.
enum CriticalChain {
    /// Indices into `plugins`, earliest first; empty when nothing bootstrapped.
    static func of(_ plugins: [PluginOutcome]) -> [Int] {
        var indexByName: [String: Int] = [:]
        for (index, plugin) in plugins.enumerated() { indexByName[plugin.candidate.name] = index }
        func finished(_ index: Int) -> Duration? { plugins[index].bootstrapFinished }
        guard var current = plugins.indices.filter({ finished($0) != nil }).max(by: { finished($0)! < finished($1)! }) else {
            return []
        }
        var chain = [current]
        while true {
            let dependencies = plugins[current].candidate.manifest.identity.dependencies.compactMap { indexByName[$0] }
            guard let gate = dependencies.filter({ finished($0) != nil }).max(by: { finished($0)! < finished($1)! }) else { break }
            chain.append(gate)
            current = gate
        }
        return chain.reversed()
    }

    /// The plugins that took longest (load and bootstrap), longest first, as
    /// `systemd-analyze blame` shows them.
    /// Among equal times, the earlier plugin comes first.
    static func slowest(_ plugins: [PluginOutcome], count: Int = 5) -> [Int] {
        // One pass keeping the `count` slowest so far, slowest first: a report of a thousand
        // plugins does not need all of them sorted.
        guard count > 0 else { return [] }
        var slowest: [(index: Int, duration: Duration)] = []
        slowest.reserveCapacity(count + 1)
        for index in plugins.indices where plugins[index].status != .notRun && plugins[index].totalDuration > .zero {
            let duration = plugins[index].totalDuration
            guard slowest.count < count || duration > slowest[slowest.count - 1].duration else { continue }
            var position = slowest.count
            while position > 0 && duration > slowest[position - 1].duration { position -= 1 }
            slowest.insert((index, duration), at: position)
            if slowest.count > count { slowest.removeLast() }
        }
        return slowest.map(\.index)
    }
}
