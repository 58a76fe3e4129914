import PluginABI

/// Built against the interface of ABI 2.0 as first published (Tests/Baselines), not the
/// current one: proves that plugins built before later additions still load and run.
public final class LegacyComponent: Bootstrapping {
    public init(_ bootstrapped: Bootstrapped) throws {
        print("Legacy: bootstrapped through the ABI 2.0 interface")
    }
}

@c(plugin_host_bootstrapping)
public func pluginHostBootstrapping() -> UnsafeMutableRawPointer {
    PluginEntryPoint.export(LegacyComponent.self)
}
