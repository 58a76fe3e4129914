import Foundation
import Testing

@Suite("Concurrent bootstrap and ABI evolution")
struct ConcurrencyTests {
    /// Two independent fixtures that each sleep `delay` ms in an asynchronous bootstrap.
    private func sleepers(_ delay: Int) throws -> PluginDirectoryFixture {
        let directory = try PluginDirectoryFixture.demo(fixtures: ["RecA", "Twin"])
        try directory.configure(#""RecA": {"bootstrapDelay": \#(delay)}, "Twin": {"bootstrapDelay": \#(delay)}"#)
        return directory
    }

    private func interval(_ plugin: [String: Any]) -> ClosedRange<Double> {
        (plugin["startedMilliseconds"] as? Double ?? 0)...(plugin["finishedMilliseconds"] as? Double ?? 0)
    }

    @Test("independent components bootstrap at the same time with --jobs 2, one after the other with --jobs 1")
    func overlap() throws {
        let directory = try sleepers(300)
        let (parallel, parallelReport) = try directory.runHostJSON(["--jobs", "2"])
        #expect(parallel.status == 0, "\(parallel.standardError)")
        let byName = Dictionary(uniqueKeysWithValues: parallelReport.plugins.map { ($0["name"] as! String, $0) })
        #expect(interval(byName["RecA"]!).overlaps(interval(byName["Twin"]!)))

        let (sequential, sequentialReport) = try directory.runHostJSON(["--jobs", "1"])
        #expect(sequential.status == 0)
        let sequentialByName = Dictionary(uniqueKeysWithValues: sequentialReport.plugins.map { ($0["name"] as! String, $0) })
        #expect(!interval(sequentialByName["RecA"]!).overlaps(interval(sequentialByName["Twin"]!)))
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
        #expect(outcomes[0].first == "Domain bootstrapped" || outcomes[0].contains("Persistence bootstrapped"))
    }

    @Test("a plugin built against the ABI 1.0 interface, before async bootstrap and shutdown existed, still loads and runs")
    func legacyPlugin() throws {
        let directory = try PluginDirectoryFixture.demo(fixtures: ["Legacy"])
        let result = try directory.runHost()
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("Legacy: bootstrapped through the ABI 1.0 interface"))
    }

    @Test("--jobs takes 1 to 128")
    func jobsValues() throws {
        let result = try Command.run(Repository.host.path, ["--dir", "/tmp", "--jobs", "0"])
        #expect(result.status == 64)
        #expect(result.standardError.hasPrefix("plugin-host: --jobs needs a whole number from 1 to 128, not '0'"))
    }
}
