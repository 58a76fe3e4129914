import Synchronization

/// Bootstraps one component against stand-ins for the plugins it depends on, without the
/// host: the test kit for plugin authors.
///
/// ```swift
/// let harness = try BootstrapHarness()
///     .providing(FakeStore(), as: "Persistence")      // any object, set up by the test
/// let chain = try await harness.bootstrap(DomainBootstrapping.self, as: "Domain")
/// let peeler = try chain.component(BananaPeeling.self)
/// try await harness.lifecycle(of: "Domain")?.deliver(Shutdown())
/// ```
///
/// A stand-in is any value of a type the component looks up, such as a class that conforms
/// to the protocol a dependency exports: it need not be a component. The component under
/// test requires every stand-in and every dependency bootstrapped before it, so it sees all
/// of them and nothing else: a lookup of anything not provided throws the host's not-found
/// error.
public struct BootstrapHarness: Sendable {
    /// The lifecycles of the components bootstrapped with a harness and the harnesses made
    /// from it, by plugin name.
    private final class Lifecycles: Sendable {
        let byName = Mutex<[String: Lifecycle]>([:])
    }

    private let chain: Bootstrapped
    private let provided: [String]
    private let baseDirectory: String?
    private let lifecycles: Lifecycles

    /// A harness with no stand-ins.
    ///
    /// - Parameters:
    ///   - environment: What components read as the host's environment.
    ///   - baseDirectory: The directory relative paths in settings are relative to, as the
    ///     configuration file's directory is in the host.
    public init(environment: [String: String] = [:], baseDirectory: String? = nil) {
        self.init(chain: Bootstrapped(environment: environment), provided: [], baseDirectory: baseDirectory, lifecycles: Lifecycles())
    }

    private init(chain: Bootstrapped, provided: [String], baseDirectory: String?, lifecycles: Lifecycles) {
        self.chain = chain
        self.provided = provided
        self.baseDirectory = baseDirectory
        self.lifecycles = lifecycles
    }

    /// Adds `standIn`, already set up, as what plugin `name` provides.
    ///
    /// - Throws: ``BootstrappingError`` when `name` is provided already.
    public func providing(_ standIn: some Sendable, as name: String) throws -> BootstrapHarness {
        BootstrapHarness(
            chain: try chain.appending(standIn, as: PluginIdentity(name: name)), provided: provided + [name],
            baseDirectory: baseDirectory, lifecycles: lifecycles)
    }

    /// Adds `descriptor`, a socket the test listens on, as the socket `name` that components
    /// obtain with ``Bootstrapped/listeningSocket(named:)``, as they would the host's.
    public func providing(socket descriptor: Int32, named name: String) -> BootstrapHarness {
        BootstrapHarness(
            chain: chain.listening(on: descriptor, as: name), provided: provided, baseDirectory: baseDirectory, lifecycles: lifecycles)
    }

    /// Bootstraps a component of `dependency` as plugin `name`, with `settings`, and adds
    /// it for the next ones. It sees the stand-ins and dependencies added before it.
    ///
    /// - Throws: Whatever its initializer throws.
    public func bootstrapping(
        _ dependency: any Bootstrapping.Type, as name: String, settings: [String: Setting] = [:]
    ) async throws -> BootstrapHarness {
        let grown = try await bootstrapComponent(dependency, as: name, settings: settings)
        return BootstrapHarness(chain: grown, provided: provided + [name], baseDirectory: baseDirectory, lifecycles: lifecycles)
    }

    /// Bootstraps a component of `component` as plugin `name`, requiring every stand-in and
    /// dependency added before, with `settings`.
    ///
    /// - Returns: The chain: the stand-ins and dependencies, then the component.
    /// - Throws: Whatever the component's initializer throws.
    public func bootstrap(
        _ component: any Bootstrapping.Type, as name: String = "UnderTest", settings: [String: Setting] = [:]
    ) async throws -> Bootstrapped {
        try await bootstrapComponent(component, as: name, settings: settings)
    }

    /// What the component bootstrapped as plugin `name` registered: deliver it events as
    /// the host would, one component at a time.
    public func lifecycle(of name: String) -> Lifecycle? {
        lifecycles.byName.withLock { $0[name] }
    }

    /// Starts the service the component bootstrapped as plugin `name` registered
    /// (`lifecycle.run`), in a task of its own, as the host does once every plugin has
    /// bootstrapped.
    ///
    /// - Returns: The running service, to stop as the host does (``RunningService/stop()``);
    ///   `nil` when the component registered none.
    public func startService(of name: String) -> RunningService? {
        guard let service = lifecycle(of: name)?.service else { return nil }
        return RunningService(task: Task { try await service() })
    }

    private func bootstrapComponent(_ type: any Bootstrapping.Type, as name: String, settings: [String: Setting]) async throws -> Bootstrapped {
        let lifecycle = Lifecycle()
        let own = baseDirectory.map { Settings(settings, for: name, baseDirectory: $0) } ?? Settings(settings, for: name)
        let (_, grown) = try await chain.bootstrap(
            type, as: PluginIdentity(name: name, requires: provided), settings: own, lifecycle: lifecycle)
        lifecycles.byName.withLock { $0[name] = lifecycle }
        return grown
    }
}

/// A component's service that a ``BootstrapHarness`` started.
public struct RunningService: Sendable {
    private let task: Task<Void, any Error>

    init(task: Task<Void, any Error>) { self.task = task }

    /// Cancels the service's task, as the host does after the drain, and waits until it
    /// returns.
    ///
    /// - Throws: What the service threw, but the `CancellationError` its cancellation may
    ///   cause.
    public func stop() async throws {
        task.cancel()
        do {
            try await task.value
        } catch is CancellationError {}
    }

    /// Waits until the service returns by itself.
    ///
    /// - Throws: What it threw.
    public func finished() async throws {
        try await task.value
    }
}
