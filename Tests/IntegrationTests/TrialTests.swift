import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Upgrades on trial, through the real binary: a new build that crashes, hangs or turns
/// unhealthy within its trial is replaced by the build before, held open meanwhile; after the
/// trial the same failure leaves the build out; an operator ends a trial either way.
@Suite("Upgrades on trial: a new build that fails soon after it serves brings back the one before")
struct TrialTests {
    /// Starts a watching service whose next Ticker build (0.2.0) fails as `fails` says, and
    /// upgrades Ticker 0.1.0 to it; returns once the upgrade serves.
    private func upgraded(
        fails: String, after milliseconds: Int = 300, _ extra: [String]
    ) throws -> (ServiceFixture, RunningHost, NotifyListener, OperatorConsole) {
        let service = try ServiceFixture(tickerSettings: #""nextBuildFails": "\#(fails)", "failAfterMs": \#(milliseconds)"#)
        let console = OperatorConsole()
        let (host, listener) = try service.start(console.arguments + ["--watch", "--shutdown-timeout", "1"] + extra)
        #expect(listener.wait(forPrefix: "READY=1") == "READY=1\nSTATUS=5 plugins running")
        #expect(service.log.wait(for: "Ticker 0.1.0 serving"))
        try service.replace("Ticker", with: "TickerNext")
        #expect(host.waitForError("plugin-host: upgraded: Ticker 0.1.0 -> 0.2.0"), "\(host.standardError)")
        return (service, host, listener, console)
    }

    /// The host serves Ticker 0.1.0 again, brought back in place of 0.2.0, which is left out.
    private func expectBroughtBack(_ service: ServiceFixture, _ host: RunningHost, _ listener: NotifyListener, _ console: OperatorConsole) throws {
        #expect(listener.wait(forPrefix: "READY=1", containing: "running the build before: Ticker 0.1.0") != nil, "\(host.standardError)")
        #expect(service.log.wait(for: "Ticker 0.1.0 serving", count: 2), "\(host.standardError)")
        let status = try #require(console.waitForStatus { $0.state == "serving" && $0.plugin("Ticker")?["version"] as? String == "0.1.0" })
        #expect(status.state(of: "Ticker") == "serving")
        #expect(status.plugin("Ticker")?["trial"] is NSNull, "the trial ended: \(status.plugin("Ticker") ?? [:])")
        #expect(status.plugin("Ticker")?["from"] as? String == "held", "\(status.plugin("Ticker") ?? [:])")
        #expect((status.json["lastUpgrade"] as? [String: Any])?["result"] as? String == "rolled back")
        #expect(service.echo().worker != nil, "the service answers")
    }

    @Test("a new build that crashes within its trial is rolled back: the build before serves again")
    func crashOnTrial() throws {
        let (service, host, listener, console) = try upgraded(fails: "crash", ["--trial", "30"])
        #expect(host.waitForError("plugin-host: on trial for 30 s (--trial): Ticker 0.2.0 (replacing 0.1.0)"), "\(host.standardError)")
        #expect(host.waitForError("plugin-host: error: Ticker 0.2.0, on trial, crashed during the run phase: SIGSEGV; rolling back Ticker 0.2.0 -> 0.1.0; it is left out until its file changes"), "\(host.standardError)")
        #expect(host.waitForError("plugin-host: bringing back the builds that ran before: Ticker 0.1.0"), "\(host.standardError)")
        try expectBroughtBack(service, host, listener, console)
        #expect(!host.standardError.contains("restarting the plugins without Ticker"), "\(host.standardError)")
        // The status says what happened in one sentence, in the order it happened.
        let text = try console.run("status").standardOutput
        #expect(text.contains(" rolled back: Ticker 0.2.0 -> 0.1.0: Ticker 0.2.0, on trial, crashed during the run phase: SIGSEGV; brought back Ticker 0.1.0\n"),
                "\(text)")
        #expect(text.contains("Restarts: 1 in all; 1 healed by leaving a build out (at once, not counted); 0 of at most 5 within 1 min that leaving out did not heal; the next of those starts at once\n"),
                "\(text)")
        // The failure names the build that failed, not the one that serves now.
        #expect(text.range(of: #"  Ticker: 1 failure, the last [0-9T:-]+Z, of Ticker 0\.2\.0: crashed during the run phase: SIGSEGV\n"#, options: .regularExpression) != nil,
                "\(text)")
        #expect(host.stop(with: SIGTERM).status == 0)
    }

    @Test("status --follow says a trial begin and its rollback, in an operator's words, and nothing of the supervisor's bookkeeping")
    func followTrial() throws {
        let service = try ServiceFixture(tickerSettings: #""nextBuildFails": "crash", "failAfterMs": 300"#)
        let console = OperatorConsole()
        let (host, listener) = try service.start(console.arguments + ["--watch", "--shutdown-timeout", "1"])
        #expect(listener.wait(forPrefix: "READY=1") == "READY=1\nSTATUS=5 plugins running")
        let follower = try RunningHost(Repository.host.path, ["status", "--control", console.path, "--follow"])
        #expect(IntegrationTests.wait { follower.standardOutput.contains("● plugin-host: serving") }, "\(follower.standardOutput)")
        try service.replace("Ticker", with: "TickerNext")
        #expect(host.waitForError("plugin-host: bringing back the builds that ran before: Ticker 0.1.0"), "\(host.standardError)")
        #expect(try #require(console.waitForStatus { $0.state == "serving" && $0.plugin("Ticker")?["version"] as? String == "0.1.0" }).state(of: "Ticker") == "serving")
        let said = { follower.standardOutput.split(separator: "\n").map(String.init) }
        #expect(IntegrationTests.wait { said().contains { $0.contains("Ticker 0.2.0 -> 0.1.0 serving, the build held from before") } },
                "\(follower.standardOutput)")
        let lines = said()
        #expect(lines.contains { $0.contains("Ticker 0.2.0 on trial until ") && $0.contains(", replacing 0.1.0") }, "\(lines)")
        #expect(lines.contains { $0.contains("rolled back: Ticker 0.2.0 -> 0.1.0: Ticker 0.2.0, on trial, crashed during the run phase: SIGSEGV") }, "\(lines)")
        #expect(!lines.contains { $0.contains("Echo 1.0.0 not serving") }, "no line for each plugin while generations change hands: \(lines)")
        #expect(!follower.standardOutput.contains("news") && !follower.standardOutput.contains("builds held"), "\(follower.standardOutput)")
        // Once the build before serves again, no line calls Ticker left out.
        let last = lines.last { $0.contains("Ticker") } ?? ""
        #expect(!last.contains("Ticker left out"), "\(lines)")
        #expect(host.stop(with: SIGTERM).status == 0)
        _ = follower.wait()
    }

    @Test("bad upgrades never end the host: 20 new builds within a minute, every other one crashing on its trial, each rolled back and left out, the good ones serving in turn")
    func badUpgradesNeverEndTheHost() throws {
        let service = try ServiceFixture(tickerSettings: #""nextBuildFails": "crash", "failAfterMs": 300"#)
        let console = OperatorConsole()
        // Five restarts within a minute at most: ten rollbacks are healed by leaving out, and none counts.
        let (host, listener) = try service.start(console.arguments + ["--watch", "--trial", "1", "--restart-limit", "5/60", "--shutdown-timeout", "1"])
        #expect(listener.wait(forPrefix: "READY=1") == "READY=1\nSTATUS=5 plugins running", "\(host.standardError)")
        let settings = #""settings": ["log", "trigger", "crashIn", "pollMs", "failsInNextBuild", "printEvery", "nextBuildFails", "failAfterMs"]"#
        var good = "0.1.0"
        for round in 1...20 {
            let bad = round % 2 == 1
            let version = bad ? "0.2.\(round)" : "0.1.\(round)"
            try service.replace("Ticker", withFile: try service.build(
                of: bad ? "TickerNext" : "Ticker", manifest: #"{"name": "Ticker", "version": "\#(version)", "abi": 2, \#(settings)}"#))
            #expect(host.waitForError("plugin-host: upgraded: Ticker \(good) -> \(version)"), "round \(round): \(host.standardError)")
            if bad {
                #expect(host.waitForError("plugin-host: error: Ticker \(version), on trial, crashed during the run phase: SIGSEGV; rolling back Ticker \(version) -> \(good)"),
                        "round \(round): \(host.standardError)")
                #expect(host.waitForError("plugin-host: bringing back the builds that ran before: Ticker \(good)"), "round \(round): \(host.standardError)")
            } else {
                #expect(host.waitForError("plugin-host: trial passed: Ticker \(version) permanent"), "round \(round): \(host.standardError)")
                good = version
            }
            let status = try #require(console.waitForStatus { $0.state == "serving" && $0.plugin("Ticker")?["version"] as? String == good },
                                      "round \(round): \(host.standardError)")
            #expect(status.state(of: "Ticker") == "serving")
            #expect(service.echo().worker != nil, "round \(round): the service answers")
            #expect(host.isRunning, "round \(round): \(host.standardError)")
        }
        #expect(!host.standardError.contains("not restarting"), "\(host.standardError)")
        // Each bad build ran once: left out, never tried again.
        #expect(service.log.lines.filter { $0 == "Ticker 0.2.0 bootstrap" }.count == 10, "\(service.log.lines)")
        #expect(host.standardError.components(separatedBy: "it is left out until its file changes").count - 1 == 10, "\(host.standardError)")
        let status = try #require(console.status().map(HostStatusView.init))
        #expect(status.restarts["healed"] as? Int == 10, "\(status.restarts)")
        #expect(status.restarts["used"] as? Int == 0, "\(status.restarts)")
        #expect(host.stop(with: SIGTERM).status == 0)
    }

    @Test("a build on trial whose file changes before a restart nobody is blamed for: the restart loads the file as it is now, and the trial goes on with that build, replacing the same build before")
    func trialGoesOnWithTheFileAsItIsNow() throws {
        let service = try ServiceFixture()
        let console = OperatorConsole()
        // No --watch: a changed file is seen at a SIGHUP, or by the next generation.
        let (host, listener) = try service.start(console.arguments + ["--shutdown-timeout", "1", "--trial", "120"])
        #expect(listener.wait(forPrefix: "READY=1") == "READY=1\nSTATUS=5 plugins running")
        try service.replace("Ticker", with: "TickerNext")
        kill(host.processIdentifier, SIGHUP)
        #expect(host.waitForError("plugin-host: on trial for 120 s (--trial): Ticker 0.2.0 (replacing 0.1.0)"), "\(host.standardError)")
        #expect(service.log.wait(for: "Ticker 0.2.0 serving"), "\(service.log.lines)")

        // A new build goes in unseen; then the worker is killed from outside, which blames nobody.
        try service.replace("Ticker", withFile: try service.build(
            of: "Ticker",
            manifest: #"{"name": "Ticker", "version": "0.3.0", "abi": 2, "settings": ["log", "trigger", "crashIn", "pollMs", "failsInNextBuild", "printEvery", "nextBuildFails", "failAfterMs"]}"#))
        kill(try #require(service.echo().worker), SIGKILL)
        #expect(host.waitForError("plugin-host: restarting the plugins (no plugin is to blame: the worker was killed from outside; none is left out)"), "\(host.standardError)")

        let status = try #require(console.waitForStatus { $0.state == "serving" && $0.plugin("Ticker")?["version"] as? String == "0.3.0" })
        let trial = try #require(status.plugin("Ticker")?["trial"] as? [String: Any], "\(status.plugin("Ticker") ?? [:])")
        #expect(trial["version"] as? String == "0.3.0")
        #expect(trial["replaces"] as? String == "0.1.0")
        #expect(trial["canRollBack"] as? Bool == true, "\(trial)")
        // An operator's rollback names the build that runs, and brings back the build before.
        #expect(try console.run("rollback", ["Ticker"]).status == 0)
        #expect(host.waitForError("plugin-host: rolling back Ticker 0.3.0 -> 0.1.0, as an operator asked"), "\(host.standardError)")
        let back = try #require(console.waitForStatus { $0.state == "serving" && $0.plugin("Ticker")?["version"] as? String == "0.1.0" })
        #expect(back.plugin("Ticker")?["from"] as? String == "held", "\(back.plugin("Ticker") ?? [:])")
        #expect(host.stop(with: SIGTERM).status == 0)
    }

    @Test("a build whose file was replaced before its generation served still comes back: the supervisor holds the bytes its worker loaded")
    func replacedBeforeHeld() throws {
        let staging = try Scratch.directory(named: "staging").appending(path: "libTicker.so")
        try FileManager.default.copyItem(at: try Fixtures.plugin("TickerNext"), to: staging)
        let service = try ServiceFixture(tickerSettings: #""nextBuildFails": "crash", "replaceOwnFileWith": "\#(staging.path)""#)
        try service.directory.trust(staging)
        let console = OperatorConsole()
        let (host, listener) = try service.start(console.arguments + ["--watch", "--shutdown-timeout", "1", "--trial", "30"])
        // Ticker 0.1.0 renames 0.2.0 over its own file as it bootstraps, before the host serves.
        #expect(host.waitForError("plugin-host: upgraded: Ticker 0.1.0 -> 0.2.0"), "\(host.standardError)")
        #expect(host.waitForError("plugin-host: on trial for 30 s (--trial): Ticker 0.2.0 (replacing 0.1.0)"), "\(host.standardError)")
        #expect(host.waitForError("plugin-host: bringing back the builds that ran before: Ticker 0.1.0"), "\(host.standardError)")
        try expectBroughtBack(service, host, listener, console)
        #expect(!host.standardError.contains("nothing brought back"), "\(host.standardError)")
        #expect(host.stop(with: SIGTERM).status == 0)
    }

    @Test("ten reloads after a trial rolled back: the build before serves on, no restart is counted, the build left out is never loaded again")
    func reloadsAfterRollback() throws {
        let (service, host, listener, console) = try upgraded(fails: "crash", ["--trial", "30"])
        #expect(host.waitForError("plugin-host: error: Ticker 0.2.0, on trial, crashed during the run phase: SIGSEGV; rolling back Ticker 0.2.0 -> 0.1.0; it is left out until its file changes"), "\(host.standardError)")
        try expectBroughtBack(service, host, listener, console)
        let before = try #require(console.status().map(HostStatusView.init))
        let restarts = try #require(before.restarts["total"] as? Int)

        for reload in 1...10 {
            let reloaded = try console.run("reload")
            #expect(reloaded.status == 0, "reload \(reload): \(reloaded.standardError)")
            // The reload's rescan is done when the host says it is ready again.
            #expect(listener.wait(forPrefix: "RELOADING=1") != nil, "reload \(reload): \(host.standardError)")
            #expect(listener.wait(forPrefix: "READY=1") != nil, "reload \(reload): \(host.standardError)")
        }

        let after = try #require(console.status().map(HostStatusView.init))
        #expect(after.state == "serving")
        #expect(after.plugin("Ticker")?["version"] as? String == "0.1.0", "\(after.plugin("Ticker") ?? [:])")
        #expect(after.restarts["total"] as? Int == restarts, "\(after.restarts)")
        #expect(service.log.lines.filter { $0 == "Ticker 0.2.0 bootstrap" }.count == 1, "\(service.log.lines)")
        #expect(host.standardError.components(separatedBy: "rolling back").count == 2, "\(host.standardError)")
        #expect(host.stop(with: SIGTERM).status == 0)
    }

    @Test("a new build whose health check says it is unhealthy within its trial is rolled back beside it, without a gap")
    func unhealthyOnTrial() throws {
        let (service, host, listener, console) = try upgraded(fails: "unhealthy", ["--trial", "30", "--health-interval", "0.1"])
        #expect(host.waitForError("plugin-host: error: on trial, Ticker 0.2.0 is unhealthy (lost its data); rolling back Ticker 0.2.0 -> 0.1.0; it is left out until its file changes"), "\(host.standardError)")
        #expect(host.waitForError("plugin-host: rolled back: brought back Ticker 0.1.0"), "\(host.standardError)")
        try expectBroughtBack(service, host, listener, console)
        #expect(host.stop(with: SIGTERM).status == 0)
    }

    @Test("a new build whose health check hangs within its trial is rolled back")
    func hangOnTrial() throws {
        let (service, host, listener, console) = try upgraded(fails: "hang", ["--trial", "30", "--health-interval", "0.1", "--timeout", "1"])
        #expect(host.waitForError("plugin-host: error: on trial, Ticker 0.2.0 is unhealthy (it did not answer its health check"), "\(host.standardError)")
        try expectBroughtBack(service, host, listener, console)
        let result = host.stop(with: SIGTERM)
        #expect([0, 124].contains(result.status), "\(result.standardError)")
    }

    @Test("after the trial the same failure leaves the build out, as any failure does")
    func failureAfterTrial() throws {
        let (service, host, listener, _) = try upgraded(fails: "crash", after: 1500, ["--trial", "0.5"])
        #expect(host.waitForError("plugin-host: trial passed: Ticker 0.2.0 permanent; the build before let go"), "\(host.standardError)")
        #expect(host.waitForError("plugin-host: restarting the plugins without \(service.label("Ticker"))"), "\(host.standardError)")
        #expect(listener.wait(forPrefix: "READY=1", containing: "left out: Ticker") != nil, "\(host.standardError)")
        #expect(!host.standardError.contains("rolling back"), "\(host.standardError)")
        #expect(host.stop(with: SIGTERM).status == 0)
    }

    @Test("plugin-host accept ends a trial at once; accepting again, with nothing on trial, fails with exit status 1")
    func accept() throws {
        let (_, host, _, console) = try upgraded(fails: "none", ["--trial", "600"])
        let status = try #require(console.waitForStatus { ($0.plugin("Ticker")?["trial"] as? [String: Any])?["version"] as? String == "0.2.0" })
        let trial = try #require(status.plugin("Ticker")?["trial"] as? [String: Any])
        #expect(trial["replaces"] as? String == "0.1.0")
        #expect(trial["canRollBack"] as? Bool == true)
        #expect(try console.run("status").standardOutput.contains("Ticker: 0.2.0 on trial until "))
        #expect(try console.run("status", ["--metrics"]).standardOutput.contains("plugin_host_plugin_trial_end_timestamp_seconds{plugin=\"Ticker\"} "))

        let accepted = try console.run("accept", ["Ticker"])
        #expect(accepted.status == 0, "\(accepted.standardError)")
        #expect(accepted.standardOutput == "accept: Ticker 0.2.0 permanent\n")
        #expect(host.waitForError("plugin-host: accepted (plugin-host accept): Ticker 0.2.0 permanent"))
        #expect(console.status().map(HostStatusView.init)?.plugin("Ticker")?["trial"] is NSNull)

        let again = try console.run("accept")
        #expect(again.status == 1)
        #expect(again.standardError.contains("no build is on trial"), "\(again.standardError)")
        #expect(host.stop(with: SIGTERM).status == 0)
    }

    @Test("plugin-host rollback brings back the build before and answers once it serves; with nothing to go back to it fails")
    func rollBack() throws {
        let (service, host, listener, console) = try upgraded(fails: "none", ["--trial", "600"])
        #expect(console.waitForStatus { ($0.plugin("Ticker")?["trial"] as? [String: Any]) != nil } != nil)
        let unknown = try console.run("rollback", ["Echo"])
        #expect(unknown.status == 1)
        #expect(unknown.standardError.contains("cannot roll back Echo: no build before "), "\(unknown.standardError)")

        let rolledBack = try console.run("rollback")
        #expect(rolledBack.status == 0, "\(rolledBack.standardError)")
        #expect(rolledBack.standardOutput.hasPrefix("rollback: generation "), "\(rolledBack.standardOutput)")
        #expect(host.waitForError(
            "plugin-host: rolling back Ticker 0.2.0 -> 0.1.0, as an operator asked (plugin-host rollback); Ticker 0.2.0 left out until its file changes"))
        try expectBroughtBack(service, host, listener, console)

        let again = try console.run("rollback")
        #expect(again.status == 1)
        #expect(host.stop(with: SIGTERM).status == 0)
    }
}
