import PluginABI

/// A component whose class is generic: the runtime makes its metadata at run time, outside
/// the plugin's file, yet it is the plugin's own.
public final class Box<Value: Sendable & ExpressibleByIntegerLiteral & CustomStringConvertible>: Bootstrapping {
    public let value: Value = 42

    public init(_ bootstrapped: Bootstrapped) throws {
        print("Generic: a Box holding \(value)")
    }
}

@c(plugin_host_bootstrapping)
public func pluginHostBootstrapping() -> UnsafeMutableRawPointer {
    PluginEntryPoint.export(Box<Int>.self)
}
