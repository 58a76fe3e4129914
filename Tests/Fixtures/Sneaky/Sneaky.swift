import Persistence
import PluginABI

/// Uses Persistence without declaring it: must fail with "expected component not found",
/// although Persistence is bootstrapped before it.
public final class SneakyComponent: Bootstrapping {
    public init() {}

    public func bootstrap(_ bootstrapped: Bootstrapped) throws {
        _ = try bootstrapped.component(PersistenceBootstrapping.self)
    }
}

@c(plugin_host_bootstrapping)
public func pluginHostBootstrapping() -> UnsafeMutableRawPointer {
    PluginEntryPoint.export(SneakyComponent())
}
