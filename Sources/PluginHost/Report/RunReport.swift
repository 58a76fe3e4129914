/// Everything a run has to tell the operator: what happened to each plugin, in bootstrap
/// order, and every problem.
struct RunReport: Equatable {
    /// The plugin directory, as given.
    var directory: String
    var plugins: [PluginOutcome] = []
    var problems: [Problem] = []
    /// Things that do not stop the run but are probably mistakes.
    var warnings: [String] = []
    /// Wall time of the whole run, from reading the configuration to the end of the chain.
    var duration: Duration = .zero

    var succeeded: Bool { problems.isEmpty }
}
