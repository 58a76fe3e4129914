import PluginABI

/// A fixture component that does nothing but exist.
public final class CycleBComponent: Bootstrapping {
    public init() {}
    public func bootstrap(_ bootstrapped: Bootstrapped) throws {}
}

@c(plugin_host_bootstrapping)
public func pluginHostBootstrapping() -> UnsafeMutableRawPointer {
    PluginEntryPoint.export(CycleBComponent())
}
