/// Not a Bootstrapping conformer.
public final class Banana {
    public init() {}
}

@c(plugin_host_bootstrapping)
public func pluginHostBootstrapping() -> UnsafeMutableRawPointer {
    Unmanaged.passRetained(Banana()).toOpaque()
}
