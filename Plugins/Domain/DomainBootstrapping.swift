import Persistence
import PluginABI

/// Sets up the ``BananaPeeler`` on the banana store that Persistence provides, and offers
/// it to the plugins that require Domain.
public final class DomainBootstrapping: Bootstrapping, BananaPeeling {
    private let peeler: BananaPeeler

    public init(_ bootstrapped: Bootstrapped) throws {
        peeler = BananaPeeler(store: try bootstrapped.component(BananaStoring.self))
    }

    public func peelNext() throws -> Peeling { try peeler.peelNext() }

    public var storePath: String { peeler.storePath }
}

@c(plugin_host_bootstrapping)
public func pluginHostBootstrapping() -> UnsafeMutableRawPointer {
    PluginEntryPoint.export(DomainBootstrapping.self)
}
