/// A component that a plugin contributes to the application.
///
/// A plugin's entry point returns one `Bootstrapping` conformer. The host bootstraps the
/// components one after another in dependency order; each one receives a ``Bootstrapped``
/// view of the components bootstrapped before it that it declared it requires, and obtains
/// its collaborators from there:
///
/// ```swift
/// public final class DomainBootstrapping: Bootstrapping {
///     private let peeler = Mutex<BananaPeeler?>(nil)
///
///     public func bootstrap(_ bootstrapped: Bootstrapped) throws {
///         let persistence = try bootstrapped.component(PersistenceBootstrapping.self)
///         peeler.withLock { $0 = BananaPeeler(store: persistence.bananaStore) }
///     }
/// }
/// ```
///
/// Components are classes so that the host can hand them across the C entry point and so
/// that a later component obtains the very object an earlier one set up. They are
/// `Sendable` because the host may bootstrap independent components concurrently.
///
/// ## Evolution
/// `PluginABI` is built with library evolution. New lifecycle hooks (asynchronous
/// bootstrap, shutdown, reload) are added to this protocol as requirements with default
/// implementations, so a plugin built against an earlier version keeps loading.
public protocol Bootstrapping: AnyObject, Sendable {
    /// Sets the component up, obtaining what it needs from earlier components.
    ///
    /// - Parameter bootstrapped: The components this one may use (the plugins it requires,
    ///   directly or transitively) and its own settings.
    /// - Throws: Any error; the host stops the run and reports it with the plugin's name.
    func bootstrap(_ bootstrapped: Bootstrapped) throws
}
