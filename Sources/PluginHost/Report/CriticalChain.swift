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
    static func slowest(_ plugins: [PluginOutcome], count: Int = 5) -> [Int] {
        Array(plugins.indices.filter { plugins[$0].status != .notRun }
            .sorted { plugins[$0].totalDuration > plugins[$1].totalDuration }
            .prefix(count))
    }
}
