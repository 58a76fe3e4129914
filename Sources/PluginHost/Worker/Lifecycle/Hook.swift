/// A call the host makes into components after the chain, as the operator reads its
/// failures: how each hook's outcome becomes a problem is said here, and only here.
enum Hook {
    /// ``PluginABI/Readiness``; `consequence` says what the host does about a component
    /// that does not get ready: `stopping`, `removing it`.
    case readiness(consequence: String)
    case drain
    /// ``PluginABI/HandOff``: a component hands the next build what it holds.
    case handOff
    case shutdown
    /// ``PluginABI/ReloadCheck``: a component checks its new settings.
    case reloadCheck
    /// ``PluginABI/Reload``: a component applies them.
    case reloadApply
    /// ``PluginABI/PluginAdded`` or ``PluginABI/PluginRemoved``; `news` is what it hears:
    /// `that plugin Metrics was added`.
    case change(news: String)
    /// A service's `run()`: it may fail while it runs; `consequence` says what the host does.
    case service(consequence: String)
    /// A service's task once cancelled, until its `run()` returns.
    case serviceStop

    /// The option that bounds the hook, as messages name it.
    private var limitOption: String {
        switch self {
        case .drain, .handOff, .shutdown, .serviceStop: "--shutdown-timeout"
        default: "--timeout"
        }
    }

    /// The problem of `plugin`'s call that ended with `outcome`, or `nil` when it finished.
    ///
    /// - Parameter limit: How long the call could take.
    func problem(of plugin: RunningPlugin, _ outcome: PluginCallOutcome, limit: Duration?) -> Problem? {
        let label = "plugin \(plugin.label)"
        let within = "within \(TextFormat.seconds(limit ?? .zero)) (\(limitOption))"
        let (code, message): (Problem.Code, String)
        switch (self, outcome) {
        case (_, .finished):
            return nil
        case (.readiness(let consequence), .failed(let error)):
            (code, message) = (.notReady, "\(label) did not get ready: \(error); \(consequence)")
        case (.readiness(let consequence), .overran):
            (code, message) = (.notReady, "\(label) did not get ready \(within); \(consequence)")
        case (.drain, .failed(let error)):
            (code, message) = (.drainFailed, "\(label) failed to drain: \(error)")
        case (.drain, .overran):
            (code, message) = (.drainFailed, "\(label) did not finish draining \(within); skipped")
        case (.handOff, .failed(let error)):
            (code, message) = (.shutdownFailed, "\(label) failed to hand over what it holds: \(error); nothing of it is handed over")
        case (.handOff, .overran):
            (code, message) = (.shutdownTimedOut, "\(label) did not hand over what it holds \(within); nothing of it is handed over")
        case (.shutdown, .failed(let error)):
            (code, message) = (.shutdownFailed, "\(label) failed to shut down: \(error)")
        case (.shutdown, .overran):
            (code, message) = (.shutdownTimedOut, "\(label) did not shut down \(within); skipped")
        case (.reloadCheck, .failed(let error)):
            (code, message) = (.reloadFailed, "\(label) refused the new settings: \(error)")
        case (.reloadCheck, .overran):
            (code, message) = (.reloadFailed, "\(label) did not finish checking the new settings \(within); left running")
        case (.reloadApply, .failed(let error)):
            (code, message) = (.reloadFailed, "\(label) accepted the new settings but failed to apply them: \(error)")
        case (.reloadApply, .overran):
            (code, message) = (.reloadFailed, "\(label) did not finish applying its new settings \(within); left running")
        case (.change(let news), .failed(let error)):
            (code, message) = (.reloadFailed, "\(label) failed on hearing \(news): \(error)")
        case (.change(let news), .overran):
            (code, message) = (.reloadFailed, "\(label) did not finish hearing \(news) in time; left running")
        case (.service(let consequence), .failed(let error)):
            (code, message) = (.serviceFailed, "service \(plugin.label) failed: \(error); \(consequence)")
        case (.service, .overran), (.serviceStop, .failed):
            return nil
        case (.serviceStop, .overran):
            (code, message) = (
                .shutdownTimedOut,
                "service \(plugin.label) did not stop within \(TextFormat.seconds(limit ?? .zero)) of being cancelled (\(limitOption)); left behind")
        }
        return plugin.candidate.problem(code, message)
    }
}
