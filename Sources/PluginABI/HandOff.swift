import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// What one build of a plugin hands the next, by name: bytes of state (a counter, a session
/// table) and file descriptors (accepted connections, a memfd). A component fills one when
/// its worker stops to make way for the next generation (``Lifecycle/onHandOff(_:)``); the
/// next build of the same plugin reads it while it bootstraps (``Bootstrapped/handedOver``).
///
/// The host passes it on without reading it, at an upgrade in the order after, a restart it
/// was not blamed for, and a rollback, as long as the worker stopped as asked; a worker that
/// crashed hands nothing. What the next build does not take is closed after its bootstrap.
/// Bounded: at most ``maximumItems`` items and ``maximumBytes`` bytes of state for a plugin.
public struct HandedOver: Sendable {
    /// The most items a plugin may hand over; more are closed, and the host says so.
    public static let maximumItems = 64
    /// The most bytes of state a plugin may hand over, all items together.
    public static let maximumBytes = 1 << 20

    /// One item: bytes, or a descriptor.
    package enum Item: Sendable {
        case bytes([UInt8])
        case descriptor(Int32)
    }

    package private(set) var items: [(name: String, item: Item)] = []
    private let claims = Claims()

    public init() {}

    package init(items: [(name: String, item: Item)]) {
        self.items = items
    }

    /// Hands the next build `bytes` as `name`, replacing what was handed as `name` before.
    public mutating func put(_ bytes: [UInt8], as name: String) {
        items.removeAll { $0.name == name }
        items.append((name, .bytes(bytes)))
    }

    /// Hands the next build `descriptor` as `name`: from now on it is the host's (do not close
    /// it), and the next build's once it takes it.
    public mutating func put(descriptor: Int32, as name: String) {
        items.removeAll { $0.name == name }
        items.append((name, .descriptor(descriptor)))
    }

    /// The names handed over, in the order they were put.
    public var names: [String] { items.map(\.name) }

    /// The bytes handed over as `name`, if bytes were.
    public func bytes(_ name: String) -> [UInt8]? {
        guard case .bytes(let bytes)? = items.first(where: { $0.name == name })?.item else { return nil }
        return bytes
    }

    /// Takes the descriptor handed over as `name`, if one was: it is the caller's from now on
    /// (to close when done); the host closes the descriptors nobody takes once the component
    /// has bootstrapped.
    public func takeDescriptor(_ name: String) -> Int32? {
        guard case .descriptor(let descriptor)? = items.first(where: { $0.name == name })?.item else { return nil }
        claims.claim(name)
        return descriptor
    }

    /// The descriptors nobody took, which the host closes.
    package var untakenDescriptors: [Int32] {
        items.compactMap { entry in
            guard case .descriptor(let descriptor) = entry.item, !claims.isClaimed(entry.name) else { return nil }
            return descriptor
        }
    }

    /// The names whose descriptor was taken, shared by the copies of one value.
    private final class Claims: Sendable {
        private let names = Mutex<Set<String>>([])

        func claim(_ name: String) { names.withLock { _ = $0.insert(name) } }
        func isClaimed(_ name: String) -> Bool { names.withLock { $0.contains(name) } }
    }
}

/// The worker stops to make way for another generation: each component may answer with what
/// it hands the next build of its plugin (``HandedOver``). Heard in reverse bootstrap order,
/// once the services have stopped and before ``Shutdown``, each within `--shutdown-timeout`.
public struct HandOff: LifecycleEvent {
    public typealias Answer = HandedOver
    public static var order: EventOrder { .dependentsFirst }

    public init() {}

    /// Each plugin's answer is its own; combined, the last of a name wins.
    public static func reduce(_ answers: [HandedOver]) -> HandedOver {
        var combined = HandedOver()
        for answer in answers {
            for (name, item) in answer.items {
                switch item {
                case .bytes(let bytes): combined.put(bytes, as: name)
                case .descriptor(let descriptor): combined.put(descriptor: descriptor, as: name)
                }
            }
        }
        return combined
    }
}

extension Lifecycle {
    /// Calls `hand` when the worker stops to make way for another generation, once the
    /// services have stopped (``HandOff``): return what the next build of the plugin should
    /// receive through ``Bootstrapped/handedOver``.
    public func onHandOff(_ hand: @escaping @Sendable () async throws -> HandedOver) {
        on(HandOff.self) { _ in try await hand() }
    }
}
