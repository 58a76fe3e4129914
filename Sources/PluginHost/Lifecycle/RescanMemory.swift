/// What the rescans of one worker remember from one to the next: which builds to leave
/// out, which plugins are left out now, what this worker has loaded (a Swift library is
/// never unloaded, so its path or name cannot be loaded afresh here), which changes it has
/// asked a new generation for, and what it has reported already, so that it says once
/// what stays wrong.
struct RescanMemory {
    /// The builds to leave out, as the supervisor's plan gave them: for this worker's life (a
    /// reload does not bring them back; a new generation's plan says what is left out then).
    let builds: BuildSelection<String>
    /// The plugins left out now, with why.
    var leftOut: [LeftOutPlugin]
    /// The builds whose code this worker loaded, by plugin name and by path.
    private var loadedByName: [String: FileIdentity] = [:]
    private var loadedByPath: [String: FileIdentity] = [:]
    /// The builds of changed files a new generation was asked to take up.
    private var upgradesAsked: Set<FileIdentity> = []
    /// The files not added at the last scan, each with why, reported already.
    var notAddedReported: Set<String>
    /// The problems of the files not added at the last scan.
    var notAddedProblems: [Problem]
    /// The files of running plugins that changed into something unusable, reported already.
    var changesReported: Set<String> = []
    /// The running plugins whose file holds a new build that is not taken up because it
    /// would leave a plugin outside its `requiredVersions`, with why, by plugin name.
    var upgradesRefused: [String: LeftOutPlugin] = [:]

    /// - Parameter notAdded: The files the generation's start did not add, reported already.
    init(builds: BuildSelection<String>, leftOut: [LeftOutPlugin], notAdded: [Problem]) {
        self.builds = builds
        self.leftOut = leftOut
        notAddedReported = Set(notAdded.map { "\($0.file ?? $0.plugin ?? "")\n\($0.message); not added" })
        notAddedProblems = notAdded
    }

    /// The files not added at the last scan, as `STATUS=` names them: `libBroken.so`.
    var notAddedFiles: [String] {
        Set(notAddedReported.compactMap { key in
            key.split(separator: "\n").first.flatMap { $0.split(separator: "/").last }.map(String.init)
        }).sorted()
    }

    /// Remembers that the code of `plugins` was loaded in this worker.
    mutating func recordLoaded(_ plugins: [PluginCandidate]) {
        for plugin in plugins {
            guard let identity = plugin.status?.identity else { continue }
            loadedByName[plugin.name] = identity
            loadedByPath[plugin.path] = identity
        }
    }

    /// Whether another build than `candidate`'s was loaded in this worker under its name or
    /// from its path: `dlopen` would hand back the code loaded then, not the file's.
    func loadedOtherBuild(than candidate: PluginCandidate) -> Bool {
        guard let identity = candidate.status?.identity else { return false }
        return [loadedByName[candidate.name], loadedByPath[candidate.path]].contains { $0 != nil && $0 != identity }
    }

    /// Records that a new generation was asked to take up the build `identity`; whether it
    /// had not been asked already.
    mutating func askUpgrade(for identity: FileIdentity) -> Bool {
        upgradesAsked.insert(identity).inserted
    }
}
