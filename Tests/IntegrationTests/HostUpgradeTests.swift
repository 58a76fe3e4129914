import Foundation
import Testing

/// docs/operations.md, "Upgrading the host": `plugin-host upgrade-host` starts the plugin-host
/// now installed at the host's path as a new host, which takes the sockets and the serving
/// generation's hand-off; the old host serves again by itself when the new one fails.
@Suite("The host upgrades its own binary, on trial, with the way back automatic", .serialized)
struct HostUpgradeTests {
    /// An install tree of its own, with the host started from it and answering at `console`.
    private struct Installed {
        let binary: URL
        let service: ServiceFixture
        let host: RunningHost
        let listener: NotifyListener
        let console = OperatorConsole()

        /// - Parameters:
        ///   - crashIn: Where Ticker crashes, once, when the service's trigger file exists.
        ///   - trial: `--trial`, in seconds.
        init(crashIn: String = "run", trial: Int = 1) throws {
            let install = try Scratch.directory(named: "install").resolvingSymlinksInPath()
            for folder in ["bin", "lib"] { try FileManager.default.createDirectory(at: install.appending(path: folder), withIntermediateDirectories: true) }
            binary = install.appending(path: "bin/plugin-host")
            try FileManager.default.copyItem(at: Repository.host, to: binary)
            try FileManager.default.copyItem(at: Repository.root.appending(path: "build/lib/libPluginABI.so"), to: install.appending(path: "lib/libPluginABI.so"))
            service = try ServiceFixture(crashIn: crashIn, tickerSettings: #""triggerOnce": true"#)
            (host, listener) = try service.start(console.arguments + ["--trial", String(trial)], executable: binary.path)
        }

        /// Renames `contents` over the binary, as a package upgrade does.
        func install(_ contents: Data) throws {
            let replacement = binary.deletingLastPathComponent().appending(path: ".plugin-host.new")
            try contents.write(to: replacement)
            #expect(chmod(replacement.path, 0o755) == 0)
            #expect(rename(replacement.path, binary.path) == 0)
        }

        /// The supervisor's pid, as status says it.
        var supervisor: Int? { console.status()?["pid"] as? Int }

        /// Another build of plugin-host installed: the same program with bytes after its end.
        func installAnotherBuild() throws {
            try install(try Data(contentsOf: Repository.host) + Data("another build".utf8))
        }

        /// The notifications up to the first that is `last`, which must come: those before it.
        func notifications(upTo last: String) -> [String]? {
            var seen: [String] = []
            while let message = listener.next(within: .seconds(20)) {
                if message == last { return seen }
                seen.append(message)
            }
            return nil
        }
    }

    @Test("another build installed: the new host serves with the hand-off, systemd is told its pid, and the old host ends once the trial passed")
    func newHostTakesOver() throws {
        let installed = try Installed()
        #expect(installed.listener.wait(forPrefix: "READY=1") != nil, "\(installed.host.standardError)")
        // Another build of plugin-host: the same program with bytes after its end.
        try installed.install(try Data(contentsOf: Repository.host) + Data("another build".utf8))

        let upgrade = try installed.console.run("upgrade-host")
        #expect(upgrade.status == 0, "\(upgrade.standardError)\(installed.host.standardError)")
        let newHost = try #require(upgrade.standardOutput.firstMatch(of: /the new host \(pid (\d+)\) serves/).map { Int($0.1) ?? 0 },
                                   "\(upgrade.standardOutput)")
        #expect(installed.listener.wait(for: "MAINPID=\(newHost)"), "\(installed.host.standardError)")
        // The old host ends by itself, 0, once the new host's trial passed.
        let old = installed.host.wait()
        #expect(old.status == 0, "\(old.standardError)")
        #expect(old.standardError.contains("the new host (pid \(newHost)) passed its trial; this host ends"), "\(old.standardError)")
        #expect(installed.supervisor == newHost)
        let text = try installed.console.run("status").standardOutput
        #expect(text.contains("Host upgrade:") && text.contains("took over from the host before (pid \(installed.host.processIdentifier)); the trial passed"), "\(text)")
        let metrics = try installed.console.run("status", ["--metrics"]).standardOutput
        #expect(metrics.contains("plugin_host_host_upgrade_last_success 1\n"), "\(metrics)")
        #expect(kill(pid_t(newHost), SIGTERM) == 0)
    }

