/// What changed between two statuses of a running host, in an operator's words: one line of
/// `plugin-host status --follow`. It says what an operator acts on (the host's state, the
/// generations that came and went, each plugin whose build or state changed and why, trials
/// that began and ended, the last upgrade's and reload's outcome, a restart, a warning), and
/// nothing of the supervisor's own bookkeeping (builds it holds, its figures): a change that
/// moves none of these is no line at all.
struct StatusChange {
    let before: StatusDocument
    let after: StatusDocument

    /// `serving -> recovering: generation 3 ended; generation 4 recovering (restart); Ticker
    /// left out (crashed during the run phase: SIGSEGV)`; `nil` when nothing an operator
    /// reads changed.
    var line: String? {
        let parts = generations + plugins + outcomes
        guard before.state != after.state || !parts.isEmpty else { return nil }
        let state = before.state == after.state ? "\(after.state)" : "\(before.state) -> \(after.state)"
        return parts.isEmpty ? state : state + ": " + parts.joined(separator: "; ")
    }

    private var generations: [String] {
        var said: [String] = []
        let earlier = Dictionary(before.generations.map { ($0.number, $0) }, uniquingKeysWith: { first, _ in first })
        let now = Set(after.generations.map(\.number))
        for generation in before.generations where !now.contains(generation.number) {
            said.append("generation \(generation.number) ended")
        }
        for generation in after.generations {
            guard let was = earlier[generation.number] else {
                said.append("generation \(generation.number) \(generation.role) (\(generation.cause))")
                continue
            }
            if was.role != generation.role { said.append("generation \(generation.number) \(generation.role)") }
        }
        return said
    }

    private var plugins: [String] {
        var said: [String] = []
        let earlier = Dictionary(before.plugins.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for plugin in after.plugins {
            let was = earlier[plugin.name]
            let version = plugin.version.map { " " + $0 }
            // While generations change hands every plugin is not serving for a moment: the
            // generations say so; a plugin is named when its build, or what it is, changed.
            let handsOver = (was?.state == .notServing || plugin.state == .notServing) && was?.version == plugin.version
            if was?.state != plugin.state || was?.version != plugin.version, !handsOver {
                let moved = was.flatMap { was in was.version.flatMap { old in plugin.version.flatMap { old != $0 ? " \(old) ->" : nil } } } ?? ""
                var words = plugin.label + moved + (version ?? "") + " " + plugin.state.rawValue
                if let from = plugin.from, from != .file, plugin.isUp {
                    words += from == .record ? ", from the record's copy" : ", the build held from before"
                }
                if !plugin.isUp, let reason = plugin.reason {
                    // A reason names the file it is about; the line names it once.
                    let about = plugin.label + ": "
                    words += " (\(reason.hasPrefix(about) ? String(reason.dropFirst(about.count)) : reason))"
                }
                said.append(words)
            }
            if let trial = plugin.trial, was?.trial?.version != trial.version {
                said.append("\(plugin.name) \(trial.version) on trial until \(trial.until), replacing \(trial.replaces)")
            } else if plugin.trial == nil, let trial = was?.trial, plugin.version == trial.version, plugin.isUp {
                // A trial that ended with its build serving passed; one that failed, the lines of
                // the plugin and of the rollback say.
                said.append("\(plugin.name) \(trial.version) permanent: its trial passed")
            }
        }
        let now = Set(after.plugins.map(\.name))
        for plugin in before.plugins where !now.contains(plugin.name) { said.append("\(plugin.name) gone") }
        return said
    }

    private var outcomes: [String] {
        var said: [String] = []
        if let upgrade = after.lastUpgrade, upgrade != before.lastUpgrade {
            said.append("\(upgrade.result): \(upgrade.detail)")
        }
        if let reload = after.lastReload, reload != before.lastReload {
            said.append(reload.applied ? "reload applied" : "reload refused: " + reload.reasons.joined(separator: "; "))
        }
        if after.restarts.total > before.restarts.total { said.append("restart \(after.restarts.total)") }
        for warning in after.warnings where !before.warnings.contains(warning) { said.append("warning: \(warning)") }
        for warning in before.warnings where !after.warnings.contains(warning) { said.append("no longer: \(warning)") }
        return said
    }
}
