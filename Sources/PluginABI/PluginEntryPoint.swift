/// The C entry point every plugin exports.
///
/// A plugin defines exactly one function with this name, handing over its component type:
///
/// ```swift
/// @c(plugin_host_bootstrapping)
/// public func pluginHostBootstrapping() -> UnsafeMutableRawPointer {
///     PluginEntryPoint.export(DomainBootstrapping.self)
/// }
/// ```
///
/// The host finds the function with `dlsym`, calls it once when it loads the plugin, and
/// bootstraps a component of that type once the plugins it requires have bootstrapped.
public enum PluginEntryPoint {
    /// The symbol name the host looks up in every plugin.
    package static let symbolName = "plugin_host_bootstrapping"

    /// Hands a component type to the host across the C entry point.
    ///
    /// - Parameter component: The plugin's component type.
    /// - Returns: A retained, opaque pointer the host takes ownership of.
    public static func export<Component: Bootstrapping>(_ component: Component.Type) -> UnsafeMutableRawPointer {
        Unmanaged.passRetained(ExportedComponent(component)).toOpaque()
    }
}

/// A component type as a plugin's entry point hands it to the host.
///
/// The existential `any Bootstrapping.Type` is formed in the plugin, where the conformance
/// is known statically, so the host needs only a class cast to this box, never a protocol
/// cast, which makes the Swift runtime scan the conformance records of every loaded image.
package final class ExportedComponent: Sendable {
    /// The plugin's component type.
    package let type: any Bootstrapping.Type

    package init(_ type: any Bootstrapping.Type) {
        self.type = type
    }
}
