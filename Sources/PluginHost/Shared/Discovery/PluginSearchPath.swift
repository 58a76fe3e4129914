/// The plugin directories of a run, searched in order: `--dir` (each, in order), then
/// `PLUGIN_HOST_PATH`, then, without `--dir`, the install tree's plugin directory.
///
/// The first directory that holds a plugin of a given name wins; the same name in a later
/// directory is *shadowed*: reported, not used. Within one directory, two files of one
/// name are a duplicate, an error.
struct PluginSearchPath {
    var directories: [String]
    var trust = FileTrust()
    /// The working directory relative directories are taken from.
    var base: String?

    init(_ options: SearchOptions) {
        directories = options.directories
        trust = FileTrust(allowAnyOwner: options.allowAnyOwner)
        base = options.base
    }

    /// Reads the manifests of every directory, without loading anything.
    func scan() -> PluginDirectory.Scan {
        var combined = PluginDirectory.Scan()
        var winner: [String: Int] = [:]
        var seenDirectories = Set<String>()
        for directory in directories {
            // The same directory named twice (as given, or resolved) is searched once.
            let plugins = PluginDirectory(path: directory, trust: trust, base: base)
            let key = (try? resolvedPath(plugins.location)) ?? directory
            guard seenDirectories.insert(key).inserted else { continue }
            let scan = plugins.scan()
            combined.problems += scan.problems
            var addedHere: [String: Int] = [:]
            for candidate in scan.candidates {
                if let index = winner[candidate.name], addedHere[candidate.name] == nil {
                    combined.candidates[index].shadowed.append(candidate.file)
                } else {
                    addedHere[candidate.name] = combined.candidates.count
                    if winner[candidate.name] == nil { winner[candidate.name] = combined.candidates.count }
                    combined.candidates.append(candidate)
                }
            }
        }
        return combined
    }

    /// The directories as the reports name them.
    var description: String { directories.joined(separator: ", ") }
}

/// Where to look for plugins, and which files to trust.
struct SearchOptions: Equatable {
    /// The plugin directories, in the order they are searched: the first one that holds a
    /// plugin name wins.
    var directories: [String]
    /// Load plugins owned by users other than the current one and root.
    var allowAnyOwner = false
    /// The working directory relative directories are taken from, as it was when the host
    /// started; `nil` for the current one.
    var base: String?
}
