import Synchronization

/// The components bootstrapped so far: an immutable value that grows one component at a
/// time.
///
/// The host adds each component once it has bootstrapped; adding returns a **new**
/// `Bootstrapped`, and the value it was called on is unchanged. While a component
/// bootstraps it receives a *view* of the chain: ``component(_:)`` finds only components of
/// the plugins it declared (`requires` and, when installed, `optional`), directly or
/// transitively, so that a dependency its manifest does not declare never works by accident
/// of load order. In a view the nearest component wins: first the declared plugins in the
/// order of the manifest, then theirs, breadth first. This order depends only on the
/// manifests, so it is the same however many components bootstrap at once.
///
/// A view also carries what concerns the component being bootstrapped: its
/// ``settings``, the host's ``environment``, and its ``lifecycle``, where it registers
/// what should happen to it later.
public struct Bootstrapped: Sendable {
    private struct Entry: Sendable {
        let identity: PluginIdentity
        let component: any Sendable
    }

    /// The plugin a view is for, and what it carries.
    private struct Viewer: Sendable {
        let identity: PluginIdentity
        let settings: Settings
        let lifecycle: Lifecycle
        /// What the build before of the plugin handed over.
        let handedOver: HandedOver
        /// The components of the declared plugins that are in the chain, in manifest order:
        /// resolved once, so that looking one up costs a few casts.
        let direct: [any Sendable]
    }

    /// Entries shared by the values of one chain; a value sees the first `held`.
    private final class Storage: Sendable {
        struct State: Sendable {
            var entries: [Entry] = []
            var indexByName: [String: Int] = [:]
        }

        let state: Mutex<State>
        let environment: [String: String]
        let sockets: [String: Int32]

        init(_ state: State = State(), environment: [String: String], sockets: [String: Int32]) {
            self.state = Mutex(state)
            self.environment = environment
            self.sockets = sockets
        }
    }

    private let storage: Storage
    private let held: Int
    private let viewer: Viewer?

    private init(storage: Storage, held: Int, viewer: Viewer?) {
        self.storage = storage
        self.held = held
        self.viewer = viewer
    }

    /// An empty chain whose components see `environment` as the host's.
    ///
    /// - Parameters:
    ///   - environment: The environment variables of the host process when it started,
    ///     before any plugin code could change them.
    ///   - sockets: The descriptors of the sockets the host listens on, by name.
    package init(environment: [String: String] = [:], sockets: [String: Int32] = [:]) {
        self.init(storage: Storage(environment: environment, sockets: sockets), held: 0, viewer: nil)
    }

    /// The descriptors of the sockets the host listens on, by name.
    var socketDescriptors: [String: Int32] { storage.sockets }

    /// This chain, whose components also obtain `descriptor` as the socket `name`.
    package func listening(on descriptor: Int32, as name: String) -> Bootstrapped {
        var sockets = storage.sockets
        sockets[name] = descriptor
        let copy = Storage(snapshot(), environment: storage.environment, sockets: sockets)
        return Bootstrapped(storage: copy, held: held, viewer: viewer)
    }

    /// The plugin being bootstrapped with this view, or `nil` for the whole chain.
    public var pluginName: String? { viewer?.identity.name }

    /// The settings of the plugin being bootstrapped; empty for the whole chain.
    public var settings: Settings { viewer?.settings ?? Settings() }

    /// The environment variables of the host when it started, before any plugin code ran:
    /// read these rather than the process's, which plugin code may have changed since.
    public var environment: [String: String] { storage.environment }

    /// Where the component being bootstrapped registers what should happen to it later: its
    /// service, its hooks, its answers to events. For the whole chain, a lifecycle nobody
    /// delivers anything to.
    public var lifecycle: Lifecycle { viewer?.lifecycle ?? Lifecycle() }

    /// What the build of this plugin that ran before handed over as its worker stopped
    /// (``Lifecycle/onHandOff(_:)``): bytes of state and descriptors, by name. Empty when
    /// nothing was handed over: the first start, a crash, an upgrade that bootstrapped beside.
    public var handedOver: HandedOver { viewer?.handedOver ?? HandedOver() }

    /// The plugins whose components this value can see: for the whole chain in bootstrap
    /// order, for a view nearest first.
    public var plugins: [String] {
        let state = snapshot()
        return visibleIndices(in: state).map { state.entries[$0].identity.name }
    }

    /// The number of components the chain holds.
    package var count: Int { held }

    /// The view of this chain that the component of `identity` receives while it
    /// bootstraps: only the plugins it depends on (and theirs) are visible.
    package func view(
        for identity: PluginIdentity, settings: Settings? = nil, lifecycle: Lifecycle = Lifecycle(), handedOver: HandedOver = HandedOver()
    ) -> Bootstrapped {
        let direct = storage.state.withLock { state in
            identity.dependencies.compactMap { name -> (any Sendable)? in
                guard let index = state.indexByName[name], index < held else { return nil }
                return state.entries[index].component
            }
        }
        let viewer = Viewer(
            identity: identity, settings: settings ?? Settings([:], for: identity.name), lifecycle: lifecycle, handedOver: handedOver,
            direct: direct)
        return Bootstrapped(storage: storage, held: held, viewer: viewer)
    }

    /// A chain holding `component`, bootstrapped already, after the current ones. `self` is
    /// unchanged.
    ///
    /// - Throws: ``BootstrappingError`` with code `duplicatePlugin` when a plugin of the
    ///   same name is already in the chain.
    package func appending(_ component: any Sendable, as identity: PluginIdentity) throws(BootstrappingError) -> Bootstrapped {
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
        return Bootstrapped(storage: Storage(state, environment: storage.environment, sockets: storage.sockets), held: held + 1, viewer: nil)
    }

    /// A chain holding the current components but those of the plugins `names`, in the
    /// same order. `self` is unchanged, and so are the views components already hold.
    package func removing(_ names: Set<String>) -> Bootstrapped {
        var state = Storage.State()
        state.entries = snapshot().entries[..<held].filter { !names.contains($0.identity.name) }
        for (index, kept) in state.entries.enumerated() { state.indexByName[kept.identity.name] = index }
        return Bootstrapped(
            storage: Storage(state, environment: storage.environment, sockets: storage.sockets), held: state.entries.count, viewer: nil)
    }

    /// Bootstraps a component of `type` with the view for `identity`, and returns it with
    /// the chain that holds it after the current ones.
    package func bootstrap(
        _ type: any Bootstrapping.Type, as identity: PluginIdentity, settings: Settings? = nil, lifecycle: Lifecycle = Lifecycle()
    ) async throws -> (component: any Bootstrapping, chain: Bootstrapped) {
        try checkUnique(identity)
        let component = try await type.init(view(for: identity, settings: settings, lifecycle: lifecycle))
        return (component, try appending(component, as: identity))
    }

    /// Returns the visible component whose type is `type` or a subclass of it, or conforms
    /// to it when `type` is a protocol: for the whole chain the earliest, for a view the
    /// nearest (declared plugins first, in manifest order, then theirs).
    ///
    /// - Parameter type: A class or protocol type, such as `BananaStoring.self`.
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
