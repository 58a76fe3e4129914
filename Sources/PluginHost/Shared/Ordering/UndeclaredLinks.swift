/// A plugin that links another plugin's library loads it with the dynamic loader, whatever
/// its manifest says: it must declare it, directly or through the plugins it declares (which
/// load first), or the order would be wrong and lookups of its components would fail.
enum UndeclaredLinks {
    /// Records an `undeclared-dependency` problem for each library a plugin links that is
    /// another plugin's and that its manifest does not declare.
    ///
    /// - Parameters:
    ///   - plugins: The plugins resolved, as indices into `candidates`, by rank.
    ///   - rankByName: The rank of each plugin name.
    static func check(
        _ candidates: [PluginCandidate], _ plugins: [Int], rankByName: [String: Int],
        into resolution: inout DependencyResolver.Resolution
    ) {
        // A library names a plugin by its soname, lib<name>.so, or by its file name.
        var rankByLibrary: [String: Int] = [:]
        rankByLibrary.reserveCapacity(plugins.count)
        for (rank, index) in plugins.enumerated() {
            rankByLibrary["lib" + candidates[index].name + ".so"] = rank
            if !candidates[index].isNamedAfterItsPlugin { rankByLibrary[String(candidates[index].fileName)] = rank }
        }
        for (own, index) in plugins.enumerated() {
            for library in candidates[index].needed {
                guard let linked = rankByLibrary[library], linked != own,
                      !depends(index, on: plugins[linked], candidates, plugins, rankByName)
                else { continue }
                let (plugin, linkedPlugin) = (candidates[index], candidates[plugins[linked]])
                resolution.record(
                    .undeclaredDependency, of: plugin,
                    "plugin \(plugin.label) links \(library), the library of plugin \(linkedPlugin.label), but its manifest does not "
                        + "declare \(linkedPlugin.name); add \"\(linkedPlugin.name)\" to \"requires\" in the manifest of \(plugin.name)")
            }
        }
    }

    /// Whether the candidate at `index` depends on the one at `dependency`, directly (the
    /// usual case, answered at once) or through the plugins it depends on, breadth first.
    private static func depends(
        _ index: Int, on dependency: Int, _ candidates: [PluginCandidate], _ plugins: [Int], _ rankByName: [String: Int]
    ) -> Bool {
        let name = candidates[dependency].manifest.name
        if candidates[index].manifest.requires.contains(name) || candidates[index].manifest.optional.contains(name) { return true }
        var pending = candidates[index].manifest.identity.dependencies
        var reached = Set(pending)
        var next = 0
        while next < pending.count {
            let current = pending[next]
            next += 1
            if current == name { return true }
            for further in rankByName[current].map({ candidates[plugins[$0]].manifest.identity.dependencies }) ?? []
            where reached.insert(further).inserted {
                pending.append(further)
            }
        }
        return false
    }
}
