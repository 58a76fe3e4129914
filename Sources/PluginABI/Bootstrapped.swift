import Synchronization

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
/// only components of the plugins it declared (`requires` and, when installed, `optional`),
/// directly or transitively, so that a dependency its manifest does not declare never works
/// by accident of load order. In a view the nearest component wins: first the declared
/// plugins in the order of the manifest, then theirs, breadth first. This order depends
/// only on the manifests, so it is the same however many components bootstrap at once.
///
/// Values share their storage: appending to the newest value of a chain costs O(1), and an
/// older value keeps seeing only the components it held.
public struct Bootstrapped: Sendable {
    private struct Entry: Sendable {
        let identity: PluginIdentity
        let component: any Bootstrapping
    }

    private struct Viewer: Sendable {
        let identity: PluginIdentity
        let settings: Settings
        /// The components of the declared plugins that are in the chain, in manifest order:
        /// resolved once, so that looking one up costs a few casts.
        let direct: [any Bootstrapping]
    }

    /// Entries shared by the values of one chain; a value sees the first `count`.
    private final class Storage: Sendable {
        struct State: Sendable {
            var entries: [Entry] = []
            var indexByName: [String: Int] = [:]
        }

        let state: Mutex<State>
        let environment: [String: String]

        init(_ state: State = State(), environment: [String: String] = [:]) {
            self.state = Mutex(state)
            self.environment = environment
        }
    }

    private let storage: Storage
    private let held: Int
    private let viewer: Viewer?

    /// Creates an empty chain.
    public init() {
        self.init(storage: Storage(), held: 0, viewer: nil)
    }

    /// Creates an empty chain whose components see `environment` as the host's.
    ///
    /// - Parameter environment: The environment variables of the host process when it
    ///   started, before any plugin code could change them.
    public init(environment: [String: String]) {
        self.init(storage: Storage(environment: environment), held: 0, viewer: nil)
    }

    private init(storage: Storage, held: Int, viewer: Viewer?) {
        self.storage = storage
        self.held = held
        self.viewer = viewer
    }

    /// The plugin being bootstrapped with this view, or `nil` for the whole chain.
    public var pluginName: String? { viewer?.identity.name }

    /// The settings of the plugin being bootstrapped; empty for the whole chain.
    public var settings: Settings { viewer?.settings ?? Settings() }

    /// The environment variables of the host when it started, before any plugin code ran:
    /// read these rather than the process's, which plugin code may have changed since.
    public var environment: [String: String] { storage.environment }

    /// The plugins whose components this value can see: for the whole chain in bootstrap
    /// order, for a view nearest first.
    public var plugins: [PluginIdentity] {
        let entries = snapshot()
        return visibleIndices(in: entries).map { entries.entries[$0].identity }
    }

    /// The number of components this value can see.
    public var count: Int { viewer == nil ? held : plugins.count }

    /// Bootstraps a component synchronously and returns a chain that holds it after the
    /// current ones.
    ///
    /// The component's synchronous ``Bootstrapping/bootstrap(_:)`` receives
    /// ``view(for:settings:)``. `self` is unchanged.
    ///
    /// - Parameters:
    ///   - component: The component to bootstrap.
    ///   - identity: The name of its plugin and the plugins it depends on.
    ///   - settings: The plugin's settings.
    /// - Returns: A new chain: this one plus `component`.
    /// - Throws: ``BootstrappingError`` with code `duplicatePlugin` when a plugin of the
    ///   same name is already in the chain, or whatever the component's bootstrap throws.
    public func bootstrap(
        _ component: any Bootstrapping,
        as identity: PluginIdentity,
        settings: Settings? = nil
    ) throws -> Bootstrapped {
        try checkUnique(identity)
        try component.bootstrap(view(for: identity, settings: settings))
        return try appending(component, as: identity)
    }

    /// Bootstraps a component, synchronous or asynchronous, and returns a chain that holds
    /// it after the current ones; see ``bootstrap(_:as:settings:)``.
    public func bootstrap(
        _ component: any Bootstrapping,
        as identity: PluginIdentity,
        settings: Settings? = nil
    ) async throws -> Bootstrapped {
        try checkUnique(identity)
        try await component.bootstrap(view(for: identity, settings: settings))
        return try appending(component, as: identity)
    }

    /// The view of this chain that the component of `identity` receives while it
    /// bootstraps: only the plugins it depends on (and theirs) are visible, and its
    /// settings are `settings`.
    ///
    /// Hosts that bootstrap components concurrently take views from the chain of the
    /// components bootstrapped so far; every plugin a component depends on must be in it.
    public func view(for identity: PluginIdentity, settings: Settings? = nil) -> Bootstrapped {
        let direct = storage.state.withLock { state in
            identity.dependencies.compactMap { name -> (any Bootstrapping)? in
                guard let index = state.indexByName[name], index < held else { return nil }
                return state.entries[index].component
            }
        }
        return Bootstrapped(
            storage: storage, held: held,
            viewer: Viewer(identity: identity, settings: settings ?? Settings(for: identity.name), direct: direct))
    }

