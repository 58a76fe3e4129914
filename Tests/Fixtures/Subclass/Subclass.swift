import PluginABI

/// A component class with a subclass, as a framework might offer: the subclass adds a
/// service. Roles are registrations, made by whatever class runs the initializer, so the
/// subclass's service runs although the base class has none.
open class BaseComponent: Bootstrapping, @unchecked Sendable {
    public required init(_ bootstrapped: Bootstrapped) throws {
        print("Subclass: base set up")
    }
}

public final class ServingComponent: BaseComponent, @unchecked Sendable {
    public required init(_ bootstrapped: Bootstrapped) throws {
        try super.init(bootstrapped)
        bootstrapped.lifecycle.run { print("Subclass: the subclass's service ran") }
    }
}

@c(plugin_host_bootstrapping)
public func pluginHostBootstrapping() -> UnsafeMutableRawPointer {
    PluginEntryPoint.export(ServingComponent.self)
}
