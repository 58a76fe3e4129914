import PluginABI

/// What the host needs to add plugins while it runs: where to look, and how to load and
/// bootstrap.
struct PluginAdditions: Sendable {
    let search: SearchOptions
    /// Loads and bootstraps, with `--jobs` threads and `--timeout`.
    var runner: ChainRunner
}

extension LifecycleRunner {
    /// Scans the plugin directories again and brings the running host in line, one line on
    /// stderr per change:
    ///
    /// - a plugin whose file is gone is removed, after the plugins that require it: the
    ///   plugins that use it optionally hear ``PluginRemoved``, then they all drain, their
    ///   services stop and they shut down. Their code stays loaded (a Swift library is never
    ///   unloaded) until the host exits.
    /// - a new plugin file is checked as at start, against the running plugins; when it can
    ///   run, it is loaded and bootstrapped into a new chain (running components keep
    ///   theirs), its service starts, and the plugins that list it as optional hear
    ///   ``PluginAdded``. A file that cannot run is reported once, and changes nothing.
    /// - a running plugin's file that changed is not swapped: the host keeps what it loaded,
    ///   and says to restart it.
    ///
    /// - Returns: The problems of the plugins that were added or removed, also on stderr.
    func rescan() -> [Problem] {
        let survey = PluginSurvey(context.additions.search)
        let scanned = survey.scan.candidates
        let present = Set(scanned.flatMap { [$0.file] + $0.shadowed } + survey.scan.problems.compactMap(\.file))
        var problems = remove(members.filter { !present.contains($0.candidate.file) })

        let runningFiles = Dictionary(members.map { ($0.candidate.file, $0) }, uniquingKeysWith: { first, _ in first })
        let runningNames = Dictionary(members.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let reportedBefore = notAddedReported
        notAddedReported = []
        var fresh: [PluginCandidate] = []
        for candidate in scanned {
            if let member = runningFiles[candidate.file] {
                if !member.candidate.isUnchanged(comparedTo: candidate) { warnChangedOnce(member, candidate.status) }
            } else if let member = runningNames[candidate.name] {
                problems += notAdded(
                    candidate.problem(
                        .duplicateName, "\(candidate.file) declares plugin \(candidate.name), which is running from \(member.candidate.file); "
                            + "remove one of the two files"),
                    reportedBefore)
            } else {
                fresh.append(candidate)
            }
        }
        for problem in survey.scan.problems {
            if let member = problem.file.flatMap({ runningFiles[$0] }) {
                warnChangedOnce(member, nil)
            } else {
                problems += notAdded(problem, reportedBefore)
            }
        }
        if !fresh.isEmpty { problems += add(fresh, running: Set(runningNames.keys), reportedBefore) }
        link.enter(.running)
        return problems
    }

    /// Reports `problem` of a file that was not added, unless the last scan reported it
    /// already: a rescan says once what stays wrong.
    private func notAdded(_ problem: Problem, _ reportedBefore: Set<String>) -> [Problem] {
        let problem = Problem(problem.code, plugin: problem.plugin, file: problem.file, problem.message + "; not added")
        let key = "\(problem.file ?? problem.plugin ?? "")\n\(problem.message)"
        notAddedReported.insert(key)
        return reportedBefore.contains(key) ? [] : [report(problem)]
    }

    /// A running plugin's file was replaced or rewritten: the host keeps the code it loaded.
    /// Said once for each new state of the file.
    private func warnChangedOnce(_ member: Member, _ status: FileStatus?) {
        let key = "\(member.candidate.file)\n\(status.map { "\($0.device) \($0.inode) \($0.size) \($0.modificationTime)" } ?? "unreadable")"
        guard changesReported.insert(key).inserted else { return }
        say("warning: the file of plugin \(member.candidate.label) changed on disk; the host keeps running the version it loaded: "
            + "restart the host to use the new one")
    }

    /// Loads and bootstraps `fresh` plugins into the running chain, those it can.
    private func add(_ fresh: [PluginCandidate], running: Set<String>, _ reportedBefore: Set<String>) -> [Problem] {
        var problems: [Problem] = []
        let freshNames = Set(fresh.map(\.name))
        // What a new plugin requires must run, or come with it.
        var candidates: [PluginCandidate] = []
        for candidate in fresh {
            if let missing = candidate.manifest.requires.first(where: { !running.contains($0) && !freshNames.contains($0) }) {
                problems += notAdded(
                    candidate.problem(.pluginNotAdded, "plugin \(candidate.label) requires \(missing), which is not running"), reportedBefore)
            } else {
                candidates.append(candidate)
            }
        }
        // Checked as at start, with the running plugins: the graph, the ABI, what it links.
        let resolution = DependencyResolver(abiVersion: PluginABIVersion.current)
            .resolve(members.map(\.candidate) + candidates)
        let adding = Set(candidates.map(\.name))
        for problem in resolution.problems where problem.plugin.map(adding.contains) ?? false {
            problems += notAdded(problem, reportedBefore)
        }
        let positions = resolution.order.indices.filter { adding.contains(resolution.order[$0].name) }
        guard !positions.isEmpty else { return problems }
        var numbers = [Int](repeating: -1, count: resolution.order.count)
        for (number, position) in positions.enumerated() { numbers[position] = number }
        var edges: [DependencyGraph.Edge] = []
        for position in positions {
            for dependency in resolution.graph.dependencies(of: position) where numbers[dependency] >= 0 {
                edges.append(DependencyGraph.Edge(node: numbers[position], dependency: numbers[dependency]))
            }
        }
        var subset = DependencyResolver.Resolution()
        subset.order = positions.map { resolution.order[$0] }
        subset.graph = DependencyGraph(count: positions.count, edges: edges)
        subset.failures = resolution.failures.filter { adding.contains($0.key) }

        guard let first = link.publish(plugins: subset.order.map(\.label)) else {
            return problems + [report(Problem(
                .pluginNotAdded, file: nil, "\(subset.order.count) more plugins are more than the host can track; restart it to add them"))]
        }
        var runner = context.additions.runner
        runner.settings = settings
        runner.keepGoing = true
        let outcome = runner.run(subset, onto: chain, numberedFrom: first)
        for problem in outcome.problems where subset.failures[problem.plugin ?? ""] == nil {
            problems += notAdded(problem, reportedBefore)
        }
        let added = outcome.plugins.enumerated().compactMap { position, plugin -> Member? in
            guard plugin.status == .bootstrapped, let component = plugin.component else { return nil }
            return Member(index: first + position, candidate: plugin.candidate, component: component, lifecycle: plugin.lifecycle)
        }
        guard !added.isEmpty else { return problems }
        chain = outcome.bootstrapped
        members += added
        link.enter(.running)
        startServices(of: added)
        let unready = awaitReadiness(of: added, consequence: "removing it")
        problems += unready.map(\.problem)
        if !unready.isEmpty { problems += remove(unready.map(\.member)) }
        for member in added where !unready.contains(where: { $0.member.index == member.index }) {
            say("added plugin \(member.candidate.label)")
            link.notify("STATUS=Added plugin \(member.name); \(status())")
        }
        // The plugins that use one of them optionally learn of it, with a view that holds it.
        for member in added {
            let listeners = members.filter { $0.candidate.manifest.optional.contains(member.name) }
            let outcomes = deliver(PluginAdded.self, to: listeners, phase: .change, within: context.timeout) { listener in
                PluginAdded(
                    name: member.name,
                    bootstrapped: chain.view(
                        for: listener.candidate.manifest.identity, settings: settings[listener.name], lifecycle: listener.lifecycle))
            }
            problems += changeProblems(outcomes, hearing: "that plugin \(member.name) was added")
        }
        return problems
    }

    /// Removes `gone` and the plugins that require them, dependents first.
    private func remove(_ gone: [Member]) -> [Problem] {
        guard !gone.isEmpty else { return [] }
        var leaving = Set(gone.map(\.name))
        for member in members where !leaving.contains(member.name) {
            if let required = member.candidate.manifest.requires.first(where: leaving.contains) {
                leaving.insert(member.name)
                say("plugin \(member.candidate.label) stops too: it requires \(required), which is leaving")
            }
        }
        let removed = members.filter { leaving.contains($0.name) }
        let staying = members.filter { !leaving.contains($0.name) }
        var problems: [Problem] = []
        for member in removed.reversed() {
            let listeners = staying.filter { $0.candidate.manifest.optional.contains(member.name) }
            let outcomes = deliver(PluginRemoved.self, to: listeners, phase: .change, within: context.shutdownTimeout) { _ in
                PluginRemoved(name: member.name)
            }
            problems += changeProblems(outcomes, hearing: "that plugin \(member.name) is leaving")
        }
        problems += drain(removed) + stopServices(of: removed) + shutDown(removed)
        chain = chain.removing(leaving)
        members = staying
        for member in removed {
            say("removed plugin \(member.candidate.label): drained and shut down; its code stays loaded until the host exits")
            link.notify("STATUS=Removed plugin \(member.name); \(status())")
        }
        return problems
    }

    /// The failures of a ``PluginAdded`` or ``PluginRemoved`` delivery, reported.
    private func changeProblems(_ outcomes: [(member: Member, outcome: PluginCallOutcome, answer: Void?)], hearing what: String) -> [Problem] {
        outcomes.compactMap { member, outcome, _ in
            switch outcome {
            case .finished: return nil
            case .failed(let error):
                return report(member.candidate.problem(.reloadFailed, "plugin \(member.candidate.label) failed on hearing \(what): \(error)"))
            case .overran:
                return report(member.candidate.problem(
                    .reloadFailed, "plugin \(member.candidate.label) did not finish hearing \(what) in time; left running"))
            }
        }
    }
}
