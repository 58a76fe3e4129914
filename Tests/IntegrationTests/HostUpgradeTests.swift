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

        init() throws {
            let install = try Scratch.directory(named: "install").resolvingSymlinksInPath()
            for folder in ["bin", "lib"] { try FileManager.default.createDirectory(at: install.appending(path: folder), withIntermediateDirectories: true) }
            binary = install.appending(path: "bin/plugin-host")
            try FileManager.default.copyItem(at: Repository.host, to: binary)
            try FileManager.default.copyItem(at: Repository.root.appending(path: "build/lib/libPluginABI.so"), to: install.appending(path: "lib/libPluginABI.so"))
            service = try ServiceFixture()
            (host, listener) = try service.start(console.arguments + ["--trial", "1"], executable: binary.path)
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

        let failed = try installed.console.run("upgrade-host")
        #expect(failed.status == 1)
        #expect(failed.standardError.contains("the new host was killed by SIGSEGV; this host serves on"), "\(failed.standardError)")
        #expect(installed.listener.wait(for: "MAINPID=\(pid)"))
        #expect(installed.supervisor == pid)
        #expect(installed.host.isRunning)
        let text = try installed.console.run("status").standardOutput
        #expect(text.contains("Host upgrade:") && text.contains("host upgrade failed: the new host was killed by SIGSEGV"), "\(text)")
        _ = installed.host.stop(with: SIGTERM)
    }
}
