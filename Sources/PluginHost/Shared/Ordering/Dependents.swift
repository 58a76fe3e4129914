/// Which plugins leave with others: those that require one that leaves, directly or not.
///
/// The one place this is worked out, for a start that leaves builds out, a worker that
/// removes plugins, and a supervisor that restarts without a culprit.
enum Dependents {
    /// The plugins among `plugins` that must leave with `leaving` (and are not among them),
    /// each with the plugin it requires that leaves; in the order of `plugins`, whatever
    /// order that is.
    static func leaving<Plugin>(
        with leaving: Set<String>, among plugins: [Plugin], name: (Plugin) -> String, requires: (Plugin) -> [String]
    ) -> [(plugin: Plugin, because: String)] {
        var gone = leaving
        var because: [Int: String] = [:]
        var changed = true
        while changed {
            changed = false
            for (position, plugin) in plugins.enumerated() where !gone.contains(name(plugin)) {
                guard let required = requires(plugin).first(where: gone.contains) else { continue }
                gone.insert(name(plugin))
                because[position] = required
                changed = true
            }
        }
        return plugins.enumerated().compactMap { position, plugin in because[position].map { (plugin, $0) } }
    }
}
