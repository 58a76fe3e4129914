import Persistence
import PluginABI
import Synchronization

/// Sets up the ``BananaPeeler`` on Persistence's banana store.
public final class DomainBootstrapping: Bootstrapping {
    private let peeler = Mutex<BananaPeeler?>(nil)

    public init() {}

    /// The peeler; available once this component has bootstrapped.
    public var bananaPeeler: BananaPeeler {
        get throws(DomainError) {
            guard let peeler = peeler.withLock({ $0 }) else { throw DomainError.notBootstrapped }
            return peeler
        }
    }

    public func bootstrap(_ bootstrapped: Bootstrapped) throws {
        let persistence = try bootstrapped.component(PersistenceBootstrapping.self)
        let made = BananaPeeler(store: try persistence.bananaStore)
        peeler.withLock { $0 = made }
    }
}

/// The Domain component is not ready.
public enum DomainError: Error, CustomStringConvertible {
    case notBootstrapped

    public var description: String {
        "the banana peeler is set up when Domain bootstraps; require Domain to use it"
    }
}

@c(plugin_host_bootstrapping)
public func pluginHostBootstrapping() -> UnsafeMutableRawPointer {
    PluginEntryPoint.export(DomainBootstrapping())
}
