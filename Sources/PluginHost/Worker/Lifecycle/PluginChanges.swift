import PluginABI

extension LifecycleRunner {
    /// Scans the plugin directories again and tells the supervisor what changed, one line on
    /// stderr per change. This worker runs no new code: every plugin that comes in comes with
    /// a new worker generation, which the supervisor decides.
    ///
    /// - a plugin file that is new (dropped in), or whose code cannot be taken up in this
    ///   worker (a running plugin's file replaced or rewritten): a new worker generation is
    ///   asked for, which loads the plugin files beside this one, is judged by the supervisor,
    ///   and takes over only if it runs what it was to bring (see docs/operations.md). A new
    ///   file that cannot run by what it says (a requirement missing, a cycle, the wrong ABI)
    ///   is reported once as not added, and asks for nothing.
    /// - a plugin whose file is gone is told of, once: the supervisor has it removed in place
    ///   (``removeGone()``).
    ///
    /// - Returns: The problems of the plugins that were removed or not added, also on stderr.
    mutating func rescan() -> [Problem] {
        let survey = PluginSurvey(context.search, builds: rescans.builds)
        rescans.leftOut = survey.leftOut
        // A plugin directory that cannot be read is no plugin: it is a warning in force.
        link.tell(.warnings(topic: "plugin directories", survey.directoryProblems.map(\.message)))
        let scanned = survey.scan.candidates
        var problems: [Problem] = []
        // Plugins whose file is gone leave as the supervisor says (in place: ``removeGone()``).
        let present = Self.files(of: survey)
        let gone = Set(plugins.filter { !present.contains($0.candidate.file) }.map(\.name))
        if gone != rescans.goneTold {
            rescans.goneTold = gone
            if !gone.isEmpty { link.tell(.filesGone(gone.sorted())) }
        }
        let runningFiles = Dictionary(plugins.map { ($0.candidate.file, $0) }, uniquingKeysWith: { first, _ in first })
        let runningNames = Dictionary(plugins.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })

