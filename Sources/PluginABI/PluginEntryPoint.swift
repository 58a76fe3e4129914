/// The C entry point every plugin exports.
///
/// A plugin defines exactly one function with this name, returning its component:
///
/// ```swift
/// @c(plugin_host_bootstrapping)
/// public func pluginHostBootstrapping() -> UnsafeMutableRawPointer {
///     PluginEntryPoint.export(PersistenceBootstrapping())
/// }
/// ```
///
/// The host finds the function with `dlsym`, calls it once and takes ownership of the
/// returned object.
public enum PluginEntryPoint {
    /// The symbol name the host looks up in every plugin.
    public static let symbolName = "plugin_host_bootstrapping"

    /// Hands a component to the host across the C entry point.
    ///
    /// - Parameter component: The plugin's component.
    /// - Returns: A retained, opaque pointer to an ``ExportedComponent`` holding it; the
    ///   host releases it.
    public static func export(_ component: some Bootstrapping) -> UnsafeMutableRawPointer {
        Unmanaged.passRetained(ExportedComponent(component)).toOpaque()
    }
}

/// A component as a plugin's entry point hands it to the host.
///
/// The existential `any Bootstrapping` is formed in the plugin, where the conformance is
/// known statically, so the host needs only a class cast to this box, never a protocol
/// cast, which makes the Swift runtime scan the conformance records of every loaded image
/// and grows with the number of plugins.
public final class ExportedComponent: Sendable {
    /// The plugin's component.
    public let component: any Bootstrapping

    /// Boxes `component`.
    public init(_ component: any Bootstrapping) {
        self.component = component
    }

}
