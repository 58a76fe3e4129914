import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Worker generations: a service that heals itself when a plugin crashes or hangs while it
/// serves (a new worker without the culprit), and upgrades for real when a plugin file
/// changes (a new worker loads the new build beside the running one, then takes over).
/// Every test waits for what the host says: its stderr lines, its notifications, what the
/// plugins log.
@Suite("Worker generations: restarts that leave the culprit out, upgrades that upgrade")
struct GenerationTests {
    // MARK: Restarts

    @Test("a crash while serving is healed: the culprit is named and left out, the others run on with their data, READY again",
          arguments: ["run", "health", "reload"])
    func crashIsHealed(phase: String) throws {
        let service = try ServiceFixture(crashIn: phase)
        let (host, listener) = try service.start(phase == "health" ? ["--health-interval", "0.1"] : [])
        #expect(listener.wait(forPrefix: "READY=1") == "READY=1\nSTATUS=5 plugins running")
        #expect(service.log.wait(for: "Ticker 0.1.0 serving"))
        let before = try #require(service.echo().worker)
        #expect(service.peeledBananas == 1)

        try Data().write(to: service.trigger)
        if phase == "reload" { host.send(SIGHUP) }
        let phaseText = ["run": "the run phase", "health": "health check", "reload": "reload"][phase]!
        #expect(host.waitForError("plugin-host: error: plugin \(service.label("Ticker")) crashed during \(phaseText): SIGSEGV"))
        #expect(host.waitForError("plugin-host: restarting the plugins without \(service.label("Ticker")); restart 1, at once: leaving it out heals the failure, so it does not count toward --restart-limit"))
        let ready = listener.wait(forPrefix: "READY=1")
        #expect(ready == "READY=1\nSTATUS=4 plugins running; left out: Ticker (crashed during \(phaseText): SIGSEGV; "
            + "left out until its file changes)")
        // Echo answers from the new worker; the demo bootstrapped again on the same store.
        let after = try #require(service.echo().worker)
        #expect(after != before)
        #expect(service.peeledBananas == 2)

