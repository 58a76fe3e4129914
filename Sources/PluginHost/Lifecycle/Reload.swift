import PluginABI

extension LifecycleRunner {
    /// Reads the configuration file again and gives every component that handles reloads
    /// its new settings in two steps, in bootstrap order: each checks them
    /// (``ReloadCheck``); only when every one accepted do they all apply them (``Reload``).
    ///
    /// - Returns: The refusals, or the applications that failed or overran, also reported
    ///   on stderr. After a refusal nothing changed anywhere.
    func reload() -> [Problem] {
        let read: [String: Settings]
        switch context.readConfiguration() {
        case .failure(let problem):
            return [report(Problem(problem.code, plugin: nil, file: problem.file, "reload refused: \(problem.message); nothing was reloaded"))]
        case .success(let settings):
            read = settings
        }
        func own(_ member: Member) -> Settings { read[member.name] ?? Settings([:], for: member.name) }
        let timeout = TextFormat.seconds(context.timeout ?? .zero)

        let refusals = deliver(ReloadCheck.self, to: members, phase: .reload, within: context.timeout) { ReloadCheck(settings: own($0)) }
            .compactMap { member, outcome, _ -> Problem? in
                let label = member.candidate.label
                switch outcome {
                case .finished: return nil
                case .failed(let error):
                    return member.candidate.problem(.reloadFailed, "plugin \(label) refused the new settings: \(error)")
                case .overran:
                    return member.candidate.problem(
                        .reloadFailed, "plugin \(label) did not finish checking the new settings within \(timeout) (--timeout); left running")
                }
            }
        guard refusals.isEmpty else {
            let problems = refusals.map(report)
            say("reload refused by \(refusals.compactMap(\.plugin).joined(separator: ", ")); nothing was reloaded: every plugin keeps its settings")
            return problems
        }

        settings = read
        var problems: [Problem] = []
        var reloaded: [String] = []
        for (member, outcome, _) in deliver(Reload.self, to: members, phase: .reload, within: context.timeout, { Reload(settings: own($0)) }) {
            let label = member.candidate.label
            switch outcome {
            case .finished:
                reloaded.append(member.name)
            case .failed(let error):
                problems.append(report(member.candidate.problem(
                    .reloadFailed, "plugin \(label) accepted the new settings but failed to apply them: \(error)")))
            case .overran:
                problems.append(report(member.candidate.problem(
                    .reloadFailed, "plugin \(label) did not finish applying its new settings within \(timeout) (--timeout); left running")))
            }
        }
        say("reloaded \(reloaded.isEmpty ? "no plugins" : reloaded.joined(separator: ", "))")
        return problems
    }
}
