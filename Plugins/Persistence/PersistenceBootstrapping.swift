import PluginABI
import Synchronization

/// Opens the banana store for the plugins that require Persistence.
///
/// Setting `dataDirectory` (string): where the store file `bananas.json` lives; a relative
/// path is relative to the configuration file. Default: `$XDG_DATA_HOME/plugin-host`, or
/// `$HOME/.local/share/plugin-host`.
public final class PersistenceBootstrapping: Bootstrapping {
    private let store = Mutex<BananaStore?>(nil)

    public init() {}

    /// The banana store; available once this component has bootstrapped.
    public var bananaStore: BananaStore {
        get throws(PersistenceError) {
            guard let store = store.withLock({ $0 }) else { throw PersistenceError.notBootstrapped }
            return store
        }
    }

    public func bootstrap(_ bootstrapped: Bootstrapped) throws {
        let directory = try bootstrapped.settings.path("dataDirectory") ?? Self.defaultDataDirectory(bootstrapped.environment)
        let opened = try BananaStore(directory: directory)
        store.withLock { $0 = opened }
    }

    /// Closes the banana store: acknowledged changes are on disk already; the lock is
    /// released for the next process.
    public func shutdown() async throws {
        store.withLock { $0 }?.close()
    }

    /// `$XDG_DATA_HOME/plugin-host`, else `$HOME/.local/share/plugin-host`, from the host's
    /// environment as it started.
    static func defaultDataDirectory(_ environment: [String: String]) throws(PersistenceError) -> String {
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") { return data + "/plugin-host" }
        if let home = environment["HOME"], !home.isEmpty { return home + "/.local/share/plugin-host" }
        throw .noDataDirectory
    }
}

/// The Persistence component is not ready.
public enum PersistenceError: Error, CustomStringConvertible {
    case notBootstrapped
    case noDataDirectory

    public var description: String {
        switch self {
        case .notBootstrapped:
            "the banana store is opened when Persistence bootstraps; require Persistence to use it"
        case .noDataDirectory:
            "no data directory: neither XDG_DATA_HOME nor HOME is set; "
                + "set \"dataDirectory\" in the Persistence settings of the --config file"
        }
    }
}

@c(plugin_host_bootstrapping)
public func pluginHostBootstrapping() -> UnsafeMutableRawPointer {
    PluginEntryPoint.export(PersistenceBootstrapping())
}
