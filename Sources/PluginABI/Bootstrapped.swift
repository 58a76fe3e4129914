/// The components bootstrapped so far: an immutable value that grows one component at a
/// time.
///
/// ``bootstrap(_:as:settings:)`` returns a **new** `Bootstrapped` holding one more
/// component; the value it was called on is unchanged. A whole application is therefore a
/// reduce over its ordered components:
///
/// ```swift
/// let application = try components.reduce(Bootstrapped()) { bootstrapped, next in
///     try bootstrapped.bootstrap(next.component, as: next.identity, settings: next.settings)
/// }
/// ```
///
/// While a component bootstraps it receives a *view* of the chain: ``component(_:)`` finds
/// only components of the plugins it requires, directly or transitively, so that a
/// dependency its manifest does not declare never works by accident of load order.
public struct Bootstrapped: Sendable {
    private struct Entry: Sendable {
        let identity: PluginIdentity
        let component: any Bootstrapping
        /// Indices of the entries this one may see: its requirements, transitively.
        let reachable: Set<Int>
    }

    private struct Viewer: Sendable {
        let identity: PluginIdentity
        let reachable: Set<Int>
        let settings: Settings
    }

    private let entries: [Entry]
    private let indexByName: [String: Int]
    private let viewer: Viewer?

    /// Creates an empty chain.
    public init() {
        self.init(entries: [], indexByName: [:], viewer: nil)
    }

    private init(entries: [Entry], indexByName: [String: Int], viewer: Viewer?) {
        self.entries = entries
        self.indexByName = indexByName
        self.viewer = viewer
    }

    /// The plugin being bootstrapped with this view, or `nil` for the whole chain.
    public var pluginName: String? { viewer?.identity.name }

    /// The settings of the plugin being bootstrapped; empty for the whole chain.
    public var settings: Settings { viewer?.settings ?? Settings() }

    /// The plugins whose components this value can see, in bootstrap order.
    public var plugins: [PluginIdentity] { visibleIndices.map { entries[$0].identity } }

    /// The number of components this value can see.
    public var count: Int { viewer?.reachable.count ?? entries.count }

    /// Bootstraps a component and returns a chain that holds it after the current ones.
    ///
    /// The component's ``Bootstrapping/bootstrap(_:)`` receives a view in which only the
    /// plugins named by `identity.requires` and `identity.optional` (and, transitively,
    /// theirs) are visible, and whose ``settings`` are `settings`. Names of plugins that are
    /// not in the chain are ignored here: an absent optional plugin is simply not found, and
    /// the host reports absent required ones before anything runs.
    ///
    /// - Parameters:
    ///   - component: The component to bootstrap.
    ///   - identity: The name of its plugin and the plugins it requires.
    ///   - settings: The plugin's settings.
    /// - Returns: A new chain: this one plus `component`. `self` is unchanged.
    /// - Throws: ``BootstrappingError`` with code `duplicatePlugin` when a plugin of the
    ///   same name is already in the chain, or whatever the component's bootstrap throws.
    public func bootstrap(
        _ component: any Bootstrapping,
        as identity: PluginIdentity,
        settings: Settings? = nil
    ) throws -> Bootstrapped {
        guard indexByName[identity.name] == nil else {
            throw BootstrappingError(
                code: .duplicatePlugin, requestingPlugin: identity.name,
                advice: "plugin \(identity.name) is already bootstrapped; every plugin needs a unique name")
        }
        var reachable = Set<Int>()
        for name in identity.dependencies {
            guard let index = indexByName[name] else { continue }
            reachable.insert(index)
            reachable.formUnion(entries[index].reachable)
        }
        let view = Bootstrapped(
            entries: entries, indexByName: indexByName,
            viewer: Viewer(
                identity: identity, reachable: reachable,
                settings: settings ?? Settings(for: identity.name)))
        try component.bootstrap(view)

        var indexByName = indexByName
        indexByName[identity.name] = entries.count
        return Bootstrapped(
            entries: entries + [Entry(identity: identity, component: component, reachable: reachable)],
            indexByName: indexByName, viewer: nil)
    }

    /// Returns the earliest visible component whose type is `type` or a subclass of it, or
    /// conforms to it when `type` is a protocol.
    ///
    /// - Parameter type: A class or protocol type, such as `PersistenceBootstrapping.self`.
    /// - Returns: The component, as `type`.
    /// - Throws: ``BootstrappingError`` with code `componentNotFound`, naming the requested
    ///   type, the plugin that asked and the plugins it can see; when an undeclared plugin
    ///   has such a component, the error says which one to add to `requires`.
    public func component<T>(_ type: T.Type = T.self) throws -> T {
        for index in visibleIndices {
            if let found = entries[index].component as? T { return found }
        }
        throw notFound(type)
    }

    private var visibleIndices: [Int] {
        guard let viewer else { return Array(entries.indices) }
        return viewer.reachable.sorted()
    }

    private func notFound<T>(_ type: T.Type) -> BootstrappingError {
        let requester = viewer?.identity.name
        let visible = visibleIndices.map { entries[$0].identity.name }
        let undeclared = entries.indices.first { index in
            viewer?.reachable.contains(index) == false && entries[index].component is T
        }
        let advice: String
        if let undeclared, let requester {
            let provider = entries[undeclared].identity.name
            advice = "plugin \(provider) provides one, but \(requester) does not require it: "
                + "add \"\(provider)\" to \"requires\" in the manifest of \(requester)"
        } else if let requester {
            advice = "add the plugin that provides it to \"requires\" in the manifest of \(requester) "
                + "and make sure that plugin is installed"
        } else {
            advice = "no bootstrapped plugin provides it; install the plugin that does"
        }
        return BootstrappingError(
            code: .componentNotFound, requestingPlugin: requester,
            requestedType: readableName(of: type), visiblePlugins: visible, advice: advice)
    }
}
