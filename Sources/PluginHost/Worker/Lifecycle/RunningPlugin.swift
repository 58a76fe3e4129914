import PluginABI

/// A plugin whose component bootstrapped and runs in this worker.
struct RunningPlugin: Sendable {
    /// The plugin's number in the supervision page.
    let number: PluginNumber
    let candidate: PluginCandidate
    let component: any Bootstrapping
    /// What the component registered while it bootstrapped.
    let lifecycle: PluginABI.Lifecycle

    var name: String { candidate.name }
    var label: String { candidate.label }
}