    @Test("a file that is no plugin-host is refused before anything stops; a new host that crashes at start leaves the old one serving")
    func failedNewHostsLeaveTheOldServing() throws {
        let installed = try Installed()
        #expect(installed.listener.wait(forPrefix: "READY=1") != nil, "\(installed.host.standardError)")
        let pid = Int(installed.host.processIdentifier)

        try installed.install(try Data(contentsOf: Repository.root.appending(path: "build/lib/libPluginABI.so")))
        let refused = try installed.console.run("upgrade-host")
        #expect(refused.status == 1)
        #expect(refused.standardError.contains("says it is no plugin-host"), "\(refused.standardError)")

        // A program that says it is a plugin-host of this protocol, and crashes at once.
        let scratch = try Scratch.directory(named: "crasher")
        let source = scratch.appending(path: "crash.c")
        try "int main(void) { volatile int *p = 0; return *p; }\n".write(to: source, atomically: true, encoding: .utf8)
        let identity = scratch.appending(path: "identity")
        let says = try #require(try Command.run("/usr/bin/readelf", ["-p", ".plugin_host_identity", Repository.host.path]).standardOutput
            .firstMatch(of: /\{.*\}/).map { String($0.0) })
        try says.write(to: identity, atomically: true, encoding: .utf8)
        let crasher = scratch.appending(path: "crasher")
        #expect(try Command.run("/usr/bin/gcc", ["-o", crasher.path, source.path]).status == 0)
        #expect(try Command.run("/usr/bin/objcopy", ["--add-section", ".plugin_host_identity=\(identity.path)", crasher.path]).status == 0)
        try installed.install(try Data(contentsOf: crasher))
        let clients = ClientLoop(socket: installed.service.socket, every: .milliseconds(5))
        #expect(clients.wait(forAnswers: 3))

