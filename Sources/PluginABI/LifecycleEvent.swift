/// Something that happens to the application, which the host tells every component that
/// handles it (``Lifecycle/on(_:_:)``), one after another in ``order``, and whose answers
/// it reduces into one with ``reduce(_:)``.
///
/// The host's own events are ``Shutdown``, ``ReloadCheck`` and ``Reload``. A handler that
/// throws is named by the host; what that means depends on the event.
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
