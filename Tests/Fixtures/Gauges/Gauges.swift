import PluginABI

/// Uses Persistence when it is installed (an optional dependency), and says what it found.
/// It looks the component up through the shared `Bootstrapping` protocol, so it does not
/// link libPersistence.so and loads whether or not Persistence is there.
public final class GaugesComponent: Bootstrapping {
    public init(_ bootstrapped: Bootstrapped) throws {
        do {
            let found = try bootstrapped.component((any Bootstrapping).self)
            print("Gauges: measuring \(String(reflecting: type(of: found)))")
        } catch let error as BootstrappingError where error.code == .componentNotFound {
            print("Gauges: running without Persistence (\(error))")
        }
    }
}

@c(plugin_host_bootstrapping)
public func pluginHostBootstrapping() -> UnsafeMutableRawPointer {
    PluginEntryPoint.export(GaugesComponent.self)
}
