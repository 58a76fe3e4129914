import PluginABI

/// What can be known about the plugins of a search path without running any of their code:
/// every manifest, the bootstrap order, and every problem. `list`, `check` and `graph` are
/// views of it; so is the first half of a run.
struct PluginSurvey {
    let searchPath: PluginSearchPath
    let scan: PluginDirectory.Scan
    let resolution: DependencyResolver.Resolution

    /// Scans and resolves; opens files only to read their ELF headers and manifests.
    init(_ options: SearchOptions) {
        searchPath = PluginSearchPath(options)
        scan = searchPath.scan()
        resolution = DependencyResolver(abiVersion: PluginABIVersion.current).resolve(scan.candidates)
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
