/// A component that a plugin contributes to the application.
///
/// A plugin's entry point hands the host its component *type*. The host sets the component
/// up once every plugin it requires is set up, by calling its initializer with a
/// ``Bootstrapped`` view of their components:
///
/// ```swift
/// public final class DomainBootstrapping: Bootstrapping, BananaPeeling {
///     private let peeler: BananaPeeler
///
///     public init(_ bootstrapped: Bootstrapped) throws {
///         peeler = BananaPeeler(store: try bootstrapped.component(BananaStoring.self))
///     }
///
///     public func peelNext() throws -> Peeling { try peeler.peelNext() }
/// }
/// ```
///
/// The initializer is the bootstrap: what a component sets up it keeps in `let`s, and a
/// component that exists has bootstrapped. What should happen to it afterwards (a service
/// to run, hooks for reload and shutdown, answers to the host's events) it registers with
/// ``Bootstrapped/lifecycle`` while it bootstraps.
///
/// Components are classes, so that a later component obtains the very object an earlier
/// one set up, and `Sendable`, because the host bootstraps independent components
/// concurrently and calls their hooks on other threads. Other plugins use a component
/// through a protocol it conforms to, which its module exports: they can then be tested
/// with a stand-in (see ``BootstrapHarness``).
///
/// ## Evolution
/// `PluginABI` is built with library evolution. New requirements come with default
/// implementations, and new events and registrations are additions, so a plugin built
/// against an earlier ABI 2 keeps loading.
public protocol Bootstrapping: AnyObject, Sendable {
    /// Sets the component up: obtains what it needs from the components bootstrapped
    /// before it, and registers what should happen to it later. A synchronous
    /// `init(_:) throws` satisfies this requirement; implement it `async` to wait (for a
    /// database to open, say) without holding a thread.
    ///
    /// - Parameter bootstrapped: The components of the plugins this one requires, directly
    ///   or transitively, its settings and its lifecycle.
    /// - Throws: Any error; the host reports it with the plugin's name.
    init(_ bootstrapped: Bootstrapped) async throws
}
