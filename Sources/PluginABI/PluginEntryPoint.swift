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
    /// - Returns: A retained, opaque pointer to the component; the host releases it.
    public static func export(_ component: some Bootstrapping) -> UnsafeMutableRawPointer {
        Unmanaged.passRetained(component as AnyObject).toOpaque()
    }

}
