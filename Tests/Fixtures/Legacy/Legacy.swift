import PluginABI

/// Built against the interface of ABI 1.0 as first published (Tests/Baselines), which has
/// only the synchronous bootstrap: proves that plugins built before the asynchronous
/// bootstrap and the shutdown hook existed still load and run.
public final class LegacyComponent: Bootstrapping {
    public init() {}

    public func bootstrap(_ bootstrapped: Bootstrapped) throws {
        print("Legacy: bootstrapped through the ABI 1.0 interface")
    }
}

@c(plugin_host_bootstrapping)
public func pluginHostBootstrapping() -> UnsafeMutableRawPointer {
    PluginEntryPoint.export(LegacyComponent())
}
