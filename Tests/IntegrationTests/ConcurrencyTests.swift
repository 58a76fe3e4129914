import Foundation
import Testing

@Suite("Concurrent bootstrap and ABI evolution")
struct ConcurrencyTests {
    /// Two independent fixtures that each wait 300 ms in their bootstrap: `setting` is
    /// `bootstrapDelay` (an asynchronous sleep) or `bootstrapBusy` (a blocking one).
    private func sleepers(_ setting: String) throws -> PluginDirectoryFixture {
        let directory = try PluginDirectoryFixture.demo(fixtures: ["RecA", "Twin"])
        try directory.configure(#""RecA": {"\#(setting)": 300}, "Twin": {"\#(setting)": 300}"#)
        return directory
    }

    private func overlaps(_ directory: PluginDirectoryFixture, jobs: Int) throws -> Bool {
        let (result, report) = try directory.runHostJSON(["--jobs", "\(jobs)"])
        #expect(result.status == 0, "\(result.standardError)")
        let byName = Dictionary(uniqueKeysWithValues: report.plugins.map { ($0["name"] as? String ?? "", $0) })
        return try interval(try #require(byName["RecA"])).overlaps(try interval(try #require(byName["Twin"])))
    }

    /// When a plugin's bootstrap started and finished; the test fails when the report lacks
    /// either, rather than reading a missing time as 0.
    private func interval(_ plugin: [String: Any]) throws -> ClosedRange<Double> {
        let started = try #require(plugin["startedMilliseconds"] as? Double, "no start time in \(plugin)")
        let finished = try #require(plugin["finishedMilliseconds"] as? Double, "no finish time in \(plugin)")
        return started...finished
    }

    @Test("blocking bootstraps of independent plugins run at once with --jobs 2, one after the other with --jobs 1")
    func blockingBootstraps() throws {
        let directory = try sleepers("bootstrapBusy")
        #expect(try overlaps(directory, jobs: 2))
        #expect(try !overlaps(directory, jobs: 1))
    }

    @Test("asynchronous bootstraps that wait hold no thread, so they overlap even with --jobs 1")
    func waitingBootstraps() throws {
        let directory = try sleepers("bootstrapDelay")
        #expect(try overlaps(directory, jobs: 1))
    }

    @Test("the outcome does not depend on --jobs: same order, same statuses")
    func sameOutcome() throws {
        var outcomes: [[String]] = []
        for jobs in ["1", "2", "8"] {
            let directory = try PluginDirectoryFixture.demo(fixtures: ["RecA", "RecB", "RecC", "Twin", "Gauges", "Ripener"])
            let (result, report) = try directory.runHostJSON(["--jobs", jobs])
            #expect(result.status == 0, "\(result.standardError)")
            outcomes.append(report.plugins.map { "\($0["name"]!) \($0["status"]!)" })
        }
        #expect(outcomes[0] == outcomes[1])
        #expect(outcomes[0] == outcomes[2])
        #expect(outcomes[0].contains("Persistence bootstrapped"))
        #expect(outcomes[0].firstIndex(of: "Persistence bootstrapped")! < outcomes[0].firstIndex(of: "Domain bootstrapped")!)
    }

    @Test("--jobs takes 1 to 128")
    func jobsValues() throws {
        let result = try Command.run(Repository.host.path, ["--dir", "/tmp", "--jobs", "0"])
        #expect(result.status == 64)
        #expect(result.standardError.hasPrefix("plugin-host: --jobs needs a whole number from 1 to 128, not '0'"))
    }
}
