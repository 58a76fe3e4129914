/// What happened to one plugin in a run.
struct PluginOutcome: Equatable, Sendable {
    enum Status: String, Equatable, Sendable {
        case bootstrapped
        case failed
        case notRun = "not-run"
    }

    let candidate: PluginCandidate
    var status: Status
    /// Why the plugin failed or did not run.
    var reason: String?
    /// Time spent in `dlopen` and the entry point.
    var loadDuration: Duration = .zero
    /// Time spent in the component's bootstrap.
    var bootstrapDuration: Duration = .zero

    var totalDuration: Duration { loadDuration + bootstrapDuration }
}

extension Duration {
    /// The duration in milliseconds, with microsecond precision.
    var milliseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }
}
