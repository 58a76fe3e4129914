/// What the rescans of one worker remember from one to the next: which builds to leave
/// out, which plugins are left out now, which changes it has asked a new generation for,
/// and what it has reported already, so that it says once what stays wrong.
struct RescanMemory {
    /// The builds to leave out, as the supervisor's plan gave them: for this worker's life (a
    /// reload does not bring them back; a new generation's plan says what is left out then).
    let builds: BuildSelection<String>
    /// The plugins left out now, with why.
    var leftOut: [LeftOutPlugin]
    /// The builds of new or changed files a new generation was asked to take up.
    private var upgradesAsked: Set<FileIdentity> = []
    /// The files not added at the last scan, each with why, reported already.
    var notAddedReported: Set<String>
    /// The problems of the files not added at the last scan.
    var notAddedProblems: [Problem]
    /// The files of running plugins that changed into something unusable, reported already.
    var changesReported: Set<String> = []
    /// The running plugins whose files are gone, as last told to the supervisor.
    var goneTold: Set<String> = []
    /// The plugins new to this worker that a new generation was asked to bring in, with their
    /// files, as the last scan found them.
    var comingIn: [PluginCandidate] = []
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

    /// Records that a new generation was asked to take up the build `identity`; whether it
    /// had not been asked already.
    mutating func askUpgrade(for identity: FileIdentity) -> Bool {
        upgradesAsked.insert(identity).inserted
    }
}
