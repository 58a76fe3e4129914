import PluginABI

/// What happened to one plugin in a run.
struct PluginOutcome: Sendable {
    enum Status: String, Equatable, Sendable {
        case bootstrapped
        case failed
        case notRun = "not-run"
    }

    let candidate: PluginCandidate
    var status: Status
    /// Why the plugin failed or did not run.
    var reason: String?
    /// The component type, once loaded.
    var componentType: (any Bootstrapping.Type)?
    /// The component, once bootstrapped.
    var component: (any Bootstrapping)?
    /// What the component registered for later while it bootstrapped.
    let lifecycle = PluginABI.Lifecycle()
    /// When loading started, and when bootstrapping started and finished, measured from
    /// the start of the host.
    var loadStarted: Duration?
    var bootstrapStarted: Duration?
    var bootstrapFinished: Duration?
    /// Time spent in `dlopen` and the entry point.
    var loadDuration: Duration = .zero
    /// Time spent in the component's bootstrap.
    var bootstrapDuration: Duration = .zero

    init(candidate: PluginCandidate, status: Status) {
        self.candidate = candidate
        self.status = status
    }

    var totalDuration: Duration { loadDuration + bootstrapDuration }
}

extension Duration {
    /// The duration in milliseconds, with microsecond precision.
    var milliseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }
}
