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
        return problems
    }
}
