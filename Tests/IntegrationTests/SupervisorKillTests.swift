import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The host killed outright, through the real binary: its supervisor gets SIGKILL at random
/// moments across upgrades, trials, rollbacks and the record's writes; every next start reads
/// its record, runs only the builds the record allows, and keeps every permanent build.
///
/// `make test` kills it a few times; `make kills` (`PLUGIN_HOST_KILLS=100`) a hundred.
@Suite("SIGKILL of the supervisor at any moment: the next start runs only what the record allows")
struct SupervisorKillTests {
    /// What the record held of Ticker when a host started, read as the test reads the file.
    private struct TickerRecord {
        var leftOut: Set<String> = []
        var onTrial: Set<String> = []
        /// Newest last.
        var permanent: [String] = []

        init(_ text: String) {
            for line in text.split(separator: "\n") {
                let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
                guard fields.count > 3, fields[1] == "Ticker" else { continue }
                switch fields[0] {
                case "left-out": leftOut.insert(fields[3])
                case "on-trial": onTrial.insert(fields[3])
                case "permanent": permanent.append(fields[3])
                default: break
                }
            }
        }
    }

    @Test("a hundred SIGKILLs of the supervisor (PLUGIN_HOST_KILLS): each next start runs no build left out or on trial as permanent, and keeps the permanent build")
    func killedAtRandomMoments() throws {
        let kills = Int(ProcessInfo.processInfo.environment["PLUGIN_HOST_KILLS"] ?? "") ?? 4
        let seed = UInt64(ProcessInfo.processInfo.environment["PLUGIN_HOST_KILL_SEED"] ?? "") ?? UInt64(UInt32(truncatingIfNeeded: time(nil)))
        var random = SeededRandom(seed: seed)
        // Ticker's next build crashes 300 ms after it serves: an upgrade to it fails its trial.
        let service = try ServiceFixture(tickerSettings: #""nextBuildFails": "crash""#)
        let state = try Scratch.directory(named: "state")
        let console = OperatorConsole()
        var version = 1
        // Each build gets a version of its own, so that the status names the build that runs.
        func install(crashing: Bool) throws -> String {
            version += 1
            let name = "1.0.\(version)"
            try service.replace("Ticker", withFile: try service.build(
                of: crashing ? "TickerNext" : "Ticker",
                manifest: #"{"name": "Ticker", "version": "\#(name)", "abi": 2, "settings": ["log", "trigger", "crashIn", "pollMs", "failsInNextBuild", "printEvery", "nextBuildFails", "failAfterMs"]}"#))
            return name
        }
        var inFile = try install(crashing: false)
        let context = "seed \(seed) (PLUGIN_HOST_KILL_SEED)"

        for round in 1...kills {
            let recordAtStart = RecordOnDisk.text(in: state)
            let record = TickerRecord(recordAtStart)
            let (host, listener) = try service.start(console.arguments + ["--state", state.path, "--watch", "--trial", "2", "--shutdown-timeout", "1"])
            let said = "round \(round), \(context), the file holds \(inFile), the record: \(record)"
            // What the record allows: not a build left out or on trial; in its place, the newest
            // permanent build not left out.
            let expected: String? = record.leftOut.contains(inFile) || record.onTrial.contains(inFile)
                ? record.permanent.last { !record.leftOut.contains($0) } : inFile
            #expect(listener.wait(forPrefix: "READY=1") != nil, "\(said): \(host.standardError)")
            let status = console.waitForStatus { $0.state == "serving" }
            let running = status?.plugin("Ticker").flatMap { $0["state"] as? String == "serving" ? $0["version"] as? String : nil }
            // The first generation that serves: an upgrade may follow it, trying the file again.
            var first = firstServed(in: host.standardError, generationOneRuns: running)
            // An upgrade may have served before its line was read: wait for the line then.
            if case .some(let seen) = first, seen != expected, host.waitForError("plugin-host: upgraded: ", limit: .seconds(5)) {
                first = firstServed(in: host.standardError, generationOneRuns: running)
            }
            if case .some(let seen) = first { #expect(seen == expected, "\(said): \(host.standardError)\nRECORD\n\(recordAtStart)") }
            #expect(!host.standardError.contains("is damaged"), "\(said): \(host.standardError)")
            if let newest = record.permanent.last {
                #expect(IntegrationTests.wait { TickerRecord(RecordOnDisk.text(in: state)).permanent.contains(newest) }, "\(said): lost \(newest): \(RecordOnDisk.text(in: state))")
            }

            // Something happens, and the supervisor is killed at a random moment of it.
            switch random.next() % 4 {
            case 0: inFile = try install(crashing: true)
            case 1: inFile = try install(crashing: false)
            case 2: try Data().write(to: service.trigger)
            default: break
            }
            usleep(useconds_t(random.next() % 1_500) * 1_000)
            let children = HostProcesses.children(of: host.processIdentifier)
            _ = host.stop(with: SIGKILL)
            try? FileManager.default.removeItem(at: service.trigger)
            for child in children { #expect(IntegrationTests.wait { kill(child, 0) != 0 && errno == ESRCH }, "\(said): worker \(child) outlived its supervisor") }
        }
    }

    /// The version of Ticker the first generation to serve ran: read from what the host said
    /// (an upgrade after it names the version it replaced), else `running` when none followed.
    private func firstServed(in standardError: String, generationOneRuns running: String?) -> String?? {
        if let upgraded = standardError.split(separator: "\n").first(where: { $0.hasPrefix("plugin-host: upgraded: ") && $0.contains("Ticker ") }) {
            // `upgraded: Ticker 1.0.2 -> 1.0.3`, or `Ticker 1.0.3 (new)` when none ran.
            guard let range = upgraded.range(of: "Ticker ") else { return nil }
            let rest = upgraded[range.upperBound...]
            if rest.contains(" (new)") { return .some(nil) }
            return .some(rest.split(separator: " ").first.map(String.init))
        }
        if standardError.contains("plugin-host: upgraded:") || standardError.contains("restarting") || standardError.contains("rolling back") { return nil }
        return .some(running)
    }
}
