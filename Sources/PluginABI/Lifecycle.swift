import Synchronization

/// What should happen to a component after it bootstraps: it registers it here while it
/// bootstraps, through ``Bootstrapped/lifecycle``.
///
/// ```swift
/// public init(_ bootstrapped: Bootstrapped) throws {
///     let store = try BananaStore(directory: ...)
///     bootstrapped.lifecycle.onShutdown { store.close() }
///     bootstrapped.lifecycle.run { try await server.serve(store) }
///     self.store = store
/// }
/// ```
///
/// The registered closures capture what they need, not the component, which does not exist
/// yet while it bootstraps. The host learns a component's roles from what it registered; a
/// component that registers nothing just bootstraps.
public final class Lifecycle: Sendable {
    private struct Registrations {
        var service: (@Sendable () async throws -> Void)?
        var handlers: [ObjectIdentifier: any Sendable] = [:]
    }

    /// A handler of one event type, as registered.
    private struct Handler<Event: LifecycleEvent>: Sendable {
        let handle: @Sendable (Event) async throws -> Event.Answer
    }

    private let registrations = Mutex(Registrations())

    package init() {}

    /// Runs `service` once every plugin has bootstrapped, until it returns or the host
    /// stops: then its task is cancelled, and it must return promptly (awaiting
    /// `Task.sleep` or checking `Task.isCancelled` notices). While services run, the host
    /// runs; it stops when asked to (SIGINT, SIGTERM) or when every service has returned. A
    /// service that throws stops the host. Register at most one; a later one replaces it.
    public func run(_ service: @escaping @Sendable () async throws -> Void) {
        registrations.withLock { $0.service = service }
    }

    /// Calls `handler` for every `event` the host delivers, with what the event says; the
    /// host reduces the answers of all the components that handle it into one. Register one
    /// handler per event type; a later one replaces it.
    public func on<Event: LifecycleEvent>(
        _ event: Event.Type, _ handler: @escaping @Sendable (Event) async throws -> Event.Answer
    ) {
        registrations.withLock { $0.handlers[ObjectIdentifier(event)] = Handler(handle: handler) }
    }

    /// Calls `hook` when the host shuts down (``Shutdown``): release what the component
    /// holds. In reverse bootstrap order, each hook within `--shutdown-timeout`.
    public func onShutdown(_ hook: @escaping @Sendable () async throws -> Void) {
        on(Shutdown.self) { _ in try await hook() }
    }

    /// Calls `wait` once the services have started: return when the component is ready to
    /// do its work (``Readiness``).
    public func onReady(_ wait: @escaping @Sendable () async throws -> Void) {
        on(Readiness.self) { _ in try await wait() }
    }

    /// Calls `check` every `--health-interval` while the services run, for how the
    /// component is doing (``HealthCheck``).
    public func onHealthCheck(_ check: @escaping @Sendable () async throws -> Health) {
        on(HealthCheck.self) { _ in try await check() }
    }

    /// Calls `drain` when the host is asked to stop, before services are cancelled: stop
    /// taking new work (``Drain``). In reverse bootstrap order, each within
    /// `--shutdown-timeout`.
    public func onDrain(_ drain: @escaping @Sendable () async throws -> Void) {
        on(Drain.self) { _ in try await drain() }
    }

    /// Takes new settings on SIGHUP in two steps: `check` them first (throw to refuse:
    /// nothing changes anywhere then), and `apply` them only when every component accepted.
    public func onReload(
        check: @escaping @Sendable (Settings) async throws -> Void = { _ in },
        apply: @escaping @Sendable (Settings) async throws -> Void
    ) {
        on(ReloadCheck.self) { try await check($0.settings) }
        on(Reload.self) { try await apply($0.settings) }
    }

    /// Delivers `event` to this component's handler.
    ///
    /// - Returns: Its answer, or `nil` when the component does not handle `event`.
    /// - Throws: Whatever the handler throws.
    public func deliver<Event: LifecycleEvent>(_ event: Event) async throws -> Event.Answer? {
        guard let handler = handler(for: Event.self) else { return nil }
        return try await handler(event)
    }

    /// The registered service, if any.
    package var service: (@Sendable () async throws -> Void)? {
        registrations.withLock { $0.service }
    }

    /// Whether the component handles `event`.
    package func handles<Event: LifecycleEvent>(_ event: Event.Type) -> Bool {
        handler(for: event) != nil
    }

    private func handler<Event: LifecycleEvent>(for event: Event.Type) -> (@Sendable (Event) async throws -> Event.Answer)? {
        let stored = registrations.withLock { $0.handlers[ObjectIdentifier(event)] }
        return (stored as? Handler<Event>)?.handle
    }
}
