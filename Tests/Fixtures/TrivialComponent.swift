import PluginABI

/// The component of every fixture whose directory holds only a manifest: it does nothing
/// but exist, for tests of the dependency graph.
public final class TrivialComponent: Bootstrapping {
    public init() {}
    public func bootstrap(_ bootstrapped: Bootstrapped) throws {}
}

@c(plugin_host_bootstrapping)
public func pluginHostBootstrapping() -> UnsafeMutableRawPointer {
    PluginEntryPoint.export(TrivialComponent())
}
