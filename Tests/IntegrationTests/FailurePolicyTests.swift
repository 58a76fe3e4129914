import Foundation
import Testing

@Suite("Failure policy: fail fast, --keep-going, optional dependencies")
struct FailurePolicyTests {
    @Test("by default the first failure stops the run")
    func failFast() throws {
        let directory = try PluginDirectoryFixture.demo(fixtures: ["Failing", "NeedsFailing"])
        let (result, report) = try directory.runHostJSON(["--jobs", "1"])
        #expect(result.status == 1)
        #expect(report.plugins.filter { $0["status"] as? String == "bootstrapped" }.isEmpty)
    }

    @Test("with concurrent bootstraps, a failure lets those already running finish and starts no new one")
    func failFastConcurrently() throws {
        let directory = try PluginDirectoryFixture(fixtures: ["Twin", "RecA", "RecB"])
        try directory.configure(#""RecA": {"bootstrapDelay": 600}, "Twin": {"bootstrapDelay": 150, "bootstrapFails": true}"#)
        let (result, report) = try directory.runHostJSON(["--jobs", "2"])
        #expect(result.status == 1)
        let status = Dictionary(uniqueKeysWithValues: report.plugins.map { ($0["name"] as! String, $0["status"] as! String) })
        // RecA and Twin are ready together; their bootstraps sleep without holding a thread,
        // so both are running when Twin fails. RecA finishes; RecB, ready only after RecA,
        // does not start.
        #expect(status["Twin"] == "failed")
        #expect(status["RecA"] == "bootstrapped")
        #expect(status["RecB"] == "not-run")
    }

    @Test("--keep-going runs everything that does not depend on a failure and gives each reason chain")
    func keepGoing() throws {
        let directory = try PluginDirectoryFixture.demo(fixtures: ["Failing", "NeedsFailing", "NeedsNeedsFailing"])
        let (result, report) = try directory.runHostJSON(["--keep-going"])
        #expect(result.status == 1)
        let status = Dictionary(uniqueKeysWithValues: report.plugins.map { ($0["name"] as! String, $0["status"] as! String) })
        #expect(status == [
            "Persistence": "bootstrapped", "Domain": "bootstrapped", "Application": "bootstrapped",
            "Failing": "failed", "NeedsFailing": "not-run", "NeedsNeedsFailing": "not-run",
        ])
        let messages = report.errors.compactMap { $0["message"] as? String }
        #expect(messages.contains("NeedsFailing did not run: it requires Failing, which failed: the banana warehouse is too hot"))
        #expect(messages.contains(
            "NeedsNeedsFailing did not run: it requires NeedsFailing, which did not run: it requires Failing, which failed: the banana warehouse is too hot"))
        #expect(result.standardError.contains("Application: peeled banana #1"))
    }

    @Test("--keep-going: when Persistence fails, Domain and Application are named with the chain, the rest runs")
    func keepGoingDemoChain() throws {
        let directory = try PluginDirectoryFixture.demo(fixtures: ["Twin"])
        try FileManager.default.createDirectory(at: directory.data, withIntermediateDirectories: true)
        try Data("not a store".utf8).write(to: directory.data.appending(path: "bananas.json"))
        let result = try directory.runHost(["--keep-going"])
        #expect(result.status == 1)
        #expect(result.standardError.contains(
            "plugin-host: error: Application did not run: it requires Domain, which did not run: it requires Persistence, which failed: banana store "))
        #expect(result.standardOutput.contains("Twin         1.0.0    -            bootstrapped"))
    }

    @Test("--keep-going runs around graph problems too")
    func keepGoingAroundGraphProblems() throws {
        let directory = try PluginDirectoryFixture.demo(fixtures: ["CycleA", "CycleB", "CycleC", "NeedsGhost"])
        let (result, report) = try directory.runHostJSON(["--keep-going"])
        #expect(result.status == 1)
        let bootstrapped = report.plugins.filter { $0["status"] as? String == "bootstrapped" }.compactMap { $0["name"] as? String }
        #expect(bootstrapped == ["Persistence", "Domain", "Application"])
        #expect(Set(report.errors.compactMap { $0["code"] as? String }) == ["dependency-cycle", "missing-dependency"])
    }

    @Test("an installed optional dependency is ordered first and visible")
    func optionalPresent() throws {
        let directory = try PluginDirectoryFixture(demo: ["Persistence"], fixtures: ["Gauges"])
        let (result, report) = try directory.runHostJSON()
        #expect(result.status == 0, "\(result.standardError)")
        #expect(report.plugins.map { $0["name"] as? String } == ["Persistence", "Gauges"])
        #expect(result.standardError.contains("Gauges: measuring Persistence.PersistenceBootstrapping"))
    }

    @Test("without its optional dependency a plugin bootstraps, and the lookup throws the not-found error")
    func optionalAbsent() throws {
        let directory = try PluginDirectoryFixture(fixtures: ["Gauges"])
        let result = try directory.runHost()
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains(
            "Gauges: running without Persistence (expected component not found: plugin Gauges asked for PluginABI.Bootstrapping"))
    }
}
