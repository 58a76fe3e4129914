import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What the host proved outlives the host, through the real binary: a build left out for a
/// crash stays out at the next start, however the host before ended; a damaged record is said
/// once and ignored; a state directory that cannot be written is said once, and the host runs.
@Suite("The record: a build left out stays out after the host ends, however it ended")
struct RecordTests {
    /// Starts the service with its record in `state`, has Ticker crash, and waits until the
    /// host serves without it.
    private func crashTicker(_ service: ServiceFixture, state: URL) throws -> (RunningHost, NotifyListener) {
        let (host, listener) = try service.start(["--state", state.path])
        #expect(listener.wait(forPrefix: "READY=1") == "READY=1\nSTATUS=5 plugins running", "\(host.standardError)")
        try Data().write(to: service.trigger)
        #expect(listener.wait(forPrefix: "READY=1", containing: "left out: Ticker (crashed during the run phase: SIGSEGV") != nil, "\(host.standardError)")
        try FileManager.default.removeItem(at: service.trigger)
        return (host, listener)
    }

    @Test("a build left out for a crash stays out at the next start, after a stop or a SIGKILL of the supervisor",
          arguments: [SIGTERM, SIGKILL])
    func leftOutAcrossStarts(ending: Int32) throws {
        let service = try ServiceFixture()
        let state = try Scratch.directory(named: "state")
        let (first, _) = try crashTicker(service, state: state)
        let worker = service.echo()
        _ = first.stop(with: ending)
        // A supervisor killed outright takes its worker with it (its parent-death signal): the
        // next host starts once that worker is gone, as under systemd.
        if case .answered(let process) = worker { #expect(waitUntilGone(process)) }
        #expect(service.log.lines.filter { $0 == "Ticker 0.1.0 bootstrap" }.count == 1)

        let (second, listener) = try service.start(["--state", state.path])
        #expect(listener.wait(forPrefix: "READY=1", containing: "left out: Ticker (crashed during the run phase: SIGSEGV") != nil, "\(second.standardError)")
        #expect(second.waitForError(
            "plugin-host: left out, as the record of what this host proved says: Ticker 0.1.0 (\(service.file("Ticker").path)): "
                + "crashed during the run phase: SIGSEGV; until the file changes, or plugin-host restart Ticker"), "\(second.standardError)")
        // Ready means every plugin the generation runs was bootstrapped: Ticker was not.
        #expect(service.log.lines.filter { $0 == "Ticker 0.1.0 bootstrap" }.count == 1, "\(service.log.lines)")
        #expect(second.stop(with: SIGTERM).status == 0)
    }

    @Test("a new file of the plugin left out runs at the next start: the record leaves out builds, not names")
    func newFileRuns() throws {
        let service = try ServiceFixture()
        let state = try Scratch.directory(named: "state")
        let (first, _) = try crashTicker(service, state: state)
        #expect(first.stop(with: SIGTERM).status == 0)
        try service.replace("Ticker", with: "Ticker")

        let (second, listener) = try service.start(["--state", state.path])
        #expect(listener.wait(forPrefix: "READY=1") == "READY=1\nSTATUS=5 plugins running", "\(second.standardError)")
        #expect(!second.standardError.contains("left out, as the record"), "\(second.standardError)")
        #expect(second.stop(with: SIGTERM).status == 0)
    }

    @Test("a record cut short is said once and ignored: the host starts as if it had none")
    func damagedRecord() throws {
        let service = try ServiceFixture()
        let state = try Scratch.directory(named: "state")
        let (first, _) = try crashTicker(service, state: state)
        #expect(first.stop(with: SIGTERM).status == 0)
        let record = state.appending(path: try #require(RecordOnDisk.file(in: state)))
        let bytes = try Data(contentsOf: record)
        try bytes.prefix(bytes.count - 5).write(to: record)

        let (second, listener) = try service.start(["--state", state.path])
        #expect(listener.wait(forPrefix: "READY=1") == "READY=1\nSTATUS=5 plugins running", "\(second.standardError)")
        let warning = "plugin-host: warning: the record at \(record.path) is damaged (it ends before its last line (a write cut short)); ignoring it"
        #expect(second.standardError.components(separatedBy: warning).count == 2, "\(second.standardError)")
        #expect(second.stop(with: SIGTERM).status == 0)
    }

    @Test("a state directory that cannot be written is said once; the host runs on as it would without one")
    func unwritableState() throws {
        let service = try ServiceFixture()
        let blocker = try Scratch.directory(named: "state").appending(path: "a-file")
        try Data("not a directory".utf8).write(to: blocker)
        let (host, _) = try crashTicker(service, state: blocker)
        #expect(host.waitForError("plugin-host: warning: cannot keep the record at \(blocker.path)/record-"), "\(host.standardError)")
        #expect(host.standardError.components(separatedBy: "cannot keep the record").count == 2, "\(host.standardError)")
        #expect(host.stop(with: SIGTERM).status == 0)
    }

    /// Starts the watching service with its record in `state`, upgrades Ticker 0.1.0 to 0.2.0,
    /// on trial for 600 s, and returns once the record on disk has the trial.
    /// Starts a host and upgrades Ticker to 0.2.0, on trial; unless the build fails by itself
    /// soon after (`recordsTheTrial` false), waits for the record to hold its trial (the record's
    /// writer writes the newest record it was handed, so a trial that ends at once may never be
    /// on disk).
    private func upgradeOnTrial(
        _ service: ServiceFixture, state: URL, console: OperatorConsole? = nil, recordsTheTrial: Bool = true
    ) throws -> (RunningHost, NotifyListener) {
        let (host, listener) = try service.start((console?.arguments ?? []) + ["--state", state.path] + watching)
        #expect(listener.wait(forPrefix: "READY=1") == "READY=1\nSTATUS=5 plugins running", "\(host.standardError)")
        try service.replace("Ticker", with: "TickerNext")
        #expect(host.waitForError("plugin-host: on trial for 600 s (--trial): Ticker 0.2.0 (replacing 0.1.0)"), "\(host.standardError)")
        if recordsTheTrial {
            #expect(IntegrationTests.wait { RecordOnDisk.text(in: state).contains("on-trial\tTicker\t") }, "\(RecordOnDisk.text(in: state))")
        }
        return (host, listener)
    }

    private let watching = ["--watch", "--trial", "600", "--shutdown-timeout", "1"]

    @Test("a build on trial when the host stopped, or its supervisor was killed, is not run as permanent: the permanent build runs from the record's copy, and the build on trial is tried again as an upgrade",
          arguments: [SIGTERM, SIGKILL])
    func trialAcrossStarts(ending: Int32) throws {
        let service = try ServiceFixture()
        let state = try Scratch.directory(named: "state")
        let (first, _) = try upgradeOnTrial(service, state: state)
        let worker = service.echo()
        _ = first.stop(with: ending)
        if case .answered(let process) = worker { #expect(waitUntilGone(process)) }
        #expect(service.log.lines.filter { $0 == "Ticker 0.1.0 serving" }.count == 1)

        let (second, listener) = try service.start(["--state", state.path] + watching)
        #expect(second.waitForError(
            "plugin-host: was on trial when the host last stopped, so not run as permanent: Ticker 0.2.0 (\(service.file("Ticker").path)), "
                + "running 0.1.0 from the record in its place; tried again as an upgrade, on trial, once the host serves"), "\(second.standardError)")
        #expect(second.waitForError("plugin-host: upgraded: Ticker 0.1.0 -> 0.2.0"), "\(second.standardError)")
        #expect(second.waitForError("plugin-host: on trial for 600 s (--trial): Ticker 0.2.0 (replacing 0.1.0)"), "\(second.standardError)")
        #expect(listener.wait(forPrefix: "READY=1", containing: "5 plugins running") != nil, "\(second.standardError)")
        // The first generation's report says when the build on trial is tried again: once the host serves.
        #expect(second.standardOutput.contains(
            "Running the build before: Ticker 0.1.0, in place of \(service.file("Ticker").path): its build 0.2.0 was on trial when the host last stopped; "
                + "the build that ran before, 0.1.0, runs until the host serves; 0.2.0 is then tried again as an upgrade, on trial\n"), "\(second.standardOutput)")
        // The build that ran before came from the record's copy: the file holds 0.2.0.
        #expect(service.log.wait(for: "Ticker 0.1.0 serving", count: 2), "\(service.log.lines)")
        #expect(second.stop(with: SIGTERM).status == 0)

        // What the record holds, read with no host running.
        let history = try Command.run(Repository.host.path, ["history", "Ticker", "--dir", service.directory.plugins.path, "--state", state.path, "--json"])
        #expect(history.status == 0, "\(history.standardError)")
        let builds = try #require((try JSONSerialization.jsonObject(with: Data(history.standardOutput.utf8)) as? [String: Any])?["builds"] as? [[String: Any]])
        #expect(builds.map { "\($0["version"] ?? "") \($0["verdict"] ?? "") \($0["copy"] ?? "")" } == ["0.2.0 on trial 0", "0.1.0 permanent 1"], "\(history.standardOutput)")
        #expect(builds.allSatisfy { ($0["since"] as? String)?.hasSuffix("Z") == true }, "\(history.standardOutput)")
    }

    @Test("a build that crashed on trial stays out at the next start, and the permanent build runs from the record's copy in its place")
    func rolledBackAcrossStarts() throws {
        let service = try ServiceFixture(tickerSettings: #""nextBuildFails": "crash""#)
        let state = try Scratch.directory(named: "state")
        let (first, notifications) = try upgradeOnTrial(service, state: state, recordsTheTrial: false)
        #expect(notifications.wait(forPrefix: "READY=1", containing: "running the build before: Ticker 0.1.0") != nil, "\(first.standardError)")
        #expect(IntegrationTests.wait { RecordOnDisk.text(in: state).contains("left-out\tTicker\t") }, "\(RecordOnDisk.text(in: state))")
        #expect(first.stop(with: SIGTERM).status == 0)

        let console = OperatorConsole()
        let (second, listener) = try service.start(console.arguments + ["--state", state.path] + watching)
        #expect(second.waitForError("plugin-host: left out, as the record of what this host proved says: Ticker 0.2.0"), "\(second.standardError)")
        #expect(listener.wait(forPrefix: "READY=1", containing: "running the build before: Ticker 0.1.0") != nil, "\(second.standardError)")
        // Status and metrics say where the build that runs came from.
        let status = try #require(console.waitForStatus { $0.state == "serving" })
        #expect(status.plugin("Ticker")?["from"] as? String == "record", "\(status.plugin("Ticker") ?? [:])")
        #expect(status.plugin("Echo")?["from"] as? String == "file")
        let text = try console.run("status").standardOutput
        #expect(text.contains("  Ticker: runs 0.1.0 from the record's copy, not from its file\n"), "\(text)")
        let metrics = try console.run("status", ["--metrics"]).standardOutput
        #expect(metrics.contains("plugin_host_plugin_build_info{plugin=\"Ticker\",version=\"0.1.0\",from=\"record\"} 1\n"), "\(metrics)")
        #expect(service.log.wait(for: "Ticker 0.1.0 serving", count: 3), "\(service.log.lines)")
        #expect(service.log.lines.filter { $0 == "Ticker 0.2.0 bootstrap" }.count == 1, "never loaded again: \(service.log.lines)")
        #expect(second.stop(with: SIGTERM).status == 0)

        let history = try Command.run(Repository.host.path, ["history", "--dir", service.directory.plugins.path, "--state", state.path])
        #expect(history.status == 0, "\(history.standardError)")
        let ticker = history.standardOutput.split(separator: "\n").filter { $0.hasPrefix("  Ticker ") }
        #expect(ticker.map { $0.split(separator: " ").prefix(3).joined(separator: " ") } == ["Ticker 0.1.0 permanent", "Ticker 0.2.0 left"], "\(history.standardOutput)")
        #expect(ticker.last?.contains("left out: crashed during the run phase: SIGSEGV ") == true, "\(history.standardOutput)")
    }

    @Test("a permanent build that crashes is left out, not permanent: history names as permanent the build the next start runs, and rollback --to the left-out build says why it cannot come back")
    func permanentBuildThatCrashes() throws {
        let service = try ServiceFixture()
        let state = try Scratch.directory(named: "state")
        let console = OperatorConsole()
        let (first, _) = try upgradeOnTrial(service, state: state, console: console)
        #expect(try console.run("accept", ["Ticker"]).status == 0)
        #expect(IntegrationTests.wait { RecordOnDisk.text(in: state).components(separatedBy: "permanent\tTicker\t").count == 3 }, "\(RecordOnDisk.text(in: state))")
        try Data().write(to: service.trigger)
        #expect(first.waitForError("plugin-host: error: plugin Ticker (\(service.file("Ticker").path)) crashed during the run phase: SIGSEGV"), "\(first.standardError)")
        #expect(IntegrationTests.wait { RecordOnDisk.text(in: state).contains("left-out\tTicker\t") }, "\(RecordOnDisk.text(in: state))")
        try FileManager.default.removeItem(at: service.trigger)
        #expect(first.stop(with: SIGTERM).status == 0)

        // Each build once, with its one life: 0.2.0 left out, 0.1.0 the permanent one a start runs.
        let history = try Command.run(Repository.host.path, ["history", "Ticker", "--dir", service.directory.plugins.path, "--state", state.path, "--json"])
        #expect(history.status == 0, "\(history.standardError)")
        let builds = try #require((try JSONSerialization.jsonObject(with: Data(history.standardOutput.utf8)) as? [String: Any])?["builds"] as? [[String: Any]])
        #expect(builds.map { "\($0["version"] ?? "") \($0["verdict"] ?? "") \($0["copy"] ?? "")" } == ["0.1.0 permanent 1", "0.2.0 left out 1"], "\(history.standardOutput)")

        let (second, listener) = try service.start(console.arguments + ["--state", state.path] + watching)
        #expect(listener.wait(forPrefix: "READY=1", containing: "running the build before: Ticker 0.1.0") != nil, "\(second.standardError)")
        #expect(service.log.wait(for: "Ticker 0.1.0 serving", count: 2), "\(service.log.lines)")
        let refused = try console.run("rollback", ["Ticker", "--to", "0.2.0"])
        #expect(refused.status == 1)
        #expect(refused.standardError.contains(
            "cannot roll back Ticker: 0.2.0 is left out (crashed during the run phase: SIGSEGV), and a rollback never brings back a build left out; "
                + "plugin-host restart Ticker lets it be tried again; no other build is kept; nothing changed"), "\(refused.standardError)")
        #expect(second.stop(with: SIGTERM).status == 0)
    }

    @Test("after a restart, rollback --to brings back a permanent build kept before, from the record's copy, and the build it replaces stays out at the next start")
    func rollbackToAfterRestart() throws {
        let service = try ServiceFixture()
        let state = try Scratch.directory(named: "state")
        let console = OperatorConsole()
        let (first, _) = try upgradeOnTrial(service, state: state, console: console)
        #expect(try console.run("accept", ["Ticker"]).status == 0)
        #expect(IntegrationTests.wait { RecordOnDisk.text(in: state).components(separatedBy: "permanent\tTicker\t").count == 3 }, "\(RecordOnDisk.text(in: state))")
        #expect(first.stop(with: SIGTERM).status == 0)

        let (second, listener) = try service.start(console.arguments + ["--state", state.path] + watching)
        #expect(listener.wait(forPrefix: "READY=1") == "READY=1\nSTATUS=5 plugins running", "\(second.standardError)")
        let refused = try console.run("rollback", ["Ticker", "--to", "0.0.9"])
        #expect(refused.status == 1)
        #expect(refused.standardError.contains("cannot roll back Ticker: no build 0.0.9 is kept to go back to (kept: 0.1.0); plugin-host history Ticker lists the builds kept; nothing changed"),
                "\(refused.standardError)")
        let rollback = try console.run("rollback", ["Ticker", "--to", "0.1.0"])
        #expect(rollback.status == 0, "\(rollback.standardError)")
        #expect(second.waitForError(
            "plugin-host: rolling back Ticker 0.2.0 -> 0.1.0, as an operator asked (plugin-host rollback); Ticker 0.2.0 left out until its file changes"),
                "\(second.standardError)")
        #expect(!second.standardError.contains("error: rolling back"), "what an operator asked for is no error: \(second.standardError)")
        #expect(second.waitForError("plugin-host: rolled back: brought back Ticker 0.1.0"), "\(second.standardError)")
        // The file holds 0.2.0: the build that runs came from the record's copy, and the status says so.
        #expect(service.log.wait(for: "Ticker 0.1.0 serving", count: 2), "\(service.log.lines)")
        let status = try #require(console.waitForStatus { $0.state == "serving" && $0.plugin("Ticker")?["version"] as? String == "0.1.0" })
        #expect(status.plugin("Ticker")?["from"] as? String == "record", "\(status.plugin("Ticker") ?? [:])")
        // The build rolled back away from is left out, once, and says so when asked for.
        let back = try console.run("rollback", ["Ticker", "--to", "0.2.0"])
        #expect(back.status == 1)
        #expect(back.standardError.contains(
            "cannot roll back Ticker: 0.2.0 is left out (rolled back by an operator (plugin-host rollback)), and a rollback never brings back a build left out; "
                + "plugin-host restart Ticker lets it be tried again"), "\(back.standardError)")
        // The record is written by its own process: history reads it once it holds the rollback.
        #expect(IntegrationTests.wait { RecordOnDisk.text(in: state).contains("left-out\tTicker\t") }, "\(RecordOnDisk.text(in: state))")
        let history = try Command.run(Repository.host.path, ["history", "Ticker", "--dir", service.directory.plugins.path, "--state", state.path])
        let ticker = history.standardOutput.split(separator: "\n").filter { $0.hasPrefix("  Ticker ") }
        #expect(ticker.map { $0.split(separator: " ").prefix(3).joined(separator: " ") } == ["Ticker 0.1.0 permanent", "Ticker 0.2.0 left"], "\(history.standardOutput)")
        #expect(second.stop(with: SIGTERM).status == 0)

        let (third, next) = try service.start(["--state", state.path] + watching)
        #expect(third.waitForError("plugin-host: left out, as the record of what this host proved says: Ticker 0.2.0"), "\(third.standardError)")
        #expect(next.wait(forPrefix: "READY=1", containing: "running the build before: Ticker 0.1.0") != nil, "\(third.standardError)")
        #expect(service.log.wait(for: "Ticker 0.1.0 serving", count: 3), "\(service.log.lines)")
        #expect(third.stop(with: SIGTERM).status == 0)
    }

    private func waitUntilGone(_ process: Int32) -> Bool {
        IntegrationTests.wait { kill(process, 0) != 0 && errno == ESRCH }
    }
}
