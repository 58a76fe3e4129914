/// `plugin-host check`: resolves the graph and reports every problem, without loading
/// anything. Exit 0 when the plugins would bootstrap (as far as can be known without
/// running their code), 1 otherwise: for a CI step or a package's post-install script.
struct CheckCommand {
    let options: SearchOptions

    func run() -> ExitStatus {
        let survey = PluginSurvey(options)
        let problems = survey.problems
        Console.direct.write(Diagnostics.text(notes: survey.shadowingNotes, problems: problems), to: .error)
        guard problems.isEmpty else {
            Console.direct.write(
                "check failed: \(problems.count) problem\(problems.count == 1 ? "" : "s") in \(survey.searchPath.description)\n", to: .output)
            return .failure
        }
        let order = survey.resolution.order.map(\.name)
        Console.direct.write(
            "check passed: \(order.count) plugin\(order.count == 1 ? "" : "s") in \(survey.searchPath.description) would bootstrap in this order: "
                + (order.isEmpty ? "(none)" : order.joined(separator: ", ")) + "\n", to: .output)
        return .success
    }
}
