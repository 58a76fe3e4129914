import Foundation
import Testing

/// The banana store never loses data: not when the host is killed mid-write, not when two
/// hosts share a data directory.
@Suite("The banana store under SIGKILL and concurrency")
struct StoreDurabilityTests {
    /// What a valid store holds: bananas 1...n, the peeled ones a prefix (peels go in id order).
    private struct StoreState: Equatable {
        var bananas = 0
        var peeled = 0
    }

    /// Reads and checks the store; a store that is not exactly as the peeler writes it fails the test.
    private func validState(of directory: PluginDirectoryFixture, sourceLocation: SourceLocation = #_sourceLocation) throws -> StoreState {
        let store = directory.data.appending(path: "bananas.json")
        guard FileManager.default.fileExists(atPath: store.path) else { return StoreState() }
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: store)) as? [String: Any]
        let contents = try #require(object, "the store is not a JSON object", sourceLocation: sourceLocation)
        #expect(contents["format"] as? Int == 1, sourceLocation: sourceLocation)
        let bananas = try #require(contents["bananas"] as? [[String: Any]], sourceLocation: sourceLocation)
        #expect(bananas.map { $0["id"] as? Int } == Array(1...max(bananas.count, 1)).prefix(bananas.count).map { $0 }, sourceLocation: sourceLocation)
        let peeled = bananas.map { $0["isPeeled"] as? Bool ?? false }
        let count = peeled.prefix { $0 }.count
        #expect(!peeled.dropFirst(count).contains(true), "peeled bananas must be a prefix", sourceLocation: sourceLocation)
        return StoreState(bananas: bananas.count, peeled: count)
    }

    private func startHost(_ directory: PluginDirectoryFixture) throws -> Process {
        let process = Process()
        process.executableURL = Repository.host
        process.arguments = ["--dir", directory.plugins.path, "--config", directory.configuration.path, "--timeout", "0"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// A third or more of the kills land in the middle of a write (18 to 47 of 60 in runs here,
    /// idle and loaded): a dozen half-done writes or more for the store to recover from.
    static let kills = 60

    @Test("60 SIGKILLs at random points during writes: each time the store is valid and holds the state before or after a write")
    func killDuringWrites() throws {
        let directory = try PluginDirectoryFixture.demo(fixtures: ["Hammer"])
        try directory.configure(#""Hammer": {"peels": 100000000}"#)
        let temporary = directory.data.appending(path: "bananas.json.tmp")
        var previous = StoreState()
        var interruptedWrites = 0
        var progressed = 0
        var random = SeededRandom(seed: 2026)
        for round in 1...Self.kills {
            let host = try startHost(directory)
            defer {
                if host.isRunning { kill(host.processIdentifier, SIGKILL) }
                host.waitUntilExit()
            }
            // Once the store shows the host's progress (however long it takes to start on a
            // loaded machine), Hammer writes it again and again: a kill up to 5 ms later lands
            // anywhere in a write, or between two.
            let deadline = Date().addingTimeInterval(60)
            while try validState(of: directory) == previous && host.isRunning && Date() < deadline { usleep(500) }
            #expect(try validState(of: directory) != previous, "round \(round): the host made no progress")
            usleep(UInt32.random(in: 0...5_000, using: &random))
            let workers = HostProcesses.children(of: host.processIdentifier)
            kill(host.processIdentifier, SIGKILL)
            host.waitUntilExit()
            #expect(host.terminationReason == .uncaughtSignal)
            // Its worker ends with it, and with the worker the store's lock, which the next
            // round's host must find free.
            #expect(wait(limit: .seconds(60)) { !workers.contains(where: HostProcesses.isAlive) }, "round \(round): the worker outlived its supervisor")
            if FileManager.default.fileExists(atPath: temporary.path) { interruptedWrites += 1 }

            let state = try validState(of: directory)
            #expect(state.peeled >= previous.peeled, "round \(round): peeled went back from \(previous.peeled) to \(state.peeled)")
            #expect(state.bananas >= state.peeled)
            if state != previous { progressed += 1 }
            previous = state
            // Nothing but the store, its lock, and a write the kill left half-done.
            let files = Set((try? FileManager.default.contentsOfDirectory(atPath: directory.data.path)) ?? [])
            #expect(files.isSubset(of: ["bananas.json", "bananas.lock", "bananas.json.tmp"]), "round \(round): \(files)")
        }
        #expect(progressed == Self.kills, "each kill follows progress")
        #expect(interruptedWrites > 0, "no kill landed in the middle of a write")
        print("StoreDurabilityTests: \(interruptedWrites) of \(Self.kills) kills left a write half-done; \(previous.peeled) peels survived")

        // A normal run afterwards continues from the last state and cleans up.
        try directory.configure(#""Hammer": {"peels": 1}"#)
        let result = try directory.runHost()
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try validState(of: directory).peeled == previous.peeled + 2)  // Application and Hammer peel one each
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: directory.data.path)) == ["bananas.json", "bananas.lock"])
    }

    @Test("a second host on a store in use fails with a clear error, and the store stays valid")
    func twoHosts() throws {
        let directory = try PluginDirectoryFixture.demo(fixtures: ["Hammer"])
        try directory.configure(#""Hammer": {"peels": 100000000}"#)
        let first = try startHost(directory)
        defer {
            if first.isRunning { kill(first.processIdentifier, SIGKILL) }
            first.waitUntilExit()
        }
        let store = directory.data.appending(path: "bananas.json")
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: store.path) && Date() < deadline { usleep(10_000) }

        // The store is held by the first host's worker process, the supervisor's child.
        let worker = try #require(HostProcesses.children(of: first.processIdentifier).first)
        let second = try directory.runHost()
        #expect(second.status == 1)
        #expect(second.standardError.contains(
            "failed to bootstrap: banana store \(store.path) is in use by process \(worker); run one host per data directory"))

        kill(first.processIdentifier, SIGKILL)
        first.waitUntilExit()
        _ = try validState(of: directory)
        try directory.configure(#""Hammer": {"peels": 1}"#)
        #expect(try directory.runHost().status == 0)
    }
}
