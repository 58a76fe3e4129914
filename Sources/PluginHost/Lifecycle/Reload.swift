import PluginABI

extension LifecycleRunner {
    /// Reads the configuration file again and gives every component that handles reloads
    /// its new settings in two steps, in bootstrap order: each checks them
    /// (``ReloadCheck``); only when every one accepted do they all apply them (``Reload``).
    ///
    /// - Returns: The refusals, or the applications that failed or overran, also reported
    ///   on stderr. After a refusal nothing changed anywhere.
    mutating func reload() -> [Problem] {
        let read: [String: Settings]
        switch context.readConfiguration() {
        case .failure(let problem):
            return [report(Problem(problem.code, plugin: nil, file: problem.file, "reload refused: \(problem.message); nothing was reloaded"))]
        case .success(let settings):
            read = settings
        }
        func own(_ plugin: RunningPlugin) -> Settings { read[plugin.name] ?? Settings([:], for: plugin.name) }

        let refusals = delivery.call(.reloadCheck, ReloadCheck.self, to: plugins, phase: .reload, within: context.timeout) {
            ReloadCheck(settings: own($0))
        }
        guard refusals.isEmpty else {
            let problems = refusals.map(report)
            say("reload refused by \(refusals.compactMap(\.plugin).joined(separator: ", ")); nothing was reloaded: every plugin keeps its settings")
            return problems
        }

        sayWhatReloadLeavesAlone(read)
        let before = settings
        settings = read
        var problems: [Problem] = []
        var reloaded: [String] = []
        for delivered in delivery.deliver(Reload.self, to: plugins, phase: .reload, within: context.timeout, { Reload(settings: own($0)) }) {
            if let problem = Hook.reloadApply.problem(of: delivered.plugin, delivered.outcome, limit: context.timeout) {
                problems.append(report(problem))
            } else {
                reloaded.append(delivered.plugin.name)
            }
        }
        say("reloaded \(reloaded.isEmpty ? "no plugins" : reloaded.joined(separator: ", "))")
        let changed = plugins.filter { before[$0.name]?.entries ?? [:] != read[$0.name]?.entries ?? [:] && handlesReload($0) }
        for warning in Configuration(settings: read).keyWarnings(
            of: changed.map { ($0.name, $0.candidate.manifest.settings) }, file: context.configurationFile ?? "",
            while: "when it reloaded its settings") {
            say("warning: " + warning)
        }
        return problems
    }

    private func handlesReload(_ plugin: RunningPlugin) -> Bool {
        plugin.lifecycle.handles(ReloadCheck.self) || plugin.lifecycle.handles(Reload.self)
    }

    /// Says which plugins without reload hooks have new settings, and which: they take effect
    /// only when the plugin starts again.
    private func sayWhatReloadLeavesAlone(_ read: [String: Settings]) {
        for plugin in plugins where !handlesReload(plugin) {
            let old = settings[plugin.name]?.entries ?? [:]
            let new = read[plugin.name]?.entries ?? [:]
            let keys = Set(old.keys).union(new.keys).filter { old[$0] != new[$0] }.sorted()
            guard !keys.isEmpty else { continue }
            say("warning: plugin \(plugin.label) has no reload hook: its changed setting\(keys.count == 1 ? "" : "s") "
                + keys.map { "\"\($0.debugEscaped)\"" }.joined(separator: ", ")
                + " take\(keys.count == 1 ? "s" : "") effect when it starts again (a restart of the host, or an upgrade of the plugin)")
        }
    }
}
