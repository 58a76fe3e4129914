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

    /// Whether it would run exactly the builds of `before`, as it published them
    /// (`published`): what it was to bring (a plugin dropped in, another build) did not load
    /// or bootstrap in it, and nothing leaves, so taking over would change nothing.
    func changesNothing(of before: [PublishedPlugin], published: [PublishedPlugin]) -> Bool {
        let builds = running.compactMap { plugin in plugin.number.flatMap { published[number: $0] } }
        guard builds.count == running.count, builds.count == before.count else { return false }
        return builds.allSatisfy { build in before.contains { $0.isSameBuild(as: build) } }
    }

    /// Whether it may bootstrap beside the serving generation, which runs `before`: it loaded a
    /// plugin, and every plugin it loaded that also runs in the serving generation allows it
    /// (`"upgrade": "beside"`). A plugin new to the host has no instance running to share
    /// what it holds with, so its own order does not hold the others back.
    func bootstrapsBeside(of before: [PublishedPlugin]) -> Bool {
        !running.isEmpty && running.allSatisfy { plugin in plugin.upgrade == .beside || !before.contains { $0.name == plugin.name } }
    }
}
