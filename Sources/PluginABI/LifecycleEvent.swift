/// Something that happens to the application, which the host tells every component that
/// handles it (``Lifecycle/on(_:_:)``), one after another in ``order``, and whose answers
/// it reduces into one with ``reduce(_:)``.
///
/// The host's events, in the order a run meets them: ``Readiness`` once the services have
/// started, ``HealthCheck`` while they run, ``ReloadCheck`` and ``Reload`` on SIGHUP,
/// ``PluginAdded`` and ``PluginRemoved`` when the plugin directory changes, ``Drain`` when
/// the host is asked to stop, then ``Shutdown``. A handler that throws, or does not return
/// within its deadline, is named by the host; what that means depends on the event.
///
/// The host delivers only these; a new one comes with a new version of `PluginABI` (a type
/// of its own, with its order and its rule), so plugins built before it keep loading.
public protocol LifecycleEvent: Sendable {
    /// What a component answers.
    associatedtype Answer: Sendable

    /// In which order the components hear the event.
    static var order: EventOrder { get }

    /// The one answer of all the components that answered, given in the order they heard
    /// the event. Never called with no answers.
    static func reduce(_ answers: [Answer]) -> Answer
}

extension LifecycleEvent where Answer == Void {
    /// Nothing to combine.
    public static func reduce(_ answers: [Void]) {}
}

/// In which order components hear an event.
public enum EventOrder: Sendable {
    /// A component after the components it depends on: bootstrap order.
    case dependenciesFirst
    /// A component before the components it depends on: reverse bootstrap order, for
    /// stopping.
    case dependentsFirst
}

/// The host is shutting down: release what the component holds. Heard in reverse bootstrap
/// order, each within `--shutdown-timeout`; after a failed bootstrap, by what did bootstrap.
public struct Shutdown: LifecycleEvent {
    public typealias Answer = Void
    public static var order: EventOrder { .dependentsFirst }

    public init() {}
}

/// New settings, read again on SIGHUP, to check before anything changes: throw to refuse
/// them. Only when every component that handles it accepts does the host send ``Reload``;
/// one refusal changes nothing anywhere. Heard in bootstrap order.
public struct ReloadCheck: LifecycleEvent {
    public typealias Answer = Void
    public static var order: EventOrder { .dependenciesFirst }

    /// The component's new settings.
    public let settings: Settings

    public init(settings: Settings) {
        self.settings = settings
    }
}

/// New settings, which every component that checked them accepted: apply them. Heard in
/// bootstrap order.
public struct Reload: LifecycleEvent {
    public typealias Answer = Void
    public static var order: EventOrder { .dependenciesFirst }

    /// The component's new settings.
    public let settings: Settings

    public init(settings: Settings) {
        self.settings = settings
    }
}

/// The services have started: return once this component is ready to do its work (a
/// server listening on its port, a cache warmed). The host is *ready* (and tells systemd
/// so) when the chain is complete and every component that handles this has returned.
/// Heard in bootstrap order, each within `--timeout`; one that throws or does not return in
/// time fails like its service, and the host stops.
public struct Readiness: LifecycleEvent {
    public typealias Answer = Void
    public static var order: EventOrder { .dependenciesFirst }

    public init() {}
}

/// How a component is doing, as it answers a ``HealthCheck``.
public enum Health: Sendable, Hashable {
    /// Working as it should.
    case healthy
    /// Working, but not as it should; says why. The host stays healthy enough for
    /// systemd's watchdog.
    case degraded(String)
    /// Not working; says why. While any component is unhealthy the host stops answering
    /// systemd's watchdog, which then restarts it.
    case unhealthy(String)

    /// How bad it is: 0 healthy, 1 degraded, 2 unhealthy.
    public var severity: Int {
        switch self {
        case .healthy: 0
        case .degraded: 1
        case .unhealthy: 2
        }
    }

    /// Why it is not healthy; `nil` when it is.
    public var reason: String? {
        switch self {
        case .healthy: nil
        case .degraded(let reason), .unhealthy(let reason): reason
        }
    }
}

/// How is the component doing? Asked every `--health-interval` while the services run.
/// Heard in bootstrap order, each within `--timeout`; one that throws or does not answer in
/// time counts as unhealthy. The worst answer wins; the host names every component that is
/// not healthy, with its reason.
public struct HealthCheck: LifecycleEvent {
    public typealias Answer = Health
    public static var order: EventOrder { .dependenciesFirst }

    public init() {}

    /// The worst answer; the first of the worst when several are as bad.
    public static func reduce(_ answers: [Health]) -> Health {
        answers.reduce(Health.healthy) { worst, answer in answer.severity > worst.severity ? answer : worst }
    }
}

/// The host is about to stop: stop taking new work, and finish or hand over what is in
/// flight, so that nothing is cut off when the services are cancelled next. Heard in reverse
/// bootstrap order (a plugin before the plugins it depends on), each within
/// `--shutdown-timeout`; one that does not finish in time is named and skipped, and the
/// stop goes on.
public struct Drain: LifecycleEvent {
    public typealias Answer = Void
    public static var order: EventOrder { .dependentsFirst }

    public init() {}
}

/// A plugin that this component lists as optional was added to the running host: it has
/// bootstrapped, and ``bootstrapped`` is this component's view of the chain with it, where
/// ``Bootstrapped/component(_:)`` finds it. Heard in bootstrap order, each within
/// `--timeout`.
///
/// plugin-host itself brings a plugin dropped in with a new worker generation, in which every
/// plugin bootstraps anew with it in the chain, so it sends this event to no component; a
/// host that adds plugins to a running chain sends it.
public struct PluginAdded: LifecycleEvent {
    public typealias Answer = Void
    public static var order: EventOrder { .dependenciesFirst }

    /// The plugin added.
    public let name: String
    /// This component's view of the chain, the added plugin included.
    public let bootstrapped: Bootstrapped

    public init(name: String, bootstrapped: Bootstrapped) {
        self.name = name
        self.bootstrapped = bootstrapped
    }
}

/// A plugin that this component lists as optional is about to leave the running host (its
/// file was removed): stop using its component now; it drains and shuts down next. Heard in
/// reverse bootstrap order, each within `--shutdown-timeout`.
public struct PluginRemoved: LifecycleEvent {
    public typealias Answer = Void
    public static var order: EventOrder { .dependentsFirst }

    /// The plugin leaving.
    public let name: String

    public init(name: String) {
        self.name = name
    }
}
