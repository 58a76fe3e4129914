import PluginABI
import Synchronization

/// What the builds before of this generation's plugins handed over, by plugin: each component
/// receives its own through ``Bootstrapped/handedOver`` as it bootstraps, and the descriptors
/// it did not take are closed once it has, or once the bootstraps are over.
final class HandOffInbox: Sendable {
    private let items = Mutex<[String: HandedOver]>([:])

    init(_ items: [String: HandedOver] = [:]) {
        self.items.withLock { $0 = items }
    }

    /// Adds what was received.
    func fill(_ received: [String: HandedOver]) {
        items.withLock { $0.merge(received) { _, new in new } }
    }

    /// What `plugin`'s build before handed over; empty when nothing was.
    func handedOver(to plugin: String) -> HandedOver {
        items.withLock { $0[plugin] } ?? HandedOver()
    }

    /// `plugin` bootstrapped, or will not: the descriptors it did not take are closed.
    func finish(_ plugin: String) {
        guard let handed = items.withLock({ $0.removeValue(forKey: plugin) }) else { return }
        for descriptor in handed.untakenDescriptors { FileDescriptor(rawValue: descriptor).close() }
    }

    /// Every plugin is done: what nobody took is closed.
    func finishAll() {
        for plugin in items.withLock({ Array($0.keys) }) { finish(plugin) }
    }
}
