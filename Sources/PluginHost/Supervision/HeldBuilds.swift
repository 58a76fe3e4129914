/// The builds of the plugins a serving generation runs, held open by the supervisor, so that
/// a later generation can load them again after their files were replaced: when an upgrade
/// fails once the generation before has stopped, the builds that ran before come back.
///
/// A build whose file was written in place cannot come back (the held descriptor reads the
/// new bytes): its contents no longer match, and it is dropped. Replacing or removing the
/// file's name does not matter: the descriptor holds the file itself.
struct HeldBuilds {
    private var held: [(entry: SupervisionPage.PluginEntry, file: ReadOnlyFile)] = []

    /// The builds held, as their generation published them.
    var entries: [SupervisionPage.PluginEntry] { held.map(\.entry) }

    /// The builds held, for a generation to load in place of excluded ones.
    var substitutes: [BuildSelection.Substitute] {
        held.compactMap { entry, file in
            guard let identity = entry.identity, let now = try? file.status().identity, now.hasSameContents(as: identity) else { return nil }
            return BuildSelection.Substitute(name: entry.name, file: entry.file, identity: identity, path: file.pathInForkedProcesses)
        }
    }

    /// Holds the builds of `entries` (the plugins a generation runs) and lets go of the
    /// others. A build held already stays held; another is opened from its file, and held
    /// only when the file is still that build.
    mutating func hold(_ entries: [SupervisionPage.PluginEntry]) {
        DescriptorLimit.raise(toAtLeast: UInt64(entries.count + held.count) + 256)
        var next: [(entry: SupervisionPage.PluginEntry, file: ReadOnlyFile)] = []
        for entry in entries {
            guard let identity = entry.identity else { continue }
            if let kept = held.first(where: { $0.entry.name == entry.name && $0.entry.identity?.hasSameContents(as: identity) == true }) {
                next.append(kept)
            } else if let file = try? ReadOnlyFile(path: entry.file), (try? file.status())?.identity == identity {
                next.append((entry, file))
            }
        }
        held = next
    }
}
