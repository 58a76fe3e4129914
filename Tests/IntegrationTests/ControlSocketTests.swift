import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The control socket, through the real binary: `plugin-host status` in every state of the
/// host, `--follow`, `reload`, `restart`, `stop`, the metrics, `--running`; who may ask; and
/// clients that misbehave.
@Suite("The control socket: status, reload, restart, stop, metrics")
struct ControlSocketTests {
    @Test("status while serving: the host's pid and state, its generation's worker, every plugin's build, the sockets")
    func statusWhileServing() throws {
        let service = try ServiceFixture()
        let console = OperatorConsole()
        let (host, listener) = try service.start(console.arguments)
        #expect(listener.wait(forPrefix: "READY=1") != nil)
        let worker = try #require(service.echo().worker)

        let status = try #require(console.status().map(HostStatusView.init))
        #expect(status.json["schema"] as? Int == 1)
        #expect(status.json["pid"] as? Int32 == host.processIdentifier)
        #expect(status.state == "serving")
        #expect(status.generations.count == 1)
        #expect(status.generations.first?["pid"] as? Int32 == worker)
        #expect(status.generations.first?["role"] as? String == "serving")
        #expect(Set(status.plugins.compactMap { $0["name"] as? String }) == ["Persistence", "Domain", "Application", "Echo", "Ticker"])
        let ticker = try #require(status.plugin("Ticker"))
        #expect(ticker["state"] as? String == "serving")
        #expect(ticker["file"] as? String == service.file("Ticker").path)
        #expect(ticker["fileChanged"] as? Bool == false)
        let build = try #require(ticker["build"] as? [String: Any])
        let size = try FileManager.default.attributesOfItem(atPath: service.file("Ticker").path)[.size] as? Int
        #expect(build["size"] as? Int == size)
        let buildID = try #require(build["buildID"] as? String, "swiftc links with a build id")
        #expect(buildID.count == 40 && buildID.allSatisfy(\.isHexDigit))
        let sockets = status.json["sockets"] as? [[String: Any]] ?? []
        #expect(sockets.contains { $0["name"] as? String == "echo" && $0["address"] as? String == service.socket })
        #expect(status.json["control"] as? String == console.path)

        // The same, as an operator reads it.
        let text = try console.run("status")
        #expect(text.status == 0)
        #expect(text.standardOutput.hasPrefix("● plugin-host: serving; started "), "\(text.standardOutput)")
        #expect(text.standardOutput.contains("Generation: 1, pid \(worker): serving"), "\(text.standardOutput)")
        #expect(text.standardOutput.contains("Socket: echo on \(service.socket)"))
        #expect(text.standardOutput.split(separator: "\n").contains { $0.contains("Ticker") && $0.contains("serving") && $0.contains(String(buildID.prefix(12))) })

        // What runs, as list, inspect and graph show files.
        let list = try console.run("list", ["--running"])
        #expect(list.status == 0 && list.standardOutput.split(separator: "\n").count == 6, "\(list.standardOutput)")
        let inspect = try console.run("inspect", ["--running", "Ticker"])
        #expect(inspect.status == 0 && inspect.standardOutput.contains("build id:      \(buildID)"), "\(inspect.standardOutput)")
        #expect(inspect.standardOutput.contains("file on disk:  the build that runs"))
        let unknown = try console.run("inspect", ["--running", "Tickr"])
        #expect(unknown.status == 1 && unknown.standardError.contains("the running host has no plugin Tickr"))
        let graph = try console.run("graph", ["--running"])
        #expect(graph.standardOutput.contains("\"Domain\" -> \"Persistence\";"), "\(graph.standardOutput)")

        let result = host.stop(with: SIGTERM)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(!FileManager.default.fileExists(atPath: console.path), "the socket file is removed when the host ends")
        let none = try console.run("status")
        #expect(none.status == 1)
        #expect(none.standardError == "plugin-host: error: no plugin-host is running at \(console.path)\n")
    }