        let result = host.stop(with: SIGTERM)
        #expect(result.status == 0, "a crash healed does not change the exit status: \(result.standardError)")
        #expect(!HostProcesses.isAlive(after))
    }

    @Test("a plugin dropped in that crashes or hangs in its bootstrap is tried beside: the service's worker serves on, no connection is refused, no restart counted, and the plugin is listed with why",
          arguments: ["segfault", "hang"])
    func badDropInIsTriedBeside(act: String) throws {
        // A socket service whose builds can run side by side, and a plugin dropped in that
        // crashes, or never returns, in its bootstrap.
        let directory = try PluginDirectoryFixture()
        try directory.add(fixture: "Echo", as: "Echo", upgrade: "beside")
        let log = EventLog(directory.root.appending(path: "events.log"))
        try directory.configure([
            #""Echo": {"log": "\#(log.file.path)"}"#,
            #""Misbehaver": {"act": "\#(act)", "phase": "bootstrap", "log": "\#(log.file.path)"}"#,
        ].joined(separator: ", "))
        let socket = Scratch.socketPath(named: "echo")
        let console = OperatorConsole()
        let host = try RunningHost(Repository.host.path, [
            "--dir", directory.plugins.path, "--config", directory.configuration.path, "--watch", "--listen", "echo=\(socket)", "--timeout", "1",
        ] + console.arguments)
        #expect(console.waitForStatus { $0.state == "serving" } != nil, "\(host.standardError)")
        guard case .answered(let serving) = EchoClient.ask(socket, "ping") else {
            Issue.record("Echo does not answer: \(host.standardError)")
            return
        }

        let client = ClientLoop(socket: socket, every: .milliseconds(5))
        try directory.add(fixture: "Misbehaver", as: "Misbehaver", renamedIn: true)
        let misbehaver = "Misbehaver 1.0.0 (\(directory.plugins.path)/libMisbehaver.so)"
        #expect(host.waitForError("the upgrade failed; the running plugins keep serving as they were; left out until its file changes: \(misbehaver)"),
                "\(host.standardError)")
        let status = try #require(console.waitForStatus { $0.state(of: "Misbehaver") == "left out" }, "\(console.status().map(HostStatusView.init)?.plugins ?? [])")
        let why = status.plugin("Misbehaver")?["reason"] as? String ?? ""
        #expect(why.contains(act == "segfault" ? "crashed during bootstrap: SIGSEGV" : "timed out during bootstrap"), "\(status.plugins)")
        // The client goes on a while after, against the worker that served throughout.
        #expect(client.wait(forAnswers: 20))
        let tally = client.finish()
        #expect(tally.refused == 0 && tally.unanswered == 0, "\(tally)")
        #expect(tally.workers == [serving], "every answer came from the worker that served before: \(tally)")
        #expect(status.restarts["total"] as? Int == 0, "no restart counted: \(status.restarts)")
        #expect(status.generations.count == 1, "\(status.generations)")
        #expect(host.stop(with: SIGTERM).status == 0)
    }

    @Test("the culprit comes back when its file changes (--watch), or when restart names it; a reload leaves it out",
          arguments: ["file changes", "restart"])
    func culpritComesBack(how: String) throws {
        let service = try ServiceFixture()
        let console = OperatorConsole()
        let (host, listener) = try service.start(console.arguments + (how == "restart" ? [] : ["--watch"]))
        #expect(listener.wait(forPrefix: "READY=1") == "READY=1\nSTATUS=5 plugins running")
        try Data().write(to: service.trigger)
        #expect(listener.wait(forPrefix: "READY=1", containing: "left out: Ticker") != nil)
        try FileManager.default.removeItem(at: service.trigger)

        if how == "restart" {
            // A reload is of the configuration: once its rescan is done, Ticker is still left out.
            host.send(SIGHUP)
            #expect(listener.wait(forPrefix: "RELOADING=1") != nil, "\(host.standardError)")
            #expect(listener.wait(forPrefix: "READY=1", containing: "left out: Ticker") != nil, "\(host.standardError)")
            #expect(service.log.lines.filter { $0 == "Ticker 0.1.0 bootstrap" }.count == 1, "\(service.log.lines)")
            let restarted = try console.run("restart", ["Ticker"])
            #expect(restarted.status == 0, "\(restarted.standardError)")
        } else {
            try service.replace("Ticker", with: "Ticker")
            #expect(host.waitForError("plugin-host: upgraded: Ticker 0.1.0 (new)"), "\(host.standardError)")
        }
        #expect(service.log.wait(for: "Ticker 0.1.0 serving", count: 2), "\(host.standardError)")
        #expect(listener.wait(forPrefix: "", containing: "STATUS=5 plugins running") != nil, "\(host.standardError)")
        #expect(host.stop(with: SIGTERM).status == 0)
    }

    @Test("past --restart-limit the host ends with the last failure's status, naming the limit; a failure leaving out heals is not counted")
    func restartLimit() throws {
        let service = try ServiceFixture()
        let (host, listener) = try service.start(["--restart-limit", "1/60"])
        #expect(listener.wait(forPrefix: "READY=1") != nil)
        // Healed by leaving Ticker out: at once, and not counted.
        try Data().write(to: service.trigger)
        #expect(host.waitForError("restarting the plugins without \(service.label("Ticker")); restart 1, at once: leaving it out heals the failure, so it does not count toward --restart-limit"),
                "\(host.standardError)")
        #expect(listener.wait(forPrefix: "READY=1", containing: "left out: Ticker") != nil)

        // Killed from outside, nobody to blame: counted.
        kill(try #require(service.echo().worker), SIGKILL)
        #expect(host.waitForError("restarting the plugins (no plugin is to blame: the worker was killed from outside; none is left out); restart 2, 1 of at most 1 in 60 s that leaving out does not heal"),
                "\(host.standardError)")
        #expect(listener.wait(forPrefix: "READY=1", containing: "left out: Ticker") != nil)
        kill(try #require(service.echo().worker), SIGKILL)
        let result = host.wait()
        #expect(result.status == 70, "\(result.standardError)")
        #expect(result.standardError.contains("plugin-host: not restarting: 1 restart leaving out did not heal within 60 s already (--restart-limit 1/60 s)"), "\(result.standardError)")
    }

    @Test("--restart=no keeps the first failure's end: the host ends with 70")
    func restartNo() throws {
        let service = try ServiceFixture()
        let (host, listener) = try service.start(["--restart=no"])
        #expect(listener.wait(forPrefix: "READY=1") != nil)
        try Data().write(to: service.trigger)
        let result = host.wait()
        #expect(result.status == 70)
        #expect(result.standardError.contains("plugin Ticker (\(service.file("Ticker").path)) crashed during the run phase: SIGSEGV"))
        #expect(!result.standardError.contains("restarting"))
    }

    @Test("when the culprit is what every other plugin needs, nothing is left to serve: the host ends instead of looping")
    func nothingLeftToServe() throws {
        let trigger = try Scratch.directory(named: "triggers").appending(path: "crash")
        let service = try ServiceFixture(ticker: false, settings: [#""Base": {"trigger": "\#(trigger.path)", "crashIn": "run"}"#])
        try service.directory.add(fixture: "Ticker", as: "Base")
        try service.directory.add(fixture: "Echo", as: "Top", requires: ["Base"])
        try FileManager.default.removeItem(at: service.file("Echo"))
        try FileManager.default.removeItem(at: service.directory.plugins.appending(path: "libApplication.so"))
        try FileManager.default.removeItem(at: service.directory.plugins.appending(path: "libDomain.so"))
        try FileManager.default.removeItem(at: service.directory.plugins.appending(path: "libPersistence.so"))
        let (host, listener) = try service.start()
        #expect(listener.wait(forPrefix: "READY=1") == "READY=1\nSTATUS=2 plugins running")
        try Data().write(to: trigger)
        let result = host.wait()
        #expect(result.status == 70)
        #expect(result.standardError.contains(
            "plugin-host: not restarting: without \(service.label("Base")) and the plugins that require it no plugin is left to serve"))
    }

    @Test("a batch run (no service, no --watch) still ends at the first crash")
    func batchRunEnds() throws {
        let trial = try PluginDirectoryFixture.demo(fixtures: ["Misbehaver"])
        try trial.configure(#""Misbehaver": {"act": "segfault", "phase": "shutdown"}"#)
        let result = try trial.runHost()
        #expect(result.status == 70)
        #expect(!result.standardError.contains("restarting"))
    }

    // MARK: Upgrades

    @Test("a running plugin's file replaced by mv or install: the new build runs, as its own output says; the report says 0.2.0",
          arguments: [ServiceFixture.Replacement.rename, .install])
    func upgrade(by replacement: ServiceFixture.Replacement) throws {
        let service = try ServiceFixture()
        let (host, listener) = try service.start(["--watch"])
        #expect(listener.wait(forPrefix: "READY=1") == "READY=1\nSTATUS=5 plugins running")
        #expect(service.log.wait(for: "Ticker 0.1.0 serving"))
        try service.replace("Ticker", with: "TickerNext", by: replacement)
        #expect(host.waitForError("plugin-host: upgraded: Ticker 0.1.0 -> 0.2.0"))
        #expect(service.log.wait(for: "Ticker 0.2.0 serving"))
        #expect(listener.wait(forPrefix: "READY=1") == "READY=1\nSTATUS=5 plugins running")
        // The old build drained and shut down before the new one bootstrapped.
        let lines = service.log.lines
        let oldShutdown = try #require(lines.firstIndex(of: "Ticker 0.1.0 shutdown"))
        let newBootstrap = try #require(lines.firstIndex(of: "Ticker 0.2.0 bootstrap"))
        #expect(oldShutdown < newBootstrap)
        let result = host.stop(with: SIGTERM)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.split(separator: "\n").contains { $0.contains("Ticker") && $0.contains("0.2.0") && $0.contains("bootstrapped") })
    }

    @Test("a file removed, then another build installed at the path whose code is loaded: the new build runs")
    func reAddAtLoadedPath() throws {
        let service = try ServiceFixture()
        let (host, listener) = try service.start(["--watch"])
        #expect(listener.wait(forPrefix: "READY=1") != nil)
        try FileManager.default.removeItem(at: service.file("Ticker"))
        #expect(host.waitForError("plugin-host: removed plugin \(service.label("Ticker"))"))
        try service.replace("Ticker", with: "TickerNext", by: .install)
        #expect(host.waitForError("plugin Ticker (\(service.file("Ticker").path)) 0.2.0 was added"))
        #expect(host.waitForError("plugin-host: upgraded: Ticker 0.2.0 (new)"))
        #expect(service.log.wait(for: "Ticker 0.2.0 serving"))
        #expect(host.stop(with: SIGTERM).status == 0)
    }

    @Test("a new build that fails to load: the running generation keeps serving, undisturbed, and the build is named")
    func upgradeFailsToLoad() throws {
        let service = try ServiceFixture()
        let (host, listener) = try service.start(["--watch"])
        #expect(listener.wait(forPrefix: "READY=1") != nil)
        let before = try #require(service.echo().worker)
        // A file that declares plugin Ticker 1.0.0 and has no entry point.
        try service.replace("Ticker", withFile: try service.build(of: "NoEntry", manifest: #"{"name": "Ticker", "version": "1.0.0", "abi": 2}"#))

        #expect(host.waitForError("plugin-host: error: the upgrade failed; the running plugins keep serving as they were; "
            + "left out until its file changes: Ticker 1.0.0 (\(service.file("Ticker").path))"))
        #expect(host.standardError.contains("has no entry point plugin_host_bootstrapping"))
        #expect(host.standardError.contains("plugin-host: error: the new worker cannot load plugin Ticker, which runs now"))
        #expect(service.echo().worker == before, "the generation that served before still serves")
        #expect(service.log.lines.filter { $0 == "Ticker 0.1.0 bootstrap" }.count == 1)
        #expect(host.stop(with: SIGTERM).status == 0)
    }

    @Test("a new build that fails to bootstrap after the old one stopped: the build that ran before comes back, though its file was replaced")
    func upgradeFailsToBootstrap() throws {
        let service = try ServiceFixture(tickerSettings: #""failsInNextBuild": true"#)
        let (host, listener) = try service.start(["--watch"])
        #expect(listener.wait(forPrefix: "READY=1") != nil)
        try service.replace("Ticker", with: "TickerNext")
        #expect(host.waitForError("plugin-host: error: plugin \(service.label("Ticker")) failed to bootstrap: build 0.2.0 refuses to start"))
        #expect(host.waitForError("plugin-host: error: the new worker cannot bootstrap plugin Ticker, which runs now"))
        #expect(host.waitForError("the upgrade failed after the plugins before it had stopped; left out until its file changes: Ticker 0.2.0; restoring the builds that ran before"))
        #expect(host.waitForError("plugin-host: bringing back the builds that ran before: Ticker 0.1.0"))
        #expect(listener.wait(forPrefix: "READY=1") != nil)
        #expect(wait(until: { service.log.lines.filter { $0 == "Ticker 0.1.0 serving" }.count == 2 }), "the build that ran before runs again: \(host.standardError)")
        #expect(service.echo().worker != nil)
        #expect(host.stop(with: SIGTERM).status == 0)
    }

    // MARK: Sockets

    @Test("a client connecting in a loop over 20 upgrades and 20 crash-restarts is never refused; no process is left",
          arguments: ["--listen", "socket activation"])
    func socketSurvivesGenerations(how: String) throws {
        let service = try ServiceFixture()
        let (host, listener): (RunningHost, NotifyListener)
        if how == "--listen" {
            (host, listener) = try service.start(["--watch", "--restart-limit", "100/60", "--restart-max-delay", "0.5"])
        } else {
            let notify = try NotifyListener()
            listener = notify
            host = try RunningHost("/usr/bin/systemd-socket-activate", [
                "-l", service.socket, "--fdname=echo", "-E", "NOTIFY_SOCKET=\(notify.address)", Repository.host.path,
                "--dir", service.directory.plugins.path, "--config", service.directory.configuration.path, "--watch",
                "--restart-limit", "100/60", "--restart-max-delay", "0.5",
            ])
            // systemd-socket-activate starts the host at the first connection.
            #expect(wait(until: { FileManager.default.fileExists(atPath: service.socket) }))
            #expect(service.echo().worker != nil)
        }
        #expect(listener.wait(forPrefix: "READY=1") != nil)

        let client = ClientLoop(socket: service.socket)
        for round in 1...20 {
            try service.replace("Echo", with: "Echo")
            #expect(host.waitForError("plugin-host: upgraded: Echo", count: round), "upgrade \(round)")
            try Data().write(to: service.trigger)
            #expect(host.waitForError("plugin-host: restarting the plugins without", count: round), "restart \(round)")
            #expect(listener.wait(forPrefix: "READY=1", containing: "left out: Ticker") != nil, "ready again \(round)")
            try FileManager.default.removeItem(at: service.trigger)
            try service.replace("Ticker", with: "Ticker")
            #expect(host.waitForError("plugin-host: upgraded: Ticker 0.1.0 (new)", count: round), "Ticker back \(round)")
        }
        let tally = client.finish()
        #expect(tally.refused == 0, "refused: \(tally)")
        #expect(tally.answered > 40, "\(tally)")
        #expect(tally.workers.count >= 20, "answers came from the workers of many generations: \(tally)")

        let result = host.stop(with: SIGTERM)
        #expect(result.status == 0, "\(result.standardError)")
        for worker in tally.workers { #expect(!HostProcesses.isAlive(worker), "worker \(worker) is left") }
        if how == "--listen" {
            #expect(!FileManager.default.fileExists(atPath: service.socket), "the host removes the socket file it created")
        } else {
            // The file is systemd-socket-activate's, which leaves it (systemd's own socket units
            // remove theirs, RemoveOnStop=): the test that started it removes it.
            try FileManager.default.removeItem(atPath: service.socket)
        }
    }
}

