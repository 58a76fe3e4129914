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
            // The line says it is a refusal; the reason stays the reason, for the answer and the status.
            _ = report(Problem(problem.code, plugin: nil, file: problem.file, "reload refused: \(problem.message); nothing was reloaded"))
            return ReloadOutcome(applied: false, problems: [problem])
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
        tellSettingsWarnings(read, reloaded: Set(changed.map(\.name)))
        return ReloadOutcome(applied: true, problems: problems)
    }

    /// The warnings about the configuration as it is now, in place of those said when the
    /// host started or a plugin was added: settings for plugins that are not in the
    /// directory, keys a plugin does not declare, and, for each plugin still running with the
    /// settings it bootstrapped with, the keys it did not read then that look misspelt. A
    /// configuration fixed and reloaded leaves no warning in force.
    private mutating func tellSettingsWarnings(_ read: [String: Settings], reloaded: Set<String>) {
        let file = context.configurationFile ?? ""
        let configuration = Configuration(settings: read)
        let found = Set(plugins.map(\.name) + rescans.leftOut.map(\.name) + rescans.notAddedProblems.compactMap(\.plugin))
        let asBootstrapped = plugins.filter { !reloaded.contains($0.name) && $0.candidate.manifest.settings == nil }
        let warnings = configuration.unknownPluginWarnings(found: found, in: PluginSearchPath(context.search).description, file: file)
            + configuration.undeclaredKeyWarnings(
                of: plugins.filter { !reloaded.contains($0.name) }.map { ($0.name, $0.candidate.manifest.settings) }, file: file)
            + Configuration.misspeltKeyWarnings(runningWith, of: asBootstrapped.map(\.name), file: file, while: "while it bootstrapped")
        link.tell(.warnings(topic: "settings", warnings))
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
