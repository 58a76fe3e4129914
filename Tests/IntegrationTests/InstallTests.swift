import Foundation
import Testing

@Suite("make install")
struct InstallTests {
    @Test("installs a tree that runs the demo, honours DESTDIR, and keeps working after it is moved")
    func relocatableInstall() throws {
        let stage = try Scratch.directory(named: "install")
        try Repository.make(["install", "DESTDIR=\(stage.path)", "PREFIX=/opt/ph"])
        let prefix = stage.appending(path: "opt/ph")
        for file in ["bin/plugin-host", "lib/libPluginABI.so", "lib/swift/PluginABI.swiftinterface",
                     "lib/plugin-host/plugins/libPersistence.so", "lib/plugin-host/plugins/libDomain.so", "lib/plugin-host/plugins/libApplication.so"] {
            #expect(FileManager.default.fileExists(atPath: prefix.appending(path: file).path), "\(file)")
        }

        let moved = stage.appending(path: "elsewhere")
        try FileManager.default.moveItem(at: prefix, to: moved)
        let data = stage.appending(path: "data")
        let config = stage.appending(path: "config.json")
        try Data(#"{"plugins": {"Persistence": {"dataDirectory": "\#(data.path)"}}}"#.utf8).write(to: config)

        let explicit = try Command.run(
            moved.appending(path: "bin/plugin-host").path,
            ["--dir", moved.appending(path: "lib/plugin-host/plugins").path, "--config", config.path, "--json"])
        #expect(explicit.status == 0, "\(explicit.standardError)")
        let report = try JSONSerialization.jsonObject(with: Data(explicit.standardOutput.utf8)) as? [String: Any] ?? [:]
        #expect(report.plugins.map { $0["name"] as? String } == ["Persistence", "Domain", "Application"])

        // Without --dir the host uses the plugin directory of its own install tree.
        let implicit = try Command.run(moved.appending(path: "bin/plugin-host").path, ["--config", config.path])
        #expect(implicit.status == 0, "\(implicit.standardError)")
        #expect(implicit.standardOutput.contains("peeled banana #2"))
    }

    @Test("the example systemd unit is installed, and its ExecStart runs as systemd runs it: READY=1, reload, stop")
    func systemdUnit() throws {
        let prefix = try Scratch.directory(named: "unit")
        try Repository.make(["install", "PREFIX=\(prefix.path)"])
        let unit = try String(contentsOf: prefix.appending(path: "lib/systemd/system/plugin-host.service"), encoding: .utf8)
        let lines = unit.split(separator: "\n").map(String.init)
        for setting in ["Type=notify", "WatchdogSec=30", "KillMode=mixed", "RuntimeDirectory=plugin-host", "RuntimeDirectoryMode=0700"] {
            #expect(lines.contains(setting), "\(setting)")
        }
        // systemd's own check of both units (.ci/run installs systemd where it is missing).
        let units = ["plugin-host.service", "plugin-host.socket"].map { prefix.appending(path: "lib/systemd/system/\($0)").path }
        let verify = try Command.run("/usr/bin/systemd-analyze", ["verify"] + units)
        #expect(verify.status == 0 && verify.standardError.isEmpty, "\(verify.standardError)")
        let socketUnit = try String(contentsOfFile: units[1], encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(socketUnit.contains("FileDescriptorName=http") && socketUnit.contains("Service=plugin-host.service"))
        let execStart = try #require(lines.first { $0.hasPrefix("ExecStart=") }).dropFirst("ExecStart=".count)
        let command = execStart.split(separator: " ").map(String.init)
        #expect(command.first == prefix.appending(path: "bin/plugin-host").path)

        let execReload = try #require(lines.first { $0.hasPrefix("ExecReload=") }).dropFirst("ExecReload=".count)
        let reloadCommand = execReload.split(separator: " ").map(String.init)
        #expect(Array(reloadCommand.prefix(2)) == [command[0], "reload"])

        // As systemd starts it: its environment, the watchdog from WatchdogSec=, the data
        // directory from Environment=, the runtime directory from RuntimeDirectory= (here
        // scratch ones instead of /var/lib and /run).
        // A socket's path must be short: the runtime directory is not under the scratch one.
        let runtime = URL(fileURLWithPath: "/tmp/plugin-host-run-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: runtime) }
        let listener = try NotifyListener()
        let host = try RunningHost(command[0], Array(command.dropFirst()), environment: [
            "NOTIFY_SOCKET": listener.address, "WATCHDOG_USEC": "30000000", "XDG_DATA_HOME": prefix.appending(path: "var").path,
            "RUNTIME_DIRECTORY": runtime.path,
        ])
        #expect(listener.nextSkippingPings() == "READY=1\nSTATUS=3 plugins running")
        // `systemctl reload`: ExecReload= asks through the control socket and waits for the result.
        let reload = try Command.run(reloadCommand[0], Array(reloadCommand.dropFirst()), environment: ["RUNTIME_DIRECTORY": runtime.path])
        #expect(reload.status == 0 && reload.standardOutput == "reload applied\n", "\(reload.standardError)")
        #expect(listener.nextSkippingPings()?.hasPrefix("RELOADING=1\nMONOTONIC_USEC=") == true)
        #expect(listener.nextSkippingPings() == "READY=1\nSTATUS=3 plugins running")
        #expect(try FileManager.default.contentsOfDirectory(atPath: runtime.path).count == 1, "the control socket is in RuntimeDirectory=")
        let result = host.stop(with: SIGTERM)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(FileManager.default.fileExists(atPath: prefix.appending(path: "var/plugin-host/bananas.json").path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: runtime.path).isEmpty, "the control socket is removed")
    }
}

@Suite("make's output")
struct MakeOutputTests {
    @Test("make prints one line per thing built; V=1 prints the full commands")
    func oneLinePerThing() throws {
        for verbose in [false, true] {
            let out = try Scratch.directory(named: "make-output")
            let result = try Command.run("/usr/bin/env", [
                "make", "--no-print-directory", "-C", Repository.root.path, "plugin", "PLUGIN_SOURCES=Tests/Fixtures/Marker",
                "PLUGIN_OUT=\(out.path)",
            ] + (verbose ? ["V=1"] : []))
            #expect(result.status == 0, "\(result.standardError)")
            let lines = result.standardOutput.split(separator: "\n").map(String.init)
            if verbose {
                #expect(lines.contains { $0.hasPrefix("swiftc ") && $0.contains("-module-name Marker") }, "\(lines)")
                #expect(lines.contains { $0.hasPrefix("objcopy --add-section") }, "\(lines)")
            } else {
                #expect(lines == ["  PLUGIN   \(out.path)/libMarker.so"], "\(lines)")
            }
        }
    }
}
