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
/// ## Lifecycle
/// 1. `bootstrap(_:)`, synchronous or `async`: implement either one. The host always calls
///    the `async` one, whose default calls the synchronous one. Components whose
///    dependencies are all bootstrapped may bootstrap concurrently (`--jobs`).
/// 2. The run phase: components that conform to ``Service`` run until the host is asked
///    to stop.
/// 3. `reload(_:)` of ``Reloadable`` components, on SIGHUP, with the re-read settings.
/// 4. `shutdown()`, in reverse bootstrap order, when the host stops.
///
/// ## Evolution
/// `PluginABI` is built with library evolution. New hooks are added to this protocol as
/// requirements with default implementations, so a plugin built against an earlier
/// version keeps loading: the asynchronous `bootstrap(_:)` and `shutdown()` came that way
/// after ABI 1 was first published, and plugins built before them still load and run.
public protocol Bootstrapping: AnyObject, Sendable {
    /// Sets the component up, obtaining what it needs from earlier components.
    ///
    /// - Parameter bootstrapped: The components this one may use (the plugins it requires,
    ///   directly or transitively) and its own settings.
    /// - Throws: Any error; the host reports it with the plugin's name.
    func bootstrap(_ bootstrapped: Bootstrapped) throws

    /// Sets the component up asynchronously, for work such as opening a database.
    ///
    /// The default calls the synchronous ``bootstrap(_:)``.
    func bootstrap(_ bootstrapped: Bootstrapped) async throws

    /// Releases what the component holds. Called once, in reverse bootstrap order (a plugin
    /// shuts down before the plugins it depends on), when the host stops, after a failed
    /// bootstrap, or at the end of a run without services; bounded by
    /// `--shutdown-timeout`. The default does nothing.
    func shutdown() async throws

    /// The component as a ``Service``, or `nil`. Do not implement it: the default of
    /// `extension Service` returns `self`, the default of `extension Bootstrapping` `nil`,
    /// and the compiler picks the right one when the plugin is built, so the host learns
    /// the component's roles without a dynamic cast (which scans every loaded image).
    var asService: (any Service)? { get }

    /// The component as a ``Reloadable``, or `nil`; see ``asService``.
    var asReloadable: (any Reloadable)? { get }
}

extension Bootstrapping {
    /// `nil`: a component is a service only when it conforms to ``Service``.
    public var asService: (any Service)? { nil }

    /// `nil`: a component is reloadable only when it conforms to ``Reloadable``.
    public var asReloadable: (any Reloadable)? { nil }

    /// Does nothing: for components that implement only the asynchronous bootstrap.
    public func bootstrap(_ bootstrapped: Bootstrapped) throws {}

    /// Calls the synchronous ``bootstrap(_:)``.
    public func bootstrap(_ bootstrapped: Bootstrapped) async throws {
        try bootstrapSynchronously(bootstrapped)
    }

    /// Does nothing.
    public func shutdown() async throws {}

    /// Calls the synchronous requirement; from a synchronous context the call cannot pick
    /// the asynchronous overload.
    private func bootstrapSynchronously(_ bootstrapped: Bootstrapped) throws {
        try bootstrap(bootstrapped)
    }
}
