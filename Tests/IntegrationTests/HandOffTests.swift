import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Hand-offs, through the real binary: a service hands its successor what it holds (a counter
/// and its clients' open connections) at each upgrade; no connection is reset and the count
/// never goes back.
@Suite("Hand-off: a plugin hands the next build its state and its connections")
struct HandOffTests {
    /// A connection to Keeper that stays open: each line sent is answered `PID COUNT`.
    final class KeeperConnection {
        let descriptor: Int32

        init(_ path: String) throws {
            descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard descriptor >= 0, connect(descriptor, toUnixPath: path) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        }

        deinit { close(descriptor) }

        /// Sends a line and reads the answer within ten seconds: the worker and the count, or
        /// `nil` when the connection was reset, closed or left unanswered.
        func ask() -> (worker: Int32, count: Int)? {
            let line = Array("ping\n".utf8)
            guard send(descriptor, line, line.count, Int32(MSG_NOSIGNAL)) == line.count else { return nil }
            var reply: [UInt8] = []
            var byte: UInt8 = 0
            let deadline = ContinuousClock.now + .seconds(10)
            while ContinuousClock.now < deadline, reply.last != UInt8(ascii: "\n") {
                var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                guard poll(&waiting, 1, 100) >= 0 else { return nil }
                guard waiting.revents != 0 else { continue }
                guard read(descriptor, &byte, 1) == 1 else { return nil }
                reply.append(byte)
            }
            let parts = String(decoding: reply, as: UTF8.self).split(separator: " ")
            guard parts.count == 2, let worker = Int32(parts[0]), let count = Int(parts[1].dropLast()) else { return nil }
            return (worker, count)
        }
    }

    @Test("across 10 upgrades a service keeps its clients' connections and its count: none is reset, the count never goes back")
    func connectionsAndCounterAcrossUpgrades() throws {
        let service = try ServiceFixture(ticker: false)
        try service.replace("Keeper", withFile: try service.build(of: "Keeper", manifest: #"{"name": "Keeper", "version": "1.0.0", "abi": 2}"#))
        let path = Scratch.socketPath(named: "keeper")
        let (host, listener) = try service.start(["--watch", "--trial", "0", "--listen", "keeper=\(path)"])
        #expect(listener.wait(forPrefix: "READY=1") != nil, "\(host.standardError)")

        var connections = [try KeeperConnection(path)]
        var last = try #require(connections[0].ask(), "Keeper answers")
        for upgrade in 1...10 {
            connections.append(try KeeperConnection(path))
            let opened = try #require(connections.last?.ask(), "the new connection is answered before upgrade \(upgrade)")
            #expect(opened.count > last.count)
            last = opened
            try service.replace("Keeper", withFile: try service.build(of: "Keeper", manifest: #"{"name": "Keeper", "version": "1.0.\#(upgrade)", "abi": 2}"#))
            #expect(host.waitForError("plugin-host: upgraded: Keeper 1.0.\(upgrade - 1) -> 1.0.\(upgrade)"), "\(host.standardError)")
            for (index, connection) in connections.enumerated() {
                let answer = try #require(connection.ask(), "connection \(index) is answered after upgrade \(upgrade): \(host.standardError)")
                #expect(answer.count == last.count + 1, "the count goes on from \(last.count): \(answer.count)")
                #expect(answer.worker != opened.worker, "the new worker answers on a connection the old one accepted")
                last = answer
            }
        }
        #expect(host.standardError.contains("plugin-host: handing generation "), "\(host.standardError)")
        #expect(host.stop(with: SIGTERM).status == 0)
    }
}
