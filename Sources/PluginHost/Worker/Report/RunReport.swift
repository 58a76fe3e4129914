/// Everything a run has to tell the operator: what happened to each plugin, in bootstrap
/// order, and every problem.
struct RunReport: Sendable {
    /// The plugin directory, as given.
    var directory: String
    var plugins: [PluginOutcome] = []
    var problems: [Problem] = []
    /// Files a host that watches did not add (not plugins, unsafe, a bad manifest, a graph
    /// problem): reported, and left alone until they change; they do not fail the run.
    var notAdded: [Problem] = []
    /// Things that do not stop the run but are probably mistakes.
    var warnings: [String] = []
    /// Mistakes in the configuration: unknown plugins, keys no plugin reads. The supervisor
    /// says them once for every generation that finds them, so the text report leaves them
    /// out; the JSON report lists them with the warnings.
    var settingsWarnings: [String] = []
    /// Things worth knowing, such as which file of several with one name is used.
    var notes: [String] = []
    /// Wall time of the whole run, from reading the configuration to the end of the chain.
    var duration: Duration = .zero

    /// The worker generation that ran: 1 for the first, counting up with every restart and
    /// upgrade.
    var generation = 1
    /// The plugins the generation left out (a build that crashed or failed while the host
    /// served, and those that require it), with why.
    var leftOut: [LeftOutPlugin] = []

    /// Whether SIGINT or SIGTERM arrived before the chain was complete.
    var stoppedBySignal = false

    var succeeded: Bool { problems.isEmpty }
}
