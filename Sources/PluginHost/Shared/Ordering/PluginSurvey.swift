import PluginABI

/// What can be known about the plugins of a search path without running any of their code:
/// every manifest, the bootstrap order, and every problem. `list`, `check` and `graph` are
/// views of it; so is the first half of a run.
struct PluginSurvey {
    let searchPath: PluginSearchPath
    let scan: PluginDirectory.Scan
    let resolution: DependencyResolver.Resolution
    /// The plugins left out by the build selection, and those that require them.
    let leftOut: [LeftOutPlugin]

    /// Scans and resolves; opens files only to read their ELF headers and manifests.
    ///
    /// - Parameter builds: Builds to leave out, or to load in their place.
    init(_ options: SearchOptions, builds: BuildSelection<String> = BuildSelection()) {
        searchPath = PluginSearchPath(options)
        (scan, leftOut) = Self.select(builds, from: searchPath.scan())
        resolution = DependencyResolver(abiVersion: PluginABIVersion.current).resolve(scan.candidates)
    }

    /// `scan` without the excluded builds (in place of each, the build that ran before,
    /// when one is held) and without the plugins that require one left out.
    private static func select(_ builds: BuildSelection<String>, from scan: PluginDirectory.Scan) -> (PluginDirectory.Scan, [LeftOutPlugin]) {
        guard !builds.excluded.isEmpty else { return (scan, []) }
        var selected = scan
        selected.candidates = []
        var leftOut: [LeftOutPlugin] = []
        for candidate in scan.candidates {
            guard let exclusion = builds.exclusion(of: candidate) else {
                selected.candidates.append(candidate)
                continue
            }
            if let substitute = builds.substitute(for: candidate.name),
                case .success(var held) = PluginDirectory.readHeldBuild(at: substitute.path, shownAs: substitute.file),
                held.name == candidate.name {
                held.shadowed = candidate.shadowed
                // The record's copy of a build is that build.
                held.status = held.status?.standing(for: substitute.identity)
                selected.candidates.append(held)
                let version = candidate.manifest.version
                let until = exclusion.awaitsTrial
                    ? "until the host serves; \(version) is then tried again as an upgrade, on trial"
                    : "in its place until the file changes"
                leftOut.append(LeftOutPlugin(
                    name: candidate.name, file: candidate.file,
                    reason: "its build \(version) \(exclusion.reason); the build that ran before, \(held.manifest.version), runs \(until)",
                    runningInstead: held.manifest.version.description))
            } else {
                let until = exclusion.awaitsTrial
                    ? "left out until the host serves, then tried again as an upgrade, on trial"
                    : "left out until its file changes"
                leftOut.append(LeftOutPlugin(name: candidate.name, file: candidate.file, reason: "\(exclusion.reason); \(until)"))
            }
        }
        // What requires a plugin left out is left out too, transitively.
        let gone = Set(leftOut.map(\.name)).subtracting(selected.candidates.map(\.name))
        let dependents = Dependents.leaving(with: gone, among: selected.candidates, name: \.name, requires: \.manifest.requires)
        for (candidate, missing) in dependents {
            leftOut.append(LeftOutPlugin(name: candidate.name, file: candidate.file, reason: "requires \(missing), which is left out"))
        }
        let leaving = gone.union(dependents.map(\.plugin.name))
        selected.candidates.removeAll { leaving.contains($0.name) }
        return (selected, leftOut)
    }

    /// Every problem: unreadable or unsafe files and directories, bad manifests, graph problems.
    var problems: [Problem] { scan.problems + resolution.problems }

    /// The problems of the plugin directories themselves (unreadable, unsafe), rather than
    /// of the files in them.
    var directoryProblems: [Problem] {
        scan.problems.filter { problem in problem.file.map(searchPath.directories.contains) ?? true }
    }

    /// One line per plugin file: the plugins in bootstrap order, then the files that are
    /// not plugins this host can use.
    var entries: [Entry] {
        let ordered = resolution.order.map { candidate in
            Entry(file: candidate.file, candidate: candidate, problem: resolution.failures[candidate.name]?.message)
        }
        let duplicates = problems.filter { $0.code == .duplicateName }.compactMap { problem -> [Entry]? in
            guard let name = problem.plugin else { return nil }
            return scan.candidates.filter { $0.name == name && !resolution.order.contains($0) }
                .map { Entry(file: $0.file, candidate: $0, problem: problem.message) }
        }.flatMap { $0 }
        let unusable = scan.problems.filter { $0.file != nil }.map { Entry(file: $0.file!, candidate: nil, problem: $0.message) }
        return ordered + duplicates + unusable
    }

    /// A plugin file and what is known of it.
    struct Entry {
        let file: String
        /// The plugin, when its manifest could be read.
        let candidate: PluginCandidate?
        /// Why it would not bootstrap, or `nil` when it would (as far as can be known).
        let problem: String?
    }

    /// Notes for the operator: which file is used for a name that several directories hold.
    var shadowingNotes: [String] {
        scan.candidates.filter { !$0.shadowed.isEmpty }.map { candidate in
            "plugin \(candidate.name): using \(candidate.file); shadowed: \(candidate.shadowed.joined(separator: ", "))"
        }
    }
}
