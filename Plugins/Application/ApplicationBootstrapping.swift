import Domain
import PluginABI

/// The application's job: peel one banana per run, through the peeler Domain provides, and
/// say so.
public final class ApplicationBootstrapping: Bootstrapping {
    /// What this run peeled.
    public let peeling: Peeling

    public init(_ bootstrapped: Bootstrapped) throws {
        let peeler = try bootstrapped.component(BananaPeeling.self)
        peeling = try peeler.peelNext()
        if peeling.harvested {
            print("Application: harvested a bunch of \(BananaPeeler.bunchSize) bananas")
        }
        print(
            "Application: peeled banana #\(peeling.banana.id); \(peeling.peeled) peeled so far, "
                + "\(peeling.unpeeled) left (store: \(peeler.storePath))")
    }
}

@c(plugin_host_bootstrapping)
public func pluginHostBootstrapping() -> UnsafeMutableRawPointer {
    PluginEntryPoint.export(ApplicationBootstrapping.self)
}
