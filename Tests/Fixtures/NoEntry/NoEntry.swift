import PluginABI

/// Has a component but forgot to export the entry point.
public final class NoEntryComponent: Bootstrapping {
    public init(_ bootstrapped: Bootstrapped) throws {}
}
