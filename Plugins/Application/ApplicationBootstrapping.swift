import Domain
import PluginABI

/// The application's job: peel one banana per run, through Domain's peeler, and say so.
public final class ApplicationBootstrapping: Bootstrapping {
    public init() {}

    public func bootstrap(_ bootstrapped: Bootstrapped) throws {
        let domain = try bootstrapped.component(DomainBootstrapping.self)
        let peeler = try domain.bananaPeeler
        let peeling = try peeler.peelNext()
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
    PluginEntryPoint.export(ApplicationBootstrapping())
}
