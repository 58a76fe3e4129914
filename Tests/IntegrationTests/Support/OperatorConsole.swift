import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// An operator's commands against one host's control socket, at a short path of its own.
struct OperatorConsole {
    let path: String

    init() {
        path = Scratch.socketPath(named: "control")
    }

    /// What a host is started with to answer here.
    var arguments: [String] { ["--control", path] }

    /// Runs `plugin-host SUBCOMMAND --control PATH EXTRA...` to its end.
    func run(_ subcommand: String, _ extra: [String] = [], environment: [String: String] = [:]) throws -> CommandResult {
        try Command.run(Repository.host.path, [subcommand, "--control", path] + extra, environment: environment)
    }

    /// `plugin-host status --json`, parsed; `nil` when no status came.
    func status() -> [String: Any]? {
        guard let result = try? run("status", ["--json"]), result.status == 0,
            let object = try? JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any]
        else { return nil }
        return object
    }

    /// Asks for the status until it satisfies `condition` (the host changes as it goes), for
    /// at most `limit`; the status that did, or `nil`.
    func waitForStatus(limit: Duration = .seconds(20), _ condition: (HostStatusView) -> Bool) -> HostStatusView? {
        let deadline = ContinuousClock.now + limit
        repeat {
            if let status = status().map(HostStatusView.init), condition(status) { return status }
            usleep(20_000)
        } while ContinuousClock.now < deadline
        return nil
    }

    /// `plugin-host status --follow --json`, running in the background.
    func follow() throws -> RunningHost {
        try RunningHost(Repository.host.path, ["status", "--control", path, "--follow", "--json"])
    }
}

/// The JSON status document (docs/operations.md, schema 1), read as a test reads it.
struct HostStatusView {
    let json: [String: Any]

    init(_ json: [String: Any]) { self.json = json }

    var state: String? { json["state"] as? String }
    var generations: [[String: Any]] { json["generations"] as? [[String: Any]] ?? [] }
    var plugins: [[String: Any]] { json["plugins"] as? [[String: Any]] ?? [] }
    var restarts: [String: Any] { json["restarts"] as? [String: Any] ?? [:] }
    var warnings: [String] { json["warnings"] as? [String] ?? [] }

    func plugin(_ name: String) -> [String: Any]? { plugins.first { $0["name"] as? String == name } }

    func state(of plugin: String) -> String? { self.plugin(plugin)?["state"] as? String }
}

extension RunningHost {
    /// The JSON objects written on standard output so far, one a line (`--follow --json`).
    var jsonLines: [[String: Any]] {
        standardOutput.split(separator: "\n").compactMap { line in
            try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        }
    }

    /// Waits until a follower has shown a change for which `condition` holds; whether it did.
    func waitForChange(limit: Duration = .seconds(20), _ condition: (String, HostStatusView) -> Bool) -> Bool {
        let deadline = ContinuousClock.now + limit
        repeat {
            for line in jsonLines {
                if let change = line["change"] as? String, let status = line["status"] as? [String: Any], condition(change, HostStatusView(status)) {
                    return true
                }
            }
            usleep(20_000)
        } while ContinuousClock.now < deadline
        return false
    }
}

/// A raw client of a Unix or TCP stream socket, to send what no well-behaved client sends.
final class RawClient {
    let descriptor: Int32

    /// Connects to the Unix socket at `path`, without blocking when the backlog is full;
    /// `nil` when the connection was refused or would wait.
    init?(unix path: String) {
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard connect(descriptor, toUnixPath: path) == 0 else {
            close(descriptor)
            return nil
        }
        let flags = fcntl(descriptor, F_GETFL)
        _ = fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK)
    }

    /// Connects to 127.0.0.1:`port`.
    init?(port: UInt16) {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(descriptor)
            return nil
        }
    }

    deinit { close(descriptor) }

    /// Sends `text`; whether all of it went.
    @discardableResult
    func send(_ text: String) -> Bool {
        send(Array(text.utf8))
    }

    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    /// Reads until the other end closes, for at most `limit`; what came, and whether it closed.
    func readToEnd(limit: Duration = .seconds(15)) -> (text: String, closed: Bool) {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&waiting, 1, 50) >= 0 else { break }
            guard waiting.revents != 0 else { continue }
            let count = read(descriptor, &buffer, buffer.count)
            guard count > 0 else { return (String(decoding: received, as: UTF8.self), true) }
            received += buffer[..<count]
        }
        return (String(decoding: received, as: UTF8.self), false)
    }
}

/// The descriptors a process has open.
func openDescriptors(of process: Int32) -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(process)/fd").count) ?? -1
}

/// A TCP port on 127.0.0.1 nobody listens on now.
func unusedPort() -> UInt16 {
    let probe = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(probe) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    _ = withUnsafePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(probe, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(probe, $0, &length) }
    }
    return UInt16(bigEndian: address.sin_port)
}
