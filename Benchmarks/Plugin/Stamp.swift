import PluginABI

/// The component stamped out N times by the start-up benchmark: it bootstraps and does
/// nothing else, so that what a run costs beyond the floor is the host's, not the plugin's.
public final class StampComponent: Bootstrapping {
    public init(_ bootstrapped: Bootstrapped) {}
}

@c(plugin_host_bootstrapping)
public func pluginHostBootstrapping() -> UnsafeMutableRawPointer {
    PluginEntryPoint.export(StampComponent.self)
}
