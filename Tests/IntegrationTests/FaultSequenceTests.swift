import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Faults in sequences, through the real binary: a crash during a rollback, a crash after
/// one, a plugin file written in place under a running worker, a kill from outside, a stop
/// while a new generation loads, a daemon of an old generation, a plugin that changes the
/// working directory. Each ends right: the service keeps answering (or the host ends for its
/// stated reason), the right plugin or none is blamed, nothing is left running.
@Suite("Fault sequences: each leaves the service up or ends it for a stated reason")
struct FaultSequenceTests {
    @Test("a build brought back by a rollback that crashes as it starts is left out; the service runs on without it, no loop")
    func crashDuringRollback() throws {
        let service = try ServiceFixture(crashIn: "bootstrap", tickerSettings: #""failsInNextBuild": true"#)
        let (host, listener) = try service.start(["--watch"])
        #expect(listener.wait(forPrefix: "READY=1") == "READY=1\nSTATUS=5 plugins running")
        // The build that runs now crashes the next time it bootstraps; the next build refuses to.
        try Data().write(to: service.trigger)
        try service.replace("Ticker", with: "TickerNext")

        #expect(host.waitForError("plugin-host: error: plugin \(service.label("Ticker")) failed to bootstrap: build 0.2.0 refuses to start"))
        #expect(host.waitForError("bringing back the builds that ran before: Ticker 0.1.0"))
        #expect(host.waitForError("plugin-host: error: plugin \(service.label("Ticker")) crashed during bootstrap: SIGSEGV"))
        #expect(host.waitForError("plugin-host: restarting the plugins without \(service.label("Ticker"))"))
        #expect(listener.wait(forPrefix: "READY=1", containing: "left out: Ticker") != nil)
        #expect(service.echo().worker != nil, "the service answers")

        let result = host.stop(with: SIGTERM)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError.components(separatedBy: "crashed during bootstrap").count - 1 == 1, "one crash, no loop: \(result.standardError)")
        #expect(!result.standardError.contains("not restarting"))
    }

    @Test("after a rollback that worked, a crash of the build brought back leaves it out; the service runs on")
    func crashAfterRollback() throws {
        let service = try ServiceFixture(tickerSettings: #""failsInNextBuild": true"#)
        let (host, listener) = try service.start(["--watch"])
        #expect(listener.wait(forPrefix: "READY=1") != nil)
        try service.replace("Ticker", with: "TickerNext")
        #expect(host.waitForError("bringing back the builds that ran before: Ticker 0.1.0"))
        #expect(wait(until: { service.log.lines.filter { $0 == "Ticker 0.1.0 serving" }.count == 2 }), "\(host.standardError)")

        try Data().write(to: service.trigger)
        #expect(host.waitForError("plugin-host: error: plugin \(service.label("Ticker")) crashed during the run phase: SIGSEGV"))
        #expect(host.waitForError("plugin-host: restarting the plugins without \(service.label("Ticker"))"))
        #expect(listener.wait(forPrefix: "READY=1", containing: "left out: Ticker") != nil)
        #expect(service.echo().worker != nil, "the service answers")

        let result = host.stop(with: SIGTERM)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError.components(separatedBy: "restarting the plugins").count - 1 == 1, "\(result.standardError)")
    }

