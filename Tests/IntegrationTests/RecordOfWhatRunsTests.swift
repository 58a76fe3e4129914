import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What the host says agrees with what runs, through the real binary: the status and the
/// metrics list each plugin once after a rollback; a build that could not be held is never
/// said to come back; a worker stopped from outside blames nobody; reloads asked during a
/// recovery are one; a failure healed by leaving a build out restarts at once, every time.
@Suite("The record of what runs: the status, STATUS=, the lines and the metrics tell what runs, and blame goes by evidence")
struct RecordOfWhatRunsTests {
    @Test("after a rollback, the status and the metrics list the plugin once: the build brought back serves, its file's build is left out")
    func statusAfterRollback() throws {
        let service = try ServiceFixture(ticker: false)
        try service.replace("Echo", withFile: try service.build(of: "Echo", manifest: #"{"name": "Echo", "version": "42.0.0", "abi": 2}"#))
        let console = OperatorConsole()
        let (host, listener) = try service.start(console.arguments + ["--watch"])
        #expect(listener.wait(forPrefix: "READY=1") == "READY=1\nSTATUS=4 plugins running")

        // A new build whose bootstrap throws, once the build before has stopped: rolled back.
        try service.replace("Echo", withFile: try service.build(of: "Failing", manifest: #"{"name": "Echo", "version": "42.1.0", "abi": 2}"#))
        #expect(host.waitForError("plugin-host: bringing back the builds that ran before: Echo 42.0.0"), "\(host.standardError)")
        let ready = listener.wait(forPrefix: "READY=1", containing: "running the build before: Echo 42.0.0")
        #expect(ready?.contains("left out: Echo") == false, "\(ready ?? "")")

        let status = try #require(console.waitForStatus { ($0.json["lastUpgrade"] as? [String: Any])?["result"] as? String == "rolled back" && $0.state == "serving" })
        let echoes = status.plugins.filter { $0["name"] as? String == "Echo" }
        #expect(echoes.count == 1, "one entry for Echo: \(echoes)")
        #expect(echoes.first?["state"] as? String == "serving")
        #expect(echoes.first?["version"] as? String == "42.0.0")
        #expect((echoes.first?["reason"] as? String)?.contains("42.1.0") == true, "\(echoes)")
        #expect(echoes.first?["fileChanged"] as? Bool == true)

        let metrics = try console.run("status", ["--metrics"]).standardOutput
        let series = metrics.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: " ").first.map(String.init) }
        #expect(Set(series).count == series.count, "no series twice: \(metrics)")
        #expect(metrics.contains("plugin_host_plugin_up{plugin=\"Echo\"} 1\n"))
        #expect(metrics.contains("plugin_host_plugin_left_out{plugin=\"Echo\"} 0\n"))
        #expect(service.echo().worker != nil, "the build brought back answers")
        #expect(host.stop(with: SIGTERM).status == 0)
    }

    @Test("a build replaced while its generation bootstraps is still held, from the descriptor its worker keeps: a failure after brings it back")
    func buildReplacedBeforeItWasHeld() throws {
        // Echo 27.1.0 takes a while to bootstrap (a Misbehaver that waits), 27.2.0 refuses to.
        let service = try ServiceFixture(ticker: false, echoSettings: #""act": "none", "on": "thread", "wait": 3000"#)
        try service.replace("Echo", withFile: try service.build(of: "Echo", manifest: #"{"name": "Echo", "version": "27.0.0", "abi": 2}"#))
        // Without a trial: 27.0.0 is not held once 27.1.0 serves, so only 27.1.0 can come back.
        let (host, listener) = try service.start(["--watch", "--trial", "0"])
        #expect(listener.wait(forPrefix: "READY=1") != nil)

        try service.replace("Echo", withFile: try service.build(of: "Misbehaver", manifest: #"{"name": "Echo", "version": "27.1.0", "abi": 2}"#))
        #expect(service.log.wait(for: "bootstrap Echo"), "27.1.0 never began to bootstrap: \(host.standardError)")
        try service.replace("Echo", withFile: try service.build(of: "Failing", manifest: #"{"name": "Echo", "version": "27.2.0", "abi": 2}"#))

        #expect(host.waitForError("plugin-host: upgraded: Echo 27.0.0 -> 27.1.0"), "\(host.standardError)")
        #expect(host.waitForError("plugin-host: bringing back the builds that ran before: Echo 27.1.0"), "\(host.standardError)")
        #expect(listener.wait(forPrefix: "READY=1", containing: "running the build before: Echo 27.1.0") != nil, "\(host.standardError)")
        let result = host.stop(with: SIGTERM)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(!result.standardError.contains("cannot bring back Echo"), "\(result.standardError)")
    }

    @Test("a worker stopped by SIGSTOP from outside while its plugins wait for work blames nobody: the same plugins restart")
    func stoppedFromOutside() throws {
        let service = try ServiceFixture()
        let (host, listener) = try service.start(["--timeout", "1"])
        #expect(listener.wait(forPrefix: "READY=1") == "READY=1\nSTATUS=5 plugins running")
        #expect(service.log.wait(for: "Ticker 0.1.0 serving"))
        let before = try #require(service.echo().worker)
        kill(before, SIGSTOP)

        #expect(host.waitForError("plugin-host: error: the worker process stayed stopped by SIGSTOP for 1 s (--timeout)"), "\(host.standardError)")
        #expect(host.waitForError("no plugin is blamed"))
        #expect(host.waitForError("plugin-host: restarting the plugins (no plugin is to blame: the worker was stopped by a signal from outside; none is left out); restart 1"))
        #expect(listener.wait(forPrefix: "READY=1") == "READY=1\nSTATUS=5 plugins running", "nothing is left out: \(host.standardError)")
        let after = try #require(service.echo().worker)
        #expect(after != before)
        let result = host.stop(with: SIGTERM)
        #expect(result.status == 0, "\(result.standardError)")
        // What ended was the worker, not the host.
        #expect(result.standardError.contains("ended the worker without waiting for it"), "\(result.standardError)")
        #expect(!result.standardError.contains("stopped the host"), "\(result.standardError)")
    }

    @Test("thirty SIGHUPs while a restart recovers are one reload once it serves; a reload asked after them is one more")
    func reloadsCoalesce() throws {
        // The recovering generation takes a while to bootstrap: Misbehaver waits in its bootstrap.
        let service = try ServiceFixture(settings: [#""Misbehaver": {"act": "none", "on": "thread", "wait": 2000, "serve": true}"#])
        try service.directory.add(try Fixtures.plugin("Misbehaver"))
        let console = OperatorConsole()
        let (host, listener) = try service.start(console.arguments)
        #expect(listener.wait(forPrefix: "READY=1") != nil)
        let worker = try #require(service.echo().worker)
        kill(worker, SIGKILL)
        #expect(console.waitForStatus { $0.state == "recovering" } != nil, "\(host.standardError)")
        for _ in 0..<30 { host.send(SIGHUP) }
        #expect(listener.wait(forPrefix: "READY=1") != nil)

        let reloaded = try #require(console.waitForStatus { ($0.json["reloads"] as? [String: Any])?["applied"] as? Int ?? 0 >= 1 })
        #expect((reloaded.json["reloads"] as? [String: Any])?["applied"] as? Int == 1, "\(reloaded.json)")
        // Asked after them, a reload is answered by the next: one more, not thirty.
        #expect(try console.run("reload").status == 0)
        let after = try #require(console.status().map(HostStatusView.init))
        #expect((after.json["reloads"] as? [String: Any])?["applied"] as? Int == 2, "\(after.json)")
        let result = host.stop(with: SIGTERM)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError.components(separatedBy: "plugin-host: reloaded ").count - 1 == 2, "\(result.standardError)")
    }

    @Test("a crash healed by leaving the new build out restarts at once, each time: the backoff is for failures leaving out does not heal")
    func healedFailuresDoNotBackOff() throws {
        let service = try ServiceFixture()
        let console = OperatorConsole()
        let (host, listener) = try service.start(console.arguments + ["--watch", "--restart-delay", "2", "--restart-limit", "10/60"])
        #expect(listener.wait(forPrefix: "READY=1") == "READY=1\nSTATUS=5 plugins running")
        for round in 1...4 {
            // Ticker crashes; the generation without it serves at once.
            try Data().write(to: service.trigger)
            #expect(host.waitForError("plugin-host: restarting the plugins without \(service.label("Ticker"))", count: round), "round \(round): \(host.standardError)")
            #expect(listener.wait(forPrefix: "READY=1", containing: "left out: Ticker") != nil, "round \(round)")
            try FileManager.default.removeItem(at: service.trigger)
            // A new build of Ticker comes in with a new generation.
            try service.replace("Ticker", withFile: try service.build(of: "Ticker", manifest: #"{"name": "Ticker", "version": "0.\#(round + 1).0", "abi": 2}"#))
            #expect(host.waitForError("plugin-host: upgraded: Ticker 0.\(round + 1).0 (new)"), "round \(round): \(host.standardError)")
        }
        let status = try #require(console.status().map(HostStatusView.init))
        #expect(status.restarts["healed"] as? Int == 4, "\(status.restarts)")
        #expect(status.restarts["inARow"] as? Int == 0, "\(status.restarts)")
        let result = host.stop(with: SIGTERM)
        #expect(result.status == 0, "\(result.standardError)")
        let restarts = result.standardError.split(separator: "\n").filter { $0.hasPrefix("plugin-host: restarting the plugins") }
        #expect(restarts.count == 4)
        #expect(restarts.allSatisfy { !$0.contains("; in ") }, "none waited: \(restarts)")
    }

    @Test("a plugin that fails to bootstrap in a restart's generation is said not added, with why; never left out of the status")
    func failedAtRestartIsNotAdded() throws {
        // Sulky bootstraps at first; the restart after Ticker's crash reads its settings again, and it refuses.
        let service = try ServiceFixture(settings: [#""Sulky": {"act": "none"}"#])
        try service.replace("Sulky", withFile: try service.build(of: "Misbehaver", manifest: #"{"name": "Sulky", "version": "3.0.0", "abi": 2}"#))
        let console = OperatorConsole()
        let (host, listener) = try service.start(console.arguments)
        #expect(listener.wait(forPrefix: "READY=1") == "READY=1\nSTATUS=6 plugins running")
        let configuration = try String(contentsOf: service.directory.configuration, encoding: .utf8)
        try Data(configuration.replacingOccurrences(of: #""Sulky": {"act": "none"}"#, with: #""Sulky": {"act": "throw"}"#).utf8)
            .write(to: service.directory.configuration)
        try Data().write(to: service.trigger)

        let ready = listener.wait(forPrefix: "READY=1", containing: "left out: Ticker")
        #expect(ready?.contains("not added: libSulky.so") == true, "STATUS= says what became of Sulky: \(ready ?? "")")
        let status = try #require(console.waitForStatus { $0.state == "serving" && $0.generations.first?["number"] as? Int == 2 })
        let sulky = try #require(status.plugin("Sulky"), "Sulky is in the status: \(status.plugins)")
        #expect(sulky["state"] as? String == "not added")
        #expect((sulky["reason"] as? String)?.contains("Sulky") == true, "\(sulky)")
        let text = try console.run("status").standardOutput
        #expect(text.contains("Sulky"), "\(text)")
        #expect(service.echo().worker != nil, "the others serve")
        #expect(host.stop(with: SIGTERM).status == 0)
    }
}