    /// A chain holding `component`, bootstrapped already, after the current ones. `self` is
    /// unchanged. For hosts that bootstrap components themselves, and for tests that stand
    /// in for a dependency.
    ///
    /// - Throws: ``BootstrappingError`` with code `duplicatePlugin` when a plugin of the
    ///   same name is already in the chain.
    public func appending(_ component: any Bootstrapping, as identity: PluginIdentity) throws -> Bootstrapped {
        try checkUnique(identity)
        let entry = Entry(identity: identity, component: component)
        let appendedInPlace = storage.state.withLock { state in
            guard state.entries.count == held else { return false }
            state.indexByName[identity.name] = state.entries.count
            state.entries.append(entry)
            return true
        }
        if appendedInPlace {
            return Bootstrapped(storage: storage, held: held + 1, viewer: nil)
        }
        // Another value of this chain appended first: copy what this one holds.
        var state = Storage.State()
        state.entries = Array(snapshot().entries[..<held])
        for (index, held) in state.entries.enumerated() { state.indexByName[held.identity.name] = index }
        state.indexByName[identity.name] = state.entries.count
        state.entries.append(entry)
        return Bootstrapped(storage: Storage(state, environment: storage.environment), held: held + 1, viewer: nil)
    }

    /// Returns the visible component whose type is `type` or a subclass of it, or conforms
    /// to it when `type` is a protocol: for the whole chain the earliest, for a view the
    /// nearest (declared plugins first, in manifest order, then theirs).
    ///
    /// - Parameter type: A class or protocol type, such as `PersistenceBootstrapping.self`.
    /// - Returns: The component, as `type`.
    /// - Throws: ``BootstrappingError`` with code `componentNotFound`, naming the requested
    ///   type, the plugin that asked and the plugins it can see; when an undeclared plugin
    ///   has such a component, the error says which one to add to `requires`.
    public func component<T>(_ type: T.Type = T.self) throws -> T {
        if let viewer {
            // The declared plugins first: resolved when the view was made.
            for component in viewer.direct {
                if let found = component as? T { return found }
            }
        }
        // Then through the rest of what is visible: for a view, breadth first through the
        // declared plugins' own dependencies; stopping at the first match.
        let state = snapshot()
        var found: T?
        visitVisible(in: state) { index in
            found = state.entries[index].component as? T
            return found == nil
        }
        if let found { return found }
        throw notFound(type, in: state)
    }

    private func snapshot() -> Storage.State {
        storage.state.withLock { $0 }
    }

    private func checkUnique(_ identity: PluginIdentity) throws(BootstrappingError) {
        let existing = storage.state.withLock { $0.indexByName[identity.name] }
        if let existing, existing < held {
            throw BootstrappingError(
                code: .duplicatePlugin, requestingPlugin: identity.name,
                advice: "plugin \(identity.name) is already bootstrapped; every plugin needs a unique name")
        }
    }

    /// The indices of the visible entries: all held ones in order, or for a view the
    /// closure of the viewer's dependencies, breadth first.
    private func visibleIndices(in state: Storage.State) -> [Int] {
        var indices: [Int] = []
        visitVisible(in: state) { index in
            indices.append(index)
            return true
        }
        return indices
    }

    /// Calls `visit` with the index of each visible entry in order (for a view: breadth
    /// first from the declared plugins), until it returns `false`.
    private func visitVisible(in state: Storage.State, _ visit: (Int) -> Bool) {
        guard let viewer else {
            for index in 0..<held where !visit(index) { return }
            return
        }
        var queue = viewer.identity.dependencies
        var seen = Set(queue)
        var head = 0
        while head < queue.count {
            let name = queue[head]
            head += 1
            guard let index = state.indexByName[name], index < held else { continue }
            guard visit(index) else { return }
            for next in state.entries[index].identity.dependencies where seen.insert(next).inserted {
                queue.append(next)
            }
        }
    }

    private func notFound<T>(_ type: T.Type, in state: Storage.State) -> BootstrappingError {
        let requester = viewer?.identity.name
        let visible = visibleIndices(in: state)
        let visibleSet = Set(visible)
        let undeclared = (0..<held).first { index in
            viewer != nil && !visibleSet.contains(index) && state.entries[index].component is T
        }
        let advice: String
        if let undeclared, let requester {
            let provider = state.entries[undeclared].identity.name
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
            requestedType: readableName(of: type), visiblePlugins: visible.map { state.entries[$0].identity.name },
            advice: advice)
    }
}
