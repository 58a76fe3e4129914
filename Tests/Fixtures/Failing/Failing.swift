import PluginABI

struct Overheated: Error, CustomStringConvertible {
    var description: String { "the banana warehouse is too hot" }
}

/// Throws from its bootstrap.
public final class FailingComponent: Bootstrapping {
    public init(_ bootstrapped: Bootstrapped) throws { throw Overheated() }
}

@c(plugin_host_bootstrapping)
public func pluginHostBootstrapping() -> UnsafeMutableRawPointer {
    PluginEntryPoint.export(FailingComponent.self)
}
