import PluginABI

/// Opens the banana store for the plugins that require Persistence, and closes it when the
/// host shuts down.
///
/// Setting `dataDirectory` (string): where the store file `bananas.json` lives; a relative
/// path is relative to the configuration file. Default: `$XDG_DATA_HOME/plugin-host`, or
/// `$HOME/.local/share/plugin-host`.
public final class PersistenceBootstrapping: Bootstrapping, BananaStoring {
    private let store: BananaStore

    public init(_ bootstrapped: Bootstrapped) throws {
        let directory = try bootstrapped.settings.path("dataDirectory") ?? Self.defaultDataDirectory(bootstrapped.environment)
        let store = try BananaStore(directory: directory)
        // Every acknowledged change is on disk already; closing releases the lock for the
        // next process.
        bootstrapped.lifecycle.onShutdown { store.close() }
        self.store = store
    }

    public var path: String { store.path }

    public func update<Result>(_ change: (inout [Banana]) throws -> Result) throws -> Result {
        try store.update(change)
    }

    /// `$XDG_DATA_HOME/plugin-host`, else `$HOME/.local/share/plugin-host`, from the host's
    /// environment as it started.
    static func defaultDataDirectory(_ environment: [String: String]) throws(PersistenceError) -> String {
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") { return data + "/plugin-host" }
        if let home = environment["HOME"], !home.isEmpty { return home + "/.local/share/plugin-host" }
        throw .noDataDirectory
    }
}

/// Persistence cannot set up its store.
public enum PersistenceError: Error, CustomStringConvertible {
    case noDataDirectory

    public var description: String {
        "no data directory: neither XDG_DATA_HOME nor HOME is set; "
            + "set \"dataDirectory\" in the Persistence settings of the --config file"
    }
}

@c(plugin_host_bootstrapping)
public func pluginHostBootstrapping() -> UnsafeMutableRawPointer {
    PluginEntryPoint.export(PersistenceBootstrapping.self)
}
