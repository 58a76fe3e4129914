import PluginABI

extension LifecycleRunner {
    /// What a reload did: applied (every component took its new settings, or failed to in
    /// its own hook), or refused (nothing changed anywhere), and the problems.
    struct ReloadOutcome {
        var applied: Bool
        var problems: [Problem]
    }

    /// Reads the configuration file again and gives every component that handles reloads
    /// its new settings in two steps, in bootstrap order: each checks them
    /// (``ReloadCheck``); only when every one accepted do they all apply them (``Reload``).
    /// Tells the supervisor the warnings that hold after it: the settings that changed for
    /// plugins without a reload hook (they take effect when the plugin starts again), and
    /// what is wrong with the new settings; the supervisor says each once.
    ///
    /// - Returns: Whether it was applied, and the refusals, or the applications that failed
    ///   or overran, also reported on stderr. After a refusal nothing changed anywhere.
    mutating func reload() -> ReloadOutcome {
        let read: [String: Settings]
        switch context.readConfiguration() {
        case .failure(let problem):
            let refusal = report(Problem(problem.code, plugin: nil, file: problem.file, "reload refused: \(problem.message); nothing was reloaded"))
            return ReloadOutcome(applied: false, problems: [refusal])
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
            return ReloadOutcome(applied: false, problems: problems)
        }

        let before = settings
        settings = read
        var problems: [Problem] = []
        var reloaded: [String] = []
        for delivered in delivery.deliver(Reload.self, to: plugins, phase: .reload, within: context.timeout, { Reload(settings: own($0)) }) {
            if let problem = Hook.reloadApply.problem(of: delivered.plugin, delivered.outcome, limit: context.timeout) {
                problems.append(report(problem))
            } else {
                reloaded.append(delivered.plugin.name)
                runningWith[delivered.plugin.name] = read[delivered.plugin.name]
            }
        }
        say("reloaded \(reloaded.isEmpty ? "no plugins" : reloaded.joined(separator: ", "))")
        link.tell(.warnings(topic: "settings without a reload hook", settingsLeftAlone(read)))
        let changed = plugins.filter { before[$0.name]?.entries ?? [:] != read[$0.name]?.entries ?? [:] && handlesReload($0) }
        link.tell(.warnings(topic: "reloaded settings", Configuration(settings: read).keyWarnings(
            of: changed.map { ($0.name, $0.candidate.manifest.settings) }, file: context.configurationFile ?? "",
            while: "when it reloaded its settings")))
        return ReloadOutcome(applied: true, problems: problems)
    }

    private func handlesReload(_ plugin: RunningPlugin) -> Bool {
        plugin.lifecycle.handles(ReloadCheck.self) || plugin.lifecycle.handles(Reload.self)
    }

    /// For each plugin without reload hooks whose settings in `read` differ from those it
    /// runs with: which changed; they take effect only when the plugin starts again. It holds
    /// until then, whatever the number of reloads.
    private func settingsLeftAlone(_ read: [String: Settings]) -> [String] {
        plugins.filter { !handlesReload($0) }.compactMap { plugin in
            let old = runningWith[plugin.name]?.entries ?? [:]
            let new = read[plugin.name]?.entries ?? [:]
            let keys = Set(old.keys).union(new.keys).filter { old[$0] != new[$0] }.sorted()
            guard !keys.isEmpty else { return nil }
            return "plugin \(plugin.label) has no reload hook: its changed setting\(keys.count == 1 ? "" : "s") "
                + keys.map { "\"\($0.debugEscaped)\"" }.joined(separator: ", ")
                + " take\(keys.count == 1 ? "s" : "") effect when it starts again (a restart of the host, or an upgrade of the plugin)"
        }
    }
}
