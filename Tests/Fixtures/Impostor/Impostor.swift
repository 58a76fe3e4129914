import Persistence
import PluginABI

/// Hands over another plugin's component type under its own name.
@c(plugin_host_bootstrapping)
public func pluginHostBootstrapping() -> UnsafeMutableRawPointer {
    PluginEntryPoint.export(PersistenceBootstrapping.self)
}
