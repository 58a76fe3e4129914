import PluginABI

/// Has a component but forgot to export the entry point.
public final class NoEntryComponent: Bootstrapping {
    public init() {}
    public func bootstrap(_ bootstrapped: Bootstrapped) throws {}
}
