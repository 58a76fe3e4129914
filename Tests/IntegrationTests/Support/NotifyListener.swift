import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A datagram socket that listens as systemd does for `sd_notify` messages: `NOTIFY_SOCKET`
/// names it, as a path or, starting with `@`, in the abstract namespace.
final class NotifyListener {
    private let descriptor: Int32
    private let path: String?
    /// The value of `NOTIFY_SOCKET` that reaches it.
    let address: String

    /// Binds a socket at a fresh path, or a fresh abstract name when `abstract`.
    init(abstract: Bool = false) throws {
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        let name: String
        if abstract {
            name = "plugin-host-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            address = "@" + name
            path = nil
        } else {
            // A short path: a socket's path has at most 107 bytes.
            name = Scratch.socketPath(named: "notify")
            address = name
            path = name
        }
        var socketAddress = sockaddr_un()
        socketAddress.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(name.utf8)
        let offset = abstract ? 1 : 0
        withUnsafeMutableBytes(of: &socketAddress.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[offset + index] = byte }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + offset + bytes.count + (abstract ? 0 : 1))
        let bound = withUnsafePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard bound == 0 else {
            close(descriptor)
            throw POSIXError(.init(rawValue: errno) ?? .EIO)
        }
    }

    deinit {
        close(descriptor)
        if let path { unlink(path) }
    }

    /// The next message, or `nil` when none arrives within `limit`.
    func next(within limit: Duration = .seconds(10)) -> String? {
        let deadline = ContinuousClock.now + limit
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return nil }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(min(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1, 60_000))
            guard poll(&poller, 1, milliseconds) > 0 else { continue }
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count >= 0 { return String(decoding: buffer[..<count], as: UTF8.self) }
        }
    }

    /// The next message that is not a watchdog ping.
    func nextSkippingPings(within limit: Duration = .seconds(10)) -> String? {
        let deadline = ContinuousClock.now + limit
        while let message = next(within: deadline - ContinuousClock.now) {
            if message != "WATCHDOG=1" { return message }
        }
        return nil
    }

    /// Waits for `message`, skipping others, for at most `limit`.
    func wait(for message: String, within limit: Duration = .seconds(10)) -> Bool {
        let deadline = ContinuousClock.now + limit
        while let next = next(within: deadline - ContinuousClock.now) {
            if next == message { return true }
        }
        return false
    }

    /// Every message that arrives within `span`.
    func messages(during span: Duration) -> [String] {
        let deadline = ContinuousClock.now + span
        var messages: [String] = []
        while let message = next(within: deadline - ContinuousClock.now) { messages.append(message) }
        return messages
    }
}
