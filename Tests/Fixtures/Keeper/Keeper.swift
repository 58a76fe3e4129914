import PluginABI
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A service that keeps its clients' connections open and counts the lines they send, for
/// the tests of hand-offs: each line is answered `PID COUNT`, the count over every worker it
/// ran in. When its worker stops to make way for the next generation it hands over the count
/// (`counter`) and every open connection (`connection-N`); the next build takes them up.
///
/// Settings: `socket` (the socket's name, default `keeper`), `log` (path: `Keeper took N
/// connections at COUNT`, `Keeper handed over N connections at COUNT`).
public final class KeeperComponent: Bootstrapping {
    public init(_ bootstrapped: Bootstrapped) throws {
        let settings = bootstrapped.settings
        let log = try settings.string("log")
        let listener = try bootstrapped.listeningSocket(named: try settings.string("socket") ?? "keeper")
        _ = fcntl(listener.descriptor, F_SETFL, fcntl(listener.descriptor, F_GETFL) | O_NONBLOCK)
        let handed = bootstrapped.handedOver
        let start = handed.bytes("counter").map { bytes in bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) } } ?? 0
        let state = State(counter: start, connections: handed.names.filter { $0.hasPrefix("connection-") }.compactMap(handed.takeDescriptor))
        if let log { appendLine("Keeper took \(state.connections.withLock { $0.count }) connections at \(start)", to: log) }
        let accepting = Atomic(true)

        bootstrapped.lifecycle.run {
            while !Task.isCancelled {
                var watched = [pollfd(fd: accepting.load(ordering: .relaxed) ? listener.descriptor : -1, events: Int16(POLLIN), revents: 0)]
                watched += state.connections.withLock { $0 }.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
                guard poll(&watched, nfds_t(watched.count), 20) > 0 else {
                    await Task.yield()
                    continue
                }
                if watched[0].revents != 0 {
                    let client = accept(listener.descriptor, nil, nil)
                    if client >= 0 { state.connections.withLock { $0.append(client) } }
                }
                for entry in watched.dropFirst() where entry.revents != 0 { state.serve(entry.fd) }
            }
            // Cancelled: the connections stay open, for the hand-off (or the host closes them).
        }
        bootstrapped.lifecycle.onDrain { accepting.store(false, ordering: .relaxed) }
        bootstrapped.lifecycle.onHandOff {
            var handing = HandedOver()
            let counter = state.counter.load(ordering: .relaxed)
            handing.put((0..<8).reversed().map { UInt8(truncatingIfNeeded: counter >> ($0 * 8)) }, as: "counter")
            let connections = state.connections.withLock { connections in
                defer { connections = [] }
                return connections
            }
            for (index, connection) in connections.enumerated() { handing.put(descriptor: connection, as: "connection-\(index)") }
            if let log { appendLine("Keeper handed over \(connections.count) connections at \(counter)", to: log) }
            return handing
        }
    }
}

/// The count and the open connections, shared by the service and the hand-off.
private final class State: Sendable {
    let counter: Atomic<UInt64>
    let connections: Mutex<[Int32]>

    init(counter: UInt64, connections: [Int32]) {
        self.counter = Atomic(counter)
        self.connections = Mutex(connections)
    }

    /// Reads what `connection` sent: each whole line counts and is answered `PID COUNT`; a
    /// connection the client closed is closed.
    func serve(_ connection: Int32) {
        var buffer = [UInt8](repeating: 0, count: 512)
        let count = recv(connection, &buffer, buffer.count, Int32(MSG_DONTWAIT))
        guard count != 0, !(count < 0 && errno != EAGAIN && errno != EINTR) else {
            connections.withLock { $0.removeAll { $0 == connection } }
            close(connection)
            return
        }
        for _ in buffer.prefix(max(0, count)).filter({ $0 == UInt8(ascii: "\n") }) {
            let value = counter.add(1, ordering: .relaxed).newValue
            let reply = Array("\(getpid()) \(value)\n".utf8)
            _ = reply.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }
    }
}

@c(plugin_host_bootstrapping)
public func pluginHostBootstrapping() -> UnsafeMutableRawPointer {
    PluginEntryPoint.export(KeeperComponent.self)
}
