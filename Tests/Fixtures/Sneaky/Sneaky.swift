import Persistence
import PluginABI

/// Links libPersistence.so and uses its store without declaring Persistence in its
/// manifest: refused before anything loads when Persistence is installed; fails inside
/// `dlopen` when it is not.
public final class SneakyComponent: Bootstrapping {
    public init(_ bootstrapped: Bootstrapped) throws {
        _ = try bootstrapped.component(BananaStoring.self)
    }
}

@c(plugin_host_bootstrapping)
public func pluginHostBootstrapping() -> UnsafeMutableRawPointer {
    PluginEntryPoint.export(SneakyComponent.self)
}