        let reportedBefore = rescans.notAddedReported
        rescans.notAddedReported = []
        rescans.notAddedProblems = []
        var fresh: [PluginCandidate] = []
        for candidate in scanned where runningFiles[candidate.file] == nil {
            if let plugin = runningNames[candidate.name] {
                problems += notAdded(
                    candidate.problem(
                        .duplicateName, "\(candidate.file) declares plugin \(candidate.name), which is running from \(plugin.candidate.file); "
                            + "remove one of the two files"),
                    reportedBefore)
            } else {
                fresh.append(candidate)
            }
        }
        let directoryProblems = survey.directoryProblems
        for problem in survey.scan.problems where !directoryProblems.contains(problem) {
            if let plugin = problem.file.flatMap({ runningFiles[$0] }) {
                warnUnusableOnce(plugin, problem)
            } else {
                problems += notAdded(problem, reportedBefore)
            }
        }
        let (adding, refused) = admissible(fresh, running: Set(runningNames.keys), installed: Set(scanned.map(\.name)))
        for problem in refused { problems += notAdded(problem, reportedBefore) }
        rescans.comingIn = adding
        requestUpgrade(for: scanned, adding: adding, runningFiles: runningFiles, runningNames: runningNames)
        link.enter(.running)
        return problems
    }

    /// Asks the supervisor for a new generation when a scanned file holds code this worker
    /// cannot take up: a running plugin's file replaced or rewritten, or a plugin new to it
    /// (`adding`). Builds asked for already are passed over.
    ///
    /// A new build that would leave a plugin requiring a version outside its
    /// `requiredVersions` (the new build's own requirements, or a plugin that requires it) is
    /// refused here, before anything is disturbed: the running builds serve on, and the
    /// refusal names both plugins, once for each new build.
    private mutating func requestUpgrade(
        for scanned: [PluginCandidate], adding: [PluginCandidate], runningFiles: [String: RunningPlugin], runningNames: [String: RunningPlugin]
    ) {
        var changes: [String] = []
        var refused: [String: LeftOutPlugin] = [:]
        defer { rescans.upgradesRefused = refused }
        let byName = Dictionary(scanned.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for candidate in scanned {
            guard let identity = candidate.status?.identity else { continue }
            if let plugin = runningFiles[candidate.file], plugin.name == candidate.name || runningNames[candidate.name] == nil {
                guard plugin.candidate.status?.identity != identity else { continue }
                // A build that would leave a plugin outside its versions is refused while its
                // file holds it: the status says so of the running plugin, the refusal once.
                let broken = Self.versionProblems(of: candidate, among: byName)
                if !broken.isEmpty {
                    let upgrade = "\(candidate.name) \(plugin.candidate.manifest.version) -> \(candidate.manifest.version)"
                    refused[plugin.name] = LeftOutPlugin(
                        name: plugin.name, file: candidate.file,
                        reason: "its file's build \(candidate.manifest.version) is not taken up: "
                            + broken.map(\.message).joined(separator: "; "))
                    guard rescans.askUpgrade(for: identity) else { continue }
                    for problem in broken {
                        _ = report(Problem(
                            problem.code, plugin: problem.plugin, file: problem.file,
                            problem.message + "; not upgrading \(upgrade): the running plugins keep serving"))
                    }
                    link.tell(.upgradeRefused(upgrade, reasons: broken.map(\.message)))
                    continue
                }
                guard rescans.askUpgrade(for: identity) else { continue }
                changes.append("the file of plugin \(plugin.label) changed (\(plugin.candidate.manifest.version) -> \(candidate.manifest.version))")
            }
        }
        // A plugin dropped in is brought in as a new build is: by a new worker, beside.
        for candidate in adding {
            guard let identity = candidate.status?.identity, rescans.askUpgrade(for: identity) else { continue }
            changes.append("plugin \(candidate.label) \(candidate.manifest.version) was added")
        }
        guard !changes.isEmpty else { return }
        say(changes.joined(separator: "; ") + ": starting a new worker that loads the plugin files beside the running plugins")
        link.requestUpgrade()
    }

    /// The plugins `candidate` would leave outside the versions they work with: its own
    /// requirements, and the plugins of `scanned` that require it.
    private static func versionProblems(of candidate: PluginCandidate, among scanned: [String: PluginCandidate]) -> [Problem] {
        var problems: [Problem] = []
        for (required, range) in candidate.manifest.requiredVersions.sorted(by: { $0.key < $1.key }) {
            if let found = scanned[required], !range.admits(found.manifest.version) {
                problems.append(DependencyResolver.outOfRange(found, range, of: candidate))
            }
        }
        for dependent in scanned.values.sorted(by: { $0.name < $1.name }) {
            if let range = dependent.manifest.requiredVersions[candidate.name], !range.admits(candidate.manifest.version) {
                problems.append(DependencyResolver.outOfRange(candidate, range, of: dependent))
            }
        }
        return problems
    }

    /// Reports `problem` of a file that was not added, unless the last scan reported it
    /// already: a rescan says once what stays wrong.
    private mutating func notAdded(_ problem: Problem, _ reportedBefore: Set<String>) -> [Problem] {
        let problem = Problem(problem.code, plugin: problem.plugin, file: problem.file, problem.message + "; not added")
        let key = "\(problem.file ?? problem.plugin ?? "")\n\(problem.message)"
        rescans.notAddedReported.insert(key)
        rescans.notAddedProblems.append(problem)
        return reportedBefore.contains(key) ? [] : [report(problem)]
    }

    /// A running plugin's file was replaced by something the host cannot use: it keeps the
    /// code it loaded. Said once for each new problem.
    private mutating func warnUnusableOnce(_ plugin: RunningPlugin, _ problem: Problem) {
        guard rescans.changesReported.insert("\(plugin.candidate.file)\n\(problem.message)").inserted else { return }
        say("warning: the file of plugin \(plugin.label) changed on disk into one the host cannot use (\(problem.message)); "
            + "the host keeps running the build it loaded")
    }

    /// The plugins of `fresh` a new worker can bring in beside the running ones, by what their
    /// files say (no plugin code runs here): each plugin it requires runs or comes with it,
    /// and the graph with the running plugins holds. The others, with why.
    private func admissible(_ fresh: [PluginCandidate], running: Set<String>, installed: Set<String>) -> ([PluginCandidate], [Problem]) {
        var refused: [Problem] = []
        let freshNames = Set(fresh.map(\.name))
        var candidates: [PluginCandidate] = []
        for candidate in fresh {
            if let missing = candidate.manifest.requires.first(where: { !running.contains($0) && !freshNames.contains($0) }) {
                // In the words the start uses when it is not there at all.
                refused.append(installed.contains(missing)
                    ? candidate.problem(.pluginNotAdded, "plugin \(candidate.label) requires \(missing), which is not running")
                    : DependencyResolver.missing(missing, of: candidate))
            } else {
                candidates.append(candidate)
            }
        }
        guard !candidates.isEmpty else { return ([], refused) }
        // Checked as at start, with the running plugins: cycles, versions, the ABI.
        let resolution = DependencyResolver(abiVersion: PluginABIVersion.current).resolve(plugins.map(\.candidate) + candidates)
        let names = Set(candidates.map(\.name))
        let graph = resolution.problems.filter { problem in problem.plugin.map(names.contains) ?? false }
        let blocked = Set(graph.compactMap(\.plugin))
        return (candidates.filter { !blocked.contains($0.name) }, refused + graph)
    }

    /// Every file a survey found, plugin or not: a running plugin whose file is not among them
    /// is gone.
    private static func files(of survey: PluginSurvey) -> Set<String> {
        Set(survey.scan.candidates.flatMap { [$0.file] + $0.shadowed } + survey.scan.problems.compactMap(\.file) + survey.leftOut.map(\.file))
    }

    /// Removes, as the supervisor said, the running plugins whose files are gone now, with the
    /// plugins that require them.
    mutating func removeGone() -> [Problem] {
        let present = Self.files(of: PluginSurvey(context.search, builds: rescans.builds))
        rescans.goneTold = []
        return remove(plugins.filter { !present.contains($0.candidate.file) })
    }

    /// Removes `gone` and the plugins that require them, dependents first.
    mutating func remove(_ gone: [RunningPlugin]) -> [Problem] {
        guard !gone.isEmpty else { return [] }
        let dependents = Dependents.leaving(with: Set(gone.map(\.name)), among: plugins, name: \.name, requires: \.candidate.manifest.requires)
        for (plugin, required) in dependents { say("plugin \(plugin.label) stops too: it requires \(required), which is leaving") }
        let leaving = Set(gone.map(\.name) + dependents.map(\.plugin.name))
        let removed = plugins.filter { leaving.contains($0.name) }
        let staying = plugins.filter { !leaving.contains($0.name) }
        var problems: [Problem] = []
        for plugin in removed.reversed() {
            let listeners = staying.filter { $0.candidate.manifest.optional.contains(plugin.name) }
            problems += delivery.call(.change(news: "that plugin \(plugin.name) is leaving"), PluginRemoved.self, to: listeners,
                                      phase: .change, within: context.shutdownTimeout) { _ in PluginRemoved(name: plugin.name) }.map(report)
        }
        problems += drain(removed) + stopServices(of: removed) + shutDown(removed)
        leave(leaving)
        for plugin in removed {
            say("removed plugin \(plugin.label): drained and shut down; its code stays loaded until the worker ends")
            announce(.status("Removed plugin \(plugin.name)"))
        }
        return problems
    }
}
