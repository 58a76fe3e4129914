import Domain
import PluginABI

/// Peels bananas in a loop, each peel an atomic rewrite of the store: the target of the
/// tests that kill the host in the middle of store writes. Setting `peels` (default 1).
public final class HammerComponent: Bootstrapping {
    public init(_ bootstrapped: Bootstrapped) throws {
        let peeler = try bootstrapped.component(BananaPeeling.self)
        let peels = try bootstrapped.settings.integer("peels") ?? 1
        for _ in 0..<peels { _ = try peeler.peelNext() }
    }
}

@c(plugin_host_bootstrapping)
public func pluginHostBootstrapping() -> UnsafeMutableRawPointer {
    PluginEntryPoint.export(HammerComponent.self)
}
