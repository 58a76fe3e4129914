/// Bootstraps one component against stand-ins for the plugins it depends on, without the
/// host: the test kit for plugin authors.
///
/// ```swift
/// let chain = try await BootstrapHarness()
///     .providing(FakeClock(), as: "Clock")                         // set up by the test
///     .bootstrapping(PersistenceBootstrapping(), as: "Persistence",  // bootstrapped for real
///                    settings: ["dataDirectory": .string(temporaryDirectory)])
///     .bootstrap(DomainBootstrapping(), settings: ["retries": 3])
/// let domain = try chain.component(DomainBootstrapping.self)
/// ```
///
/// The component under test requires every stand-in, so it sees all of them, and nothing
/// else: a lookup of anything not provided throws the same not-found error as in the host.
public struct BootstrapHarness: Sendable {
    private let chain: Bootstrapped
    private let provided: [String]

    /// A harness with no stand-ins.
    public init() {
        self.init(chain: Bootstrapped(), provided: [])
    }

    private init(chain: Bootstrapped, provided: [String]) {
        self.chain = chain
        self.provided = provided
    }

    /// Adds `standIn`, already set up, as the component of plugin `name`.
    ///
    /// - Throws: ``BootstrappingError`` when `name` is provided already.
    public func providing(_ standIn: any Bootstrapping, as name: String) throws -> BootstrapHarness {
        BootstrapHarness(chain: try chain.appending(standIn, as: PluginIdentity(name: name)), provided: provided + [name])
    }

    /// Bootstraps `dependency` as plugin `name`, with `settings`, and adds it as a stand-in.
    /// It sees the stand-ins added before it.
    ///
    /// - Throws: Whatever its bootstrap throws.
    public func bootstrapping(
        _ dependency: any Bootstrapping, as name: String, settings: [String: Setting] = [:]
    ) async throws -> BootstrapHarness {
        let identity = PluginIdentity(name: name, requires: provided)
        let grown = try await chain.bootstrap(dependency, as: identity, settings: Settings(settings, for: name))
        return BootstrapHarness(chain: grown, provided: provided + [name])
    }

    /// Bootstraps `component` as plugin `name`, requiring every stand-in, with `settings`.
    ///
    /// - Returns: The chain: the stand-ins, then the component.
    /// - Throws: Whatever the component's bootstrap throws.
    public func bootstrap(
        _ component: any Bootstrapping, as name: String = "UnderTest", settings: [String: Setting] = [:]
    ) async throws -> Bootstrapped {
        try await chain.bootstrap(
            component, as: PluginIdentity(name: name, requires: provided), settings: Settings(settings, for: name))
    }
}