    @Test("a plugin file written in place under a running worker blames nobody; the build on disk now is loaded")
    func fileWrittenInPlace() throws {
        let service = try ServiceFixture()
        let (host, listener) = try service.start()
        #expect(listener.wait(forPrefix: "READY=1") == "READY=1\nSTATUS=5 plugins running")
        #expect(service.log.wait(for: "Ticker 0.1.0 serving"))
        // As `cp new.so plugins/libTicker.so` does: the same file, truncated and rewritten, while
        // the worker runs the code it mapped from it.
        let other = try Data(contentsOf: try service.build(of: "Misbehaver", manifest: #"{"name": "Ticker", "version": "0.3.0", "abi": 2}"#))
        let file = try FileHandle(forWritingTo: service.file("Ticker"))
        try file.truncate(atOffset: 0)
        try file.write(contentsOf: other)
        try file.close()

        #expect(host.waitForError("was written in place while the worker had its code loaded"))
        #expect(host.waitForError("no plugin is blamed"))
        #expect(host.waitForError("plugin-host: restarting the plugins (no plugin is to blame: a plugin file changed under the worker"))
        #expect(listener.wait(forPrefix: "READY=1") == "READY=1\nSTATUS=5 plugins running", "nothing is left out: \(host.standardError)")
        #expect(service.echo().worker != nil)

        let result = host.stop(with: SIGTERM)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.split(separator: "\n").contains { $0.contains("Ticker") && $0.contains("0.3.0") }, "the build on disk runs")
    }

    @Test("a worker killed from outside (SIGKILL) while its services wait blames nobody: the same plugins restart")
    func killedFromOutside() throws {
        let service = try ServiceFixture()
        let (host, listener) = try service.start()
        #expect(listener.wait(forPrefix: "READY=1") == "READY=1\nSTATUS=5 plugins running")
        let before = try #require(service.echo().worker)
        kill(before, SIGKILL)

        #expect(host.waitForError("plugin-host: error: the worker process was ended by SIGKILL"))
        #expect(host.waitForError("plugin-host: restarting the plugins (no plugin is to blame: the worker was killed from outside; none is left out); restart 1"))
        #expect(listener.wait(forPrefix: "READY=1") == "READY=1\nSTATUS=5 plugins running")
        let after = try #require(service.echo().worker)
        #expect(after != before)

        let result = host.stop(with: SIGTERM)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(!result.standardError.contains("left out:"))
    }

    @Test("SIGTERM while a new generation hangs in its load ends the host within --shutdown-timeout, not at --timeout")
    func stopWhileLoading() throws {
        let service = try ServiceFixture()
        let (host, listener) = try service.start(["--watch", "--shutdown-timeout", "2"], environment: [
            "MISBEHAVER_ACT": "hang", "MISBEHAVER_PHASE": "load", "MISBEHAVER_LOG": service.log.file.path,
        ])
        #expect(listener.wait(forPrefix: "READY=1") != nil)
        // A new build of Ticker whose entry point never returns.
        try service.replace("Ticker", withFile: try service.build(of: "Misbehaver", manifest: #"{"name": "Ticker", "version": "0.3.0", "abi": 2}"#))
        #expect(wait(until: { service.log.lines.contains { $0.hasPrefix("act hang pid ") } }), "the new worker never began to load: \(host.standardError)")
        let candidate = try #require(service.log.lines.first { $0.hasPrefix("act hang pid ") }.flatMap { Int32($0.dropFirst("act hang pid ".count)) })

        let stopped = ContinuousClock.now
        let result = host.stop(with: SIGTERM)
        let took = ContinuousClock.now - stopped
        #expect(result.status == 0, "\(result.standardError)")
        #expect(took < .seconds(10), "the stop took \(took); --timeout is 30 s")
        #expect(!HostProcesses.isAlive(candidate))
    }

    @Test("a process a plugin daemonized (setsid) ends with the generation that started it, upgrade after upgrade")
    func daemonsEndWithTheirGeneration() throws {
        let daemonLog = try Scratch.directory(named: "daemons").appending(path: "misbehaver.log")
        let service = try ServiceFixture(settings: [
            #""Misbehaver": {"act": "daemonize", "phase": "bootstrap", "serve": true, "log": "\#(daemonLog.path)"}"#,
        ])
        try service.directory.add(try Fixtures.plugin("Misbehaver"))
        let (host, listener) = try service.start(["--watch"])
        #expect(listener.wait(forPrefix: "READY=1") != nil)
        let log = EventLog(daemonLog)
        func daemons() -> [Int32] { log.lines.compactMap { $0.hasPrefix("daemon ") ? Int32($0.dropFirst(7)) : nil } }

        for round in 1...3 {
            #expect(wait(until: { daemons().count == round }), "round \(round): \(log.lines)")
            let old = daemons()[round - 1]
            #expect(HostProcesses.isAlive(old))
            try service.replace("Echo", with: "Echo")
            #expect(host.waitForError("plugin-host: upgraded:", count: round), "upgrade \(round)")
            #expect(wait(until: { !HostProcesses.isAlive(old) }), "the daemon of the generation before, \(old), still runs")
        }
        let result = host.stop(with: SIGTERM)
        #expect(result.status == 0, "\(result.standardError)")
        for daemon in daemons() { #expect(!HostProcesses.isAlive(daemon), "daemon \(daemon) is left") }
    }

    @Test("a plugin that changes the working directory does not move a relative --dir: a file copied in comes in")
    func relativeDirectoryAfterChdir() throws {
        let directory = try PluginDirectoryFixture.demo(fixtures: ["Misbehaver"])
        try directory.configure(#""Misbehaver": {"act": "chdir", "phase": "bootstrap", "serve": true}"#)
        let listener = try NotifyListener()
        let host = try RunningHost(
            Repository.host.path, ["--dir", "plugins", "--config", directory.configuration.path, "--watch"],
            environment: ["NOTIFY_SOCKET": listener.address], in: directory.root)
        #expect(listener.wait(forPrefix: "READY=1") == "READY=1\nSTATUS=4 plugins running")
        try directory.add(try Fixtures.plugin("Extra"))
        #expect(host.waitForError("plugin-host: plugin Extra (plugins/libExtra.so) 1.0.0 was added"), "\(host.standardError)")
        #expect(host.waitForError("plugin-host: upgraded: Extra 1.0.0 (new)"), "\(host.standardError)")

        let result = host.stop(with: SIGTERM)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(!result.standardError.contains("removed plugin"))
        #expect(!result.standardError.contains("not added"))
        #expect(!result.standardError.contains("cannot open plugin directory"))
    }
}