        let failed = try installed.console.run("upgrade-host")
        #expect(failed.status == 1)
        #expect(failed.standardError.contains("the new host was killed by SIGSEGV; this host serves on"), "\(failed.standardError)")
        // The only MAINPID= is the old host's.
        let before = try #require(installed.notifications(upTo: "MAINPID=\(pid)"), "\(installed.host.standardError)")
        #expect(!before.contains { $0.hasPrefix("MAINPID=") }, "\(before)")
        #expect(installed.supervisor == pid)
        #expect(clients.wait(forAnswers: 3))
        let tally = clients.finish()
        #expect(tally.refused == 0, "\(tally)")
        #expect(installed.host.isRunning)
        let text = try installed.console.run("status").standardOutput
        #expect(text.contains("Host upgrade:") && text.contains("host upgrade failed: the new host was killed by SIGSEGV"), "\(text)")
        _ = installed.host.stop(with: SIGTERM)
    }

    @Test("a new host whose generation fails to bootstrap leaves the old host serving: no connection refused, and systemd never told another pid")
    func newHostsGenerationFailsToBootstrap() throws {
        let installed = try Installed(crashIn: "bootstrap")
        #expect(installed.listener.wait(forPrefix: "READY=1") != nil, "\(installed.host.standardError)")
        let pid = Int(installed.host.processIdentifier)
        try installed.installAnotherBuild()
        let clients = ClientLoop(socket: installed.service.socket, every: .milliseconds(5))
        #expect(clients.wait(forAnswers: 3))
        // Ticker crashes in the next bootstrap: the new host's.
        try Data().write(to: installed.service.trigger)

        let failed = try installed.console.run("upgrade-host")
        #expect(failed.status == 1, "\(failed.standardOutput)\(failed.standardError)")
        #expect(failed.standardError.contains("host upgrade failed: the new host exited with status"), "\(failed.standardError)")
        // The only MAINPID= is the old host's, which serves on.
        let before = try #require(installed.notifications(upTo: "MAINPID=\(pid)"), "\(installed.host.standardError)")
        #expect(!before.contains { $0.hasPrefix("MAINPID=") }, "\(before)")
        #expect(installed.host.standardError.contains("giving up taking over: this host's first generation crashed"), "\(installed.host.standardError)")
        #expect(installed.supervisor == pid)
        #expect(clients.wait(forAnswers: 3))
        let tally = clients.finish()
        #expect(tally.refused == 0, "\(tally)")
        _ = installed.host.stop(with: SIGTERM)
    }

    @Test("a new host whose generation fails its trial gives the service back: systemd told the new pid, then the old one; the old host serves again, no connection refused")
    func newHostFailsItsTrial() throws {
        let installed = try Installed(crashIn: "run", trial: 30)
        #expect(installed.listener.wait(forPrefix: "READY=1") != nil, "\(installed.host.standardError)")
        let pid = Int(installed.host.processIdentifier)
        try installed.installAnotherBuild()
        let clients = ClientLoop(socket: installed.service.socket, every: .milliseconds(5))
        #expect(clients.wait(forAnswers: 3))

        let upgrade = try installed.console.run("upgrade-host")
        #expect(upgrade.status == 0, "\(upgrade.standardError)\(installed.host.standardError)")
        let newHost = try #require(upgrade.standardOutput.firstMatch(of: /the new host \(pid (\d+)\) serves/).map { Int($0.1) ?? 0 })
        #expect(installed.listener.wait(for: "MAINPID=\(newHost)"), "\(installed.host.standardError)")
        // Ticker crashes in the new host's service, on trial.
        try Data().write(to: installed.service.trigger)
        #expect(installed.listener.wait(for: "MAINPID=\(pid)"), "\(installed.host.standardError)")
        #expect(installed.host.waitForError("host upgrade failed: the new host exited with status"), "\(installed.host.standardError)")
        #expect(installed.host.standardError.contains("giving up taking over: this host's first generation crashed"), "\(installed.host.standardError)")
        #expect(installed.host.isRunning)
        #expect(installed.supervisor == pid)
        #expect(clients.wait(forAnswers: 3))
        let tally = clients.finish()
        #expect(tally.refused == 0, "\(tally)")
        let text = try installed.console.run("status").standardOutput
        #expect(text.contains("Host upgrade:") && text.contains("host upgrade failed"), "\(text)")
        let metrics = try installed.console.run("status", ["--metrics"]).standardOutput
        #expect(metrics.contains("plugin_host_host_upgrade_last_success 0\n"), "\(metrics)")
        let last = (installed.console.status()?["host"] as? [String: Any])?["lastUpgrade"] as? [String: Any]
        #expect(last?["ok"] as? Bool == false, "\(String(describing: last))")
        _ = installed.host.stop(with: SIGTERM)
    }

    @Test("SIGUSR2 to the supervisor asks for the upgrade, as a unit file's ExecReload= or systemctl kill -s USR2 does")
    func signalAsksForTheUpgrade() throws {
        let installed = try Installed()
        #expect(installed.listener.wait(forPrefix: "READY=1") != nil, "\(installed.host.standardError)")
        try installed.installAnotherBuild()
        #expect(kill(installed.host.processIdentifier, SIGUSR2) == 0)
        let main = try #require(installed.listener.wait(forPrefix: "MAINPID="), "\(installed.host.standardError)")
        let newHost = try #require(Int(main.dropFirst("MAINPID=".count)))
        #expect(newHost != Int(installed.host.processIdentifier))
        let old = installed.host.wait()
        #expect(old.status == 0, "\(old.standardError)")
        #expect(installed.supervisor == newHost)
        #expect(kill(pid_t(newHost), SIGTERM) == 0)
    }
}

