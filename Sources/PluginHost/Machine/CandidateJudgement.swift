/// How the machine judges an upgrade's new worker (a candidate) by what it reported, before
/// it may bootstrap and before it may serve.
extension CandidateReport {
    /// The first plugin (by name) of `before`, the builds that run now, that the candidate
    /// cannot run though it found its file: the file did not load or bootstrap, or is no
    /// plugin now. A plugin whose file is gone was removed, and is not lost. `nil` when none.
    func firstLost(of before: [PublishedPlugin]) -> (name: String, number: PluginNumber?)? {
        let runs = Set(running.map(\.name))
        let unusable = Set(unusableFiles)
        let failedByName = Dictionary(failed.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for build in before.sorted(by: { $0.name < $1.name }) where !runs.contains(build.name) {
            if let failed = failedByName[build.name] { return (failed.name, failed.number) }
            if unusable.contains(build.file) { return (build.name, nil) }
        }
        return nil
    }

    /// Whether it may bootstrap beside the serving generation: every plugin it loaded allows
    /// it (`"upgrade": "beside"`), and it loaded one.
    var bootstrapsBeside: Bool {
        !running.isEmpty && running.allSatisfy { $0.upgrade == .beside }
    }
}