    @Test("status names the host binary that runs (its path, version and build id), and says when its file is now another build")
    func hostBinary() throws {
        // An install tree of its own, whose binary a package upgrade then replaces.
        let install = try Scratch.directory(named: "install").resolvingSymlinksInPath()
        for folder in ["bin", "lib"] { try FileManager.default.createDirectory(at: install.appending(path: folder), withIntermediateDirectories: true) }
        let binary = install.appending(path: "bin/plugin-host")
        try FileManager.default.copyItem(at: Repository.host, to: binary)
        try FileManager.default.copyItem(at: Repository.root.appending(path: "build/lib/libPluginABI.so"), to: install.appending(path: "lib/libPluginABI.so"))
        let service = try ServiceFixture()
        let console = OperatorConsole()
        let (host, listener) = try service.start(console.arguments, executable: binary.path)
        #expect(listener.wait(forPrefix: "READY=1") != nil, "\(host.standardError)")

        let described = try #require(console.status()?["host"] as? [String: Any])
        #expect(described["path"] as? String == binary.path)
        let version = try Command.run(binary.path, ["--version"])
        #expect(version.standardOutput.hasPrefix("plugin-host \(described["version"] as? String ?? "?") "), "\(version.standardOutput)")
        let buildID = try #require(described["buildID"] as? String)
        #expect(try Command.run("/usr/bin/readelf", ["-n", binary.path]).standardOutput.contains("Build ID: \(buildID)"))
        #expect(described["fileChanged"] as? Bool == false)
        let metrics = try console.run("status", ["--metrics"]).standardOutput
        #expect(metrics.contains("plugin_host_build_info{version=\"\(described["version"] as? String ?? "?")\",build_id=\"\(buildID)\"} 1\n"), "\(metrics)")

        // A package upgrade renames another build over the binary: the host runs the build it
        // started, and says what the file now is, read without running it.
        let replacement = install.appending(path: "bin/.plugin-host.new")
        let other = try String(contentsOf: Repository.host, encoding: .isoLatin1)
            .replacingOccurrences(of: #"{"program":"plugin-host","version":"\#(described["version"] as? String ?? "?")","supervision":1}"#,
                                  with: #"{"program":"plugin-host","version":"9.8.7","supervision":1}"#)
        try other.write(to: replacement, atomically: false, encoding: .isoLatin1)
        #expect(rename(replacement.path, binary.path) == 0)
        let after = try #require(console.status()?["host"] as? [String: Any])
        #expect(after["fileChanged"] as? Bool == true)
        #expect(after["fileVersion"] as? String == "9.8.7")
        #expect(after["buildID"] as? String == buildID)
        let text = try console.run("status").standardOutput
        #expect(text.contains("Host: plugin-host \(described["version"] as? String ?? "?"), build id \(buildID.prefix(12)), \(binary.path); "
            + "the file is now another build, plugin-host 9.8.7, which the host runs once it is started again"), "\(text)")
        // A file that is no plugin-host.
        try FileManager.default.copyItem(at: Repository.root.appending(path: "build/lib/libPluginABI.so"), to: replacement)
        #expect(rename(replacement.path, binary.path) == 0)
        let notAHost = try #require(console.status()?["host"] as? [String: Any])
        #expect(notAHost["fileChanged"] as? Bool == true && notAHost["fileVersion"] is NSNull)
        #expect(host.stop(with: SIGTERM).status == 0)
    }

    @Test("--follow shows a crash and the recovery in order; status names the culprit left out; restart NAME brings it back")
    func crashRecoveryAndRestart() throws {
        let service = try ServiceFixture()
        let console = OperatorConsole()
        let (host, listener) = try service.start(console.arguments)
        #expect(listener.wait(forPrefix: "READY=1") != nil)
        let follower = try console.follow()
        #expect(follower.waitForChange { change, status in change == "following" && status.state == "serving" })

        try Data().write(to: service.trigger)
        #expect(follower.waitForChange { change, _ in change == "serving -> recovering" }, "\(follower.standardOutput)")
        #expect(follower.waitForChange { change, status in change == "recovering -> serving" && status.state(of: "Ticker") == "left out" })
        let changes = follower.jsonLines.compactMap { $0["change"] as? String }
        let crashed = try #require(changes.firstIndex(of: "serving -> recovering"))
        let recovered = try #require(changes.firstIndex(of: "recovering -> serving"))
        #expect(crashed < recovered, "in order: \(changes)")

        let status = try #require(console.status().map(HostStatusView.init))
        let ticker = try #require(status.plugin("Ticker"))
        #expect(ticker["state"] as? String == "left out")
        #expect((ticker["reason"] as? String)?.contains("crashed during the run phase: SIGSEGV") == true, "\(ticker)")
        #expect(ticker["failures"] as? Int == 1)
        #expect(((ticker["lastFailure"] as? [String: Any])?["summary"] as? String)?.contains("SIGSEGV") == true)
        #expect(status.restarts["total"] as? Int == 1)
        #expect(status.generations.first?["number"] as? Int == 2)
        let text = try console.run("status")
        #expect(text.standardOutput.contains("Ticker: crashed during the run phase: SIGSEGV"), "\(text.standardOutput)")

        // Fixed (the trigger is gone): tried again without touching its file.
        try FileManager.default.removeItem(at: service.trigger)
        let restart = try console.run("restart", ["Ticker"])
        #expect(restart.status == 0, "\(restart.standardError)")
        #expect(restart.standardOutput == "restart: generation 3 serves\n")
        let after = try #require(console.status().map(HostStatusView.init))
        #expect(after.state(of: "Ticker") == "serving")
        #expect(service.echo().worker != nil)
        // Said as what it is: an operator's restart that runs Ticker again, not an upgrade.
        #expect(host.waitForError("plugin-host: restarted, as an operator asked (plugin-host restart): Ticker 0.1.0 now runs\n"), "\(host.standardError)")
        #expect(!host.standardError.contains("upgraded:"), "\(host.standardError)")
        #expect(after.generations.first?["cause"] as? String == "operator restart", "\(after.generations)")
        #expect(try console.run("status").standardOutput.contains("Generation: 3, pid "), "\(after.generations)")
        #expect(try console.run("status").standardOutput.contains("(operator restart)\n"))
        #expect(try console.run("restart").status == 0)
        #expect(host.waitForError("plugin-host: restarted, as an operator asked (plugin-host restart): the same builds serve\n"), "\(host.standardError)")
        #expect(follower.waitForChange { change, status in change == "taking over -> serving" && status.state(of: "Ticker") == "serving" })

        let stop = try console.run("stop")
        #expect(stop.status == 0 && stop.standardOutput == "stopped: the host ended with exit status 0\n", "\(stop.standardError)")
        let result = host.wait()
        #expect(result.status == 0, "\(result.standardError)")
        // The follower sees the stop, and the end of the host.
        let followed = follower.wait()
        #expect(followed.status == 0)
        #expect(follower.jsonLines.contains { $0["change"] as? String == "serving -> stopping" })
    }

    @Test("a crash loop backs off: status says until when and how many restarts the limit has left; restart cuts the wait")
    func backingOff() throws {
        let service = try ServiceFixture(crashIn: "bootstrap")
        let console = OperatorConsole()
        let (host, listener) = try service.start(console.arguments + ["--restart-delay", "60", "--restart-max-delay", "60"])
        #expect(listener.wait(forPrefix: "READY=1") != nil)
        // Killed from outside twice: nobody is blamed, the second restart in a row waits.
        kill(try #require(service.echo().worker), SIGKILL)
        let second = try #require(console.waitForStatus { $0.state == "serving" && $0.generations.first?["number"] as? Int == 2 })
        kill(try #require(second.generations.first?["pid"] as? Int32), SIGKILL)

        let waiting = try #require(console.waitForStatus { $0.state == "backing off" })
        let seconds = try #require(waiting.json["backingOffSeconds"] as? Double)
        #expect(seconds > 30 && seconds <= 60, "\(waiting.json)")
        #expect(waiting.json["backingOffUntil"] is String)
        #expect(waiting.generations.isEmpty)
        #expect(waiting.restarts["limit"] as? Int == 5 && waiting.restarts["total"] as? Int == 2, "\(waiting.restarts)")
        let text = try console.run("status")
        #expect(text.standardOutput.hasPrefix("● plugin-host: backing off until "), "\(text.standardOutput)")
        let metrics = try console.run("status", ["--metrics"])
        #expect(metrics.standardOutput.contains("plugin_host_state{state=\"backing off\"} 1"))
        #expect(metrics.standardOutput.contains("plugin_host_up 0"))

        let restart = try console.run("restart")
        #expect(restart.status == 0, "\(restart.standardError)")
        #expect(console.status().map(HostStatusView.init)?.state == "serving")
        #expect(service.echo().worker != nil)
        #expect(host.stop(with: SIGTERM).status == 0)
    }

    @Test("while the first generation loads, status says starting; stop ends it and prints the exit status")
    func whileLoading() throws {
        let service = try ServiceFixture()
        try service.replace("Misbehaver", with: "Misbehaver")
        let console = OperatorConsole()
        let (host, _) = try service.start(console.arguments + ["--shutdown-timeout", "2"], environment: [
            "MISBEHAVER_ACT": "hang", "MISBEHAVER_PHASE": "load", "MISBEHAVER_LOG": service.log.file.path,
        ])
        #expect(wait(until: { service.log.lines.contains { $0.hasPrefix("act hang pid ") } }), "\(host.standardError)")
        let status = try #require(console.status().map(HostStatusView.init))
        #expect(status.state == "starting")
        #expect(status.generations.first?["role"] as? String == "starting")
        #expect(status.generations.first?["readyAt"] is NSNull)

        let stop = try console.run("stop")
        #expect(stop.status == 0)
        #expect(stop.standardOutput.hasPrefix("stopped: the host ended with exit status "), "\(stop.standardOutput)\(stop.standardError)")
        let result = host.wait()
        #expect(stop.standardOutput == "stopped: the host ended with exit status \(result.status)\n")
    }

    @Test("wait: started before the host, it waits for it to come up; exit 1 when the host ends before it serves; with the status once it serves")
    func waitForServing() throws {
        // A host whose first generation never serves: a plugin hangs in its load past --timeout.
        let never = try ServiceFixture()
        try never.replace("Misbehaver", with: "Misbehaver")
        let console = OperatorConsole()
        let early = try RunningHost(Repository.host.path, ["wait", "--control", console.path])
        let (failing, _) = try never.start(console.arguments + ["--timeout", "5"], environment: [
            "MISBEHAVER_ACT": "hang", "MISBEHAVER_PHASE": "load", "MISBEHAVER_LOG": never.log.file.path,
        ])
        #expect(wait(until: { never.log.lines.contains { $0.hasPrefix("act hang pid ") } }), "\(failing.standardError)")
        #expect(early.isRunning, "a plugin hangs in the only generation's load: the host does not serve\n\(early.standardError)")
        let ended = failing.wait(limit: .seconds(60))
        #expect(ended.status == 124, "\(ended.standardError)")
        let refused = early.wait(limit: .seconds(60))
        #expect(refused.status == 1)
        #expect(refused.standardError == "plugin-host: error: the host ended with status 124 first\n", "\(refused.standardError)")
        #expect(refused.standardOutput.isEmpty)

        // A host that serves: wait answers with its status, as text or as the JSON document.
        let service = try ServiceFixture()
        let (host, _) = try service.start(console.arguments)
        let answered = try console.run("wait")
        #expect(answered.status == 0, "\(answered.standardError)")
        #expect(answered.standardOutput.hasPrefix("● plugin-host: serving; started "), "\(answered.standardOutput)")
        #expect(answered.standardOutput.split(separator: "\n").contains { $0.contains("Ticker") && $0.contains("serving") }, "\(answered.standardOutput)")
        let again = try console.run("wait", ["--json"])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(again.standardOutput.utf8)) as? [String: Any], "\(again.standardError)")
        #expect(again.status == 0 && HostStatusView(document).state == "serving")
        #expect(host.stop(with: SIGTERM).status == 0)
    }

    @Test("an upgrade shows two generations; after a failed one, status shows the build that serves and marks the file on disk as another")
    func failedUpgrade() throws {
        let service = try ServiceFixture()
        let console = OperatorConsole()
        let (host, listener) = try service.start(console.arguments + ["--watch", "--timeout", "5"], environment: [
            "MISBEHAVER_ACT": "hang", "MISBEHAVER_PHASE": "load", "MISBEHAVER_LOG": service.log.file.path,
        ])
        #expect(listener.wait(forPrefix: "READY=1") != nil)

        // A new build whose load never returns: the candidate loads beside the serving one.
        try service.replace("Echo", withFile: try service.build(of: "Misbehaver", manifest: #"{"name": "Echo", "version": "9.0.0", "abi": 2}"#))
        let upgrading = try #require(console.waitForStatus { $0.state == "upgrading" && $0.generations.count == 2 })
        #expect(upgrading.generations.map { $0["role"] as? String } == ["serving", "loading beside the serving one"])
        #expect(upgrading.generations.map { $0["number"] as? Int } == [1, 2])
        #expect(service.echo().worker != nil, "the serving generation answers meanwhile")
        // Killed at its load deadline? Not waited for: a restart of the running builds ends it.
        let failed = try #require(console.waitForStatus(limit: .seconds(60)) { ($0.json["lastUpgrade"] as? [String: Any])?["result"] as? String == "failed" })
        #expect(failed.state == "serving" && failed.generations.count == 1)
        let echo = try #require(failed.plugin("Echo"))
        #expect(echo["version"] as? String == "1.0.0", "the build that serves")
        #expect(echo["fileChanged"] as? Bool == true, "the file on disk is another build")
        let onDisk = try Command.run(Repository.host.path, ["inspect", "--json", service.file("Echo").path])
        #expect(onDisk.standardOutput.contains("9.0.0"))
        let running = try console.run("inspect", ["--running", "Echo"])
        #expect(running.standardOutput.contains("version:       1.0.0"), "\(running.standardOutput)")
        #expect(running.standardOutput.contains("file on disk:  another build"))
        let text = try console.run("status")
        #expect(text.standardOutput.contains("Echo: the file on disk is another build than the one that runs"), "\(text.standardOutput)")
        #expect(host.stop(with: SIGTERM).status == 0)
    }

    @Test("after an upgrade rolled back, status shows the build brought back, and the file on disk as another")
    func rolledBackUpgrade() throws {
        let service = try ServiceFixture(tickerSettings: #""failsInNextBuild": true"#)
        let console = OperatorConsole()
        let (host, listener) = try service.start(console.arguments + ["--watch"])
        #expect(listener.wait(forPrefix: "READY=1") != nil)
        let before = try #require(console.status().map(HostStatusView.init)?.plugin("Ticker")?["build"] as? [String: Any])

        // A build whose bootstrap refuses, after the one before stopped: rolled back.
        try service.replace("Ticker", with: "TickerNext")
        let rolledBack = try #require(console.waitForStatus { ($0.json["lastUpgrade"] as? [String: Any])?["result"] as? String == "rolled back" && $0.state == "serving" })
        let ticker = try #require(rolledBack.plugin("Ticker"))
        #expect(ticker["version"] as? String == "0.1.0")
        #expect((ticker["build"] as? [String: Any])?["inode"] as? Int == before["inode"] as? Int)
        #expect(ticker["fileChanged"] as? Bool == true)
        let list = try console.run("list", ["--running"])
        #expect(list.standardOutput.split(separator: "\n").contains { $0.contains("Ticker") && $0.contains("0.1.0") && $0.contains("(on disk: another build)") })
        #expect(host.stop(with: SIGTERM).status == 0)
    }

    @Test("while the host stops, status says stopping; stop waits for the end, longer than a request may take to come, and prints its status")
    func whileStopping() throws {
        let service = try ServiceFixture(settings: [#""Misbehaver": {"act": "hang", "phase": "shutdown"}"#])
        try service.replace("Misbehaver", with: "Misbehaver")
        let console = OperatorConsole()
        // The hook that hangs holds the stop past the 5 s a client has to send its request.
        let (host, listener) = try service.start(console.arguments + ["--shutdown-timeout", "6"])
        #expect(listener.wait(forPrefix: "READY=1") != nil)
        let stopper = try RunningHost(Repository.host.path, ["stop", "--control", console.path])
        let stopping = try #require(console.waitForStatus { $0.state == "stopping" })
        #expect(stopping.generations.first?["role"] as? String == "stopping")
        let stopped = stopper.wait(limit: .seconds(30))
        let result = host.wait()
        #expect(stopped.status == 0)
        #expect(stopped.standardOutput == "stopped: the host ended with exit status \(result.status)\n", "\(stopped.standardError)")
        #expect(result.standardError.contains("Misbehaver"), "the hook that overran is named")
    }

    @Test("reload answers whether it was applied; a bad configuration is refused with its reasons, and nothing changes")
    func reload() throws {
        let service = try ServiceFixture()
        let console = OperatorConsole()
        let (host, listener) = try service.start(console.arguments)
        #expect(listener.wait(forPrefix: "READY=1") != nil)
        let worker = service.echo().worker

        let applied = try console.run("reload")
        #expect(applied.status == 0 && applied.standardOutput == "reload applied\n", "\(applied.standardError)")

        let good = try Data(contentsOf: service.directory.configuration)
        try Data(#"{"plugins": {"Echo": {"log": 42}}"#.utf8).write(to: service.directory.configuration)
        let refused = try console.run("reload")
        #expect(refused.status == 1)
        #expect(refused.standardError.hasPrefix("plugin-host: reload refused; nothing changed:\n"), "\(refused.standardError)")
        #expect(refused.standardError.contains("\n  configuration file \(service.directory.configuration.path)"), "\(refused.standardError)")
        // Said once: the reason is the reason, not a second "reload refused".
        #expect(refused.standardError.components(separatedBy: "refused").count == 2, "\(refused.standardError)")
        #expect(!refused.standardError.contains("nothing was reloaded"), "\(refused.standardError)")
        let text = try console.run("status").standardOutput
        let lastReload = text.split(separator: "\n").first { $0.contains("Last reload:") }.map(String.init) ?? ""
        #expect(lastReload.contains(" refused: configuration file \(service.directory.configuration.path)"), "\(text)")
        #expect(lastReload.components(separatedBy: "refused").count == 2, "\(lastReload)")
        let json = try console.run("reload", ["--json"])
        #expect(json.status == 1)
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        #expect((answer["reload"] as? [String: Any])?["applied"] as? Bool == false)

        #expect(service.echo().worker == worker, "the same worker serves")
        let status = try #require(console.status().map(HostStatusView.init))
        #expect(status.state == "serving")
        #expect((status.json["reloads"] as? [String: Any])?["refused"] as? Int == 2)
        #expect((status.json["lastReload"] as? [String: Any])?["applied"] as? Bool == false)

        try good.write(to: service.directory.configuration)
        #expect(try console.run("reload").status == 0)

        // A client that shuts its writing side after its request (as socat does) gets its answer.
        let halfClosed = try #require(RawClient(unix: console.path))
        halfClosed.send(#"{"command": "reload"}"# + "\n")
        shutdown(halfClosed.descriptor, Int32(SHUT_WR))
        let halfClosedAnswer = halfClosed.readToEnd()
        #expect(halfClosedAnswer.closed && halfClosedAnswer.text.contains(#""applied":true"#), "\(halfClosedAnswer.text)")
        #expect(host.stop(with: SIGTERM).status == 0)
    }

    @Test("only the host's user and root may ask: another user is refused, and the refusal is logged")
    func otherUsersRefused() throws {
        let service = try ServiceFixture()
        let console = OperatorConsole()
        let (host, listener) = try service.start(console.arguments)
        #expect(listener.wait(forPrefix: "READY=1") != nil)
        let mode = try FileManager.default.attributesOfItem(atPath: console.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        guard getuid() == 0 else { return }  // Running as another user needs root.

        let asNobody = ["--reuid=65534", "--regid=65534", "--clear-groups", Repository.host.path, "status", "--control", console.path]
        let denied = try Command.run("/usr/bin/setpriv", asNobody)
        #expect(denied.status == 1)
        #expect(denied.standardError.contains("not allowed to connect to \(console.path)"), "\(denied.standardError)")

        // Even with the file open to all (a mistake), the host checks who connects.
        chmod(console.path, 0o666)
        let refused = try Command.run("/usr/bin/setpriv", asNobody)
        #expect(refused.status == 1)
        #expect(refused.standardError.contains("refused: only the user plugin-host runs as, and root, may use its control socket"), "\(refused.standardError)")
        #expect(host.waitForError("plugin-host: warning: refused a control connection from user 65534"))
        #expect(console.status() != nil, "the host's own user still may")
        #expect(host.stop(with: SIGTERM).status == 0)
    }

    @Test("garbage, a request cut off, a client that never reads, a thousand at once: each gets an error or is dropped; no descriptor leaks")
    func hostileClients() throws {
        let service = try ServiceFixture()
        let console = OperatorConsole()
        let (host, listener) = try service.start(console.arguments)
        #expect(listener.wait(forPrefix: "READY=1") != nil)
        #expect(console.status() != nil)
        // The clients live in this closure, and are all gone after it.
        let (_, baseline) = try { () throws -> (RunningHost, Int) in
        let baseline = openDescriptors(of: host.processIdentifier)

        let garbage = try #require(RawClient(unix: console.path))
        garbage.send("\u{1}\u{2}not json at all\n")
        let garbageAnswer = garbage.readToEnd()
        #expect(garbageAnswer.closed && garbageAnswer.text.contains(#""ok":false"#) && garbageAnswer.text.contains("not a JSON object"))

        let unknown = try #require(RawClient(unix: console.path))
        unknown.send(#"{"command": "format-disk"}"# + "\n")
        #expect(unknown.readToEnd().text.contains(#"unknown command \"format-disk\""#))

        let endless = try #require(RawClient(unix: console.path))
        endless.send(String(repeating: "x", count: 20_000))
        let endlessAnswer = endless.readToEnd()
        #expect(endlessAnswer.closed && endlessAnswer.text.contains("longer than 8192 bytes"))

        // One request a connection: a follower that sends more once it follows is dropped.
        let chatty = try #require(RawClient(unix: console.path))
        chatty.send(#"{"command": "follow"}"# + "\n")
        #expect(chatty.readToEnd(limit: .seconds(1)).text.contains(#""change":"following""#))
        chatty.send(#"{"command": "status"}"# + "\n")
        #expect(chatty.readToEnd().closed, "dropped")

        // Half a request, then the client goes.
        RawClient(unix: console.path)?.send(#"{"comm"#)
        // A request and a follow whose answers are never read, and a client that says nothing.
        let neverReads = try #require(RawClient(unix: console.path))
        neverReads.send(#"{"command": "status"}"# + "\n")
        let neverReadingFollower = try #require(RawClient(unix: console.path))
        neverReadingFollower.send(#"{"command": "follow"}"# + "\n")
        let silent = try #require(RawClient(unix: console.path))

        // A thousand at once: some are served, the rest refused or turned away.
        var crowd: [RawClient] = []
        for _ in 0..<1000 {
            if let client = RawClient(unix: console.path) { crowd.append(client) }
        }
        // Clients beyond the cap are turned away until the silent ones reach their deadline.
        #expect(console.waitForStatus { _ in true } != nil, "the host still answers")
        #expect(service.echo().worker != nil, "and its service still serves")
        crowd.removeAll()
        withExtendedLifetime((neverReads, neverReadingFollower, silent)) {}
        return (host, baseline)
        }()

        // Every client is gone: the host holds no descriptor more than before.
        let drained = wait(limit: .seconds(20)) { openDescriptors(of: host.processIdentifier) <= baseline }
        #expect(drained, "\(openDescriptors(of: host.processIdentifier)) descriptors open, \(baseline) before")
        #expect(console.status() != nil)
        #expect(host.stop(with: SIGTERM).status == 0)
    }

    @Test("metrics: the Prometheus text format, over the control socket and as GET /metrics; bad HTTP gets 400 and a closed connection")
    func metrics() throws {
        let service = try ServiceFixture()
        // Marker uses Metrics when it is installed; nobody installed it.
        try FileManager.default.copyItem(at: try Fixtures.plugin("Marker"), to: service.file("Marker"))
        let console = OperatorConsole()
        let port = unusedPort()
        let (host, listener) = try service.start(console.arguments + ["--metrics-listen", "127.0.0.1:\(port)"])
        #expect(listener.wait(forPrefix: "READY=1") != nil)

        let exposition = try console.run("status", ["--metrics"])
        #expect(exposition.status == 0)
        let text = exposition.standardOutput
        #expect(text.contains("plugin_host_up 1\n"))
        #expect(text.contains("plugin_host_generation 1\n"))
        #expect(text.contains("plugin_host_plugin_up{plugin=\"Ticker\"} 1\n"))
        #expect(text.contains("plugin_host_plugin_left_out{plugin=\"Ticker\"} 0\n"))
        // An optional plugin nobody installed is no target that is down: no series of its own
        // but the one that says it is absent, and grey in the graph, never red.
        #expect(!text.contains("{plugin=\"Metrics\"} 0"), "\(text)")
        #expect(text.contains("plugin_host_plugin_optional_absent{plugin=\"Metrics\"} 1\n"), "\(text)")
        let graph = try console.run("graph", ["--running"]).standardOutput
        #expect(graph.contains(#""Metrics" [label="Metrics\n\noptional and absent", color=grey"#), "\(graph)")
        // The supervisor's own cost: its processor time, and the events its state machine took,
        // which a request adds to.
        #expect(try #require(Self.sample("plugin_host_supervisor_cpu_seconds_total", in: text)) > 0)
        let events = try #require(Self.sample("plugin_host_supervisor_events_total", in: text))
        let later = try console.run("status", ["--metrics"]).standardOutput
        #expect(try #require(Self.sample("plugin_host_supervisor_events_total", in: later)) > events)

        let scrape = try #require(RawClient(port: port))
        scrape.send("GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n")
        let response = scrape.readToEnd()
        #expect(response.closed && response.text.hasPrefix("HTTP/1.1 200 OK\r\n"), "\(response.text.prefix(200))")
        #expect(response.text.contains("Content-Type: text/plain; version=0.0.4"))
        let body = String(response.text[try #require(response.text.range(of: "\r\n\r\n")).upperBound...])
        #expect(body.contains("plugin_host_plugin_up{plugin=\"Echo\"} 1\n"))

        // The Prometheus project's own parser reads both.
        for document in [text, body] {
            let parsed = try parseWithPrometheus(document)
            #expect(parsed.status == 0, "\(parsed.standardError)")
            // The parser names a counter without its `_total`.
            #expect(parsed.standardOutput.contains("plugin_host_restarts counter"), "\(parsed.standardOutput)")
            #expect(parsed.standardOutput.contains("plugin_host_plugin_up gauge"))
            #expect(parsed.standardOutput.contains("plugin_host_supervisor_cpu_seconds counter"), "\(parsed.standardOutput)")
        }

        for (request, expected) in [
            ("BREW /coffee HTCPCP/1.0\r\n\r\n", "HTTP/1.1 400 "), ("POST /metrics HTTP/1.1\r\n\r\n", "HTTP/1.1 405 "),
            ("GET /admin HTTP/1.1\r\n\r\n", "HTTP/1.1 404 "), ("GET /metrics HTTP/1.1\r\nX: " + String(repeating: "y", count: 9000), "HTTP/1.1 431 "),
            ("\u{0}\u{1}\u{2}\r\n\r\n", "HTTP/1.1 400 "),
        ] {
            let client = try #require(RawClient(port: port))
            client.send(request)
            let answer = client.readToEnd()
            #expect(answer.closed && answer.text.hasPrefix(expected), "\(request.prefix(30).debugDescription): \(answer.text.prefix(80))")
        }
        #expect(host.stop(with: SIGTERM).status == 0)
    }

    /// The value of the series `name` (one without labels) in an exposition.
    static func sample(_ name: String, in exposition: String) -> Double? {
        exposition.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.dropFirst(name.count + 1)) }
    }

    @Test("a warning that still holds is said once, not at every reload or generation; status lists the warnings in force")
    func warningsSaidOnce() throws {
        // A misspelt setting, and then a changed one of a plugin without a reload hook (Echo).
        let service = try ServiceFixture(echoSettings: #""sokcet": "echo""#)
        let console = OperatorConsole()
        let (host, listener) = try service.start(console.arguments)
        #expect(listener.wait(forPrefix: "READY=1") != nil)
        let configuration = try String(contentsOf: service.directory.configuration, encoding: .utf8)
        let echoLog = #""Echo": {"log": "\#(service.log.file.path)""#
        #expect(configuration.contains(echoLog))
        try configuration.replacingOccurrences(of: echoLog, with: #""Echo": {"log": "/dev/null""#)
            .write(to: service.directory.configuration, atomically: true, encoding: .utf8)
        for _ in 0..<4 { #expect(try console.run("reload").status == 0) }
        let noHook = "plugin Echo (\(service.file("Echo").path)) has no reload hook"
        let held = try #require(console.status().map(HostStatusView.init))
        #expect(held.warnings.contains { $0.hasPrefix(noHook) }, "\(held.warnings)")
        #expect(held.warnings.contains { $0.contains(#"did not read setting "sokcet""#) }, "\(held.warnings)")

        // A new generation starts with the setting: that warning no longer holds; the other does.
        for _ in 0..<2 { #expect(try console.run("restart").status == 0) }
        for _ in 0..<2 { #expect(try console.run("reload").status == 0) }
        let after = try #require(console.status().map(HostStatusView.init))
        #expect(!after.warnings.contains { $0.hasPrefix(noHook) }, "\(after.warnings)")
        #expect(after.warnings.contains { $0.contains(#"did not read setting "sokcet""#) }, "\(after.warnings)")

        let result = host.stop(with: SIGTERM)
        #expect(result.status == 0)
        #expect(result.standardError.components(separatedBy: #"did not read setting "sokcet""#).count - 1 == 1, "\(result.standardError)")
        #expect(result.standardError.components(separatedBy: noHook).count - 1 == 1, "\(result.standardError)")
    }
}

extension ControlSocketTests {
    @Test("a warning ends when it stops being true: a changed setting of a plugin without a reload hook, once a restart or an upgrade starts the plugin with it")
    func warningsEnd() throws {
        let service = try ServiceFixture()
        let console = OperatorConsole()
        let (host, listener) = try service.start(console.arguments + ["--watch"])
        #expect(listener.wait(forPrefix: "READY=1") != nil, "\(host.standardError)")
        let noHook = "plugin Echo (\(service.file("Echo").path)) has no reload hook"
        let echoLog = #""Echo": {"log": "\#(service.log.file.path)""#
        func changeEchoLog(to path: String) throws {
            let configuration = try String(contentsOf: service.directory.configuration, encoding: .utf8)
            let changed = configuration.replacingOccurrences(of: #""Echo": \{"log": "[^"]*""#, with: #""Echo": {"log": "\#(path)""#, options: .regularExpression)
            #expect(changed != configuration)
            try changed.write(to: service.directory.configuration, atomically: true, encoding: .utf8)
        }
        func inForce() throws -> (warned: Bool, count: Double?) {
            let status = try #require(console.status().map(HostStatusView.init))
            let metrics = try console.run("status", ["--metrics"]).standardOutput
            return (status.warnings.contains { $0.hasPrefix(noHook) }, ControlSocketTests.sample("plugin_host_warnings", in: metrics))
        }
        #expect(try String(contentsOf: service.directory.configuration, encoding: .utf8).contains(echoLog))

        try changeEchoLog(to: "/dev/null")
        #expect(try console.run("reload").status == 0)
        #expect(try inForce() == (true, 1))
        // A restart starts Echo again with the setting: the warning ends at once.
        #expect(try console.run("restart").status == 0)
        #expect(try inForce() == (false, 0))

        try changeEchoLog(to: service.log.file.path)
        #expect(try console.run("reload").status == 0)
        #expect(try inForce() == (true, 1))
        // So does an upgrade of Echo.
        try service.replace("Echo", with: "Echo")
        #expect(host.waitForError("plugin-host: upgraded: Echo"), "\(host.standardError)")
        #expect(IntegrationTests.wait { (try? inForce()).map { $0 == (false, 0) } ?? false }, "\(String(describing: try? inForce()))")
        #expect(host.stop(with: SIGTERM).status == 0)
    }
}

extension ControlSocketTests {
    @Test("refusals name what is wrong: a rollback of a plugin the host does not know, an accept with nothing on trial")
    func refusalsSayWhy() throws {
        let service = try ServiceFixture()
        let console = OperatorConsole()
        let (host, listener) = try service.start(console.arguments)
        #expect(listener.wait(forPrefix: "READY=1") != nil, "\(host.standardError)")
        let ghost = try console.run("rollback", ["Ghost"])
        #expect(ghost.status == 1)
        #expect(ghost.standardError == "plugin-host: error: cannot roll back Ghost: no plugin Ghost is left out or running; plugin-host status lists the plugins; nothing changed\n",
                "\(ghost.standardError)")
        let accept = try console.run("accept")
        #expect(accept.status == 1)
        #expect(accept.standardError == "plugin-host: error: no build is on trial; plugin-host status shows what is (--trial sets how long an upgrade's builds are on trial)\n",
                "\(accept.standardError)")
        #expect(host.stop(with: SIGTERM).status == 0)
    }
}

/// Parses a text exposition with the Prometheus Python client's parser; prints each family
/// as `NAME TYPE`.
private func parseWithPrometheus(_ text: String) throws -> CommandResult {
    let script = """
    import sys
    from prometheus_client.parser import text_string_to_metric_families
    for family in text_string_to_metric_families(sys.stdin.read()):
        print(family.name, family.type, len(family.samples))
    """
    let input = try Scratch.directory(named: "metrics").appending(path: "metrics.txt")
    try Data(text.utf8).write(to: input)
    return try Command.run("/bin/sh", ["-c", "python3 -c \"$0\" < \"$1\"", script, input.path], environment: [
        "PYTHONPATH": Repository.root.appending(path: "build/python").path,
    ])
}
