import Domain
import PluginABI

/// A plugin dropped in after the host was built: obtains Domain's peeler through the chain.
public final class RipenerComponent: Bootstrapping {
    public init(_ bootstrapped: Bootstrapped) throws {
        let peeler = try bootstrapped.component(BananaPeeling.self)
        print("Ripener: ripening the bananas in \(peeler.storePath)")
    }
}

@c(plugin_host_bootstrapping)
public func pluginHostBootstrapping() -> UnsafeMutableRawPointer {
    PluginEntryPoint.export(RipenerComponent.self)
}
