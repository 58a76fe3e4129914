import PluginABI
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// An echo service on a socket the host listens on, for the tests of sockets that
/// survive worker generations. It answers each connection's first line with `PID: LINE`
/// and closes it. It stops accepting when asked to drain.
///
/// Settings: `socket` (the socket's name, default `echo`), `log` (path: `Echo serving`,
/// `Echo drained`, `Echo stopped`), `bootstrapMs` (how long its bootstrap takes, default 0).
public final class EchoComponent: Bootstrapping {
    public init(_ bootstrapped: Bootstrapped) throws {
        let settings = bootstrapped.settings
        let log = try settings.string("log")
        if let milliseconds = try settings.integer("bootstrapMs"), milliseconds > 0 { usleep(UInt32(milliseconds) * 1000) }
        let listener = try bootstrapped.listeningSocket(named: try settings.string("socket") ?? "echo")
        let flags = fcntl(listener.descriptor, F_GETFL)
        _ = fcntl(listener.descriptor, F_SETFL, flags | O_NONBLOCK)
        let draining = Atomic(false)
        bootstrapped.lifecycle.run {
            if let log { appendLine("Echo serving", to: log) }
            defer { close(listener.descriptor) }
            while !Task.isCancelled && !draining.load(ordering: .relaxed) {
                var waiting = pollfd(fd: listener.descriptor, events: Int16(POLLIN), revents: 0)
                guard poll(&waiting, 1, 50) > 0 else {
                    await Task.yield()
                    continue
                }
                let client = accept(listener.descriptor, nil, nil)
                if client >= 0 {
                    _ = fcntl(client, F_SETFD, FD_CLOEXEC)
                    _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) & ~O_NONBLOCK)
                    answer(client)
                }
            }
            while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(20)) }
            if let log { appendLine("Echo stopped", to: log) }
        }
        bootstrapped.lifecycle.onDrain {
            draining.store(true, ordering: .relaxed)
            if let log { appendLine("Echo drained", to: log) }
        }
    }
}

/// Reads the client's first line (within a second) and answers it.
private func answer(_ client: Int32) {
    defer { close(client) }
    var line: [UInt8] = []
    var byte: UInt8 = 0
    var waiting = pollfd(fd: client, events: Int16(POLLIN), revents: 0)
    while line.count < 1024, poll(&waiting, 1, 1000) > 0, read(client, &byte, 1) == 1, byte != UInt8(ascii: "\n") {
        line.append(byte)
    }
    let reply = Array("\(getpid()): \(String(decoding: line, as: UTF8.self))\n".utf8)
    _ = reply.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
}

@c(plugin_host_bootstrapping)
public func pluginHostBootstrapping() -> UnsafeMutableRawPointer {
    PluginEntryPoint.export(EchoComponent.self)
}
