import Foundation
import Testing

/// Plugins added, removed and changed while the host runs: with `--watch` as files come and
/// go, and on SIGHUP.
@Suite("Plugins added and removed while running")
struct HotplugTests {
    /// A plugin directory holding `initial`; every recording fixture that may come later is
    /// configured to run a service and log into one file.
    private func directory(_ initial: [String], _ settings: [String: String] = [:]) throws -> (PluginDirectoryFixture, EventLog) {
        let directory = try PluginDirectoryFixture(fixtures: initial)
        let log = EventLog(directory.root.appending(path: "events.log"))
        try directory.configure(["RecA", "RecB", "RecC", "Listener", "Extra", "Broken"].map { name in
            "\"\(name)\": {\"log\": \"\(log.file.path)\", \"serve\": true, \"drainDelay\": 1\(settings[name].map { ", " + $0 } ?? "")}"
        }.joined(separator: ", "))
        return (directory, log)
    }

    private func start(_ directory: PluginDirectoryFixture, _ extra: [String] = ["--watch"]) throws -> RunningHost {
        try RunningHost(Repository.host.path, ["--dir", directory.plugins.path, "--config", directory.configuration.path] + extra)
    }

    /// Copies a fixture into the directory as a new file appears: written elsewhere, then renamed.
    private func drop(_ fixture: String, into directory: PluginDirectoryFixture, as name: String? = nil) throws {
        let staging = directory.root.appending(path: "staging.so")
        try? FileManager.default.removeItem(at: staging)
        try FileManager.default.copyItem(at: try Fixtures.plugin(fixture), to: staging)
        try directory.trust(staging)
        let target = directory.plugins.appending(path: name ?? "lib\(fixture).so")
        #expect(rename(staging.path, target.path) == 0)
    }

    private func file(_ name: String, in directory: PluginDirectoryFixture) -> String {
        "\(directory.plugins.path)/lib\(name).so"
    }

    /// `plugin-host: plugin NAME (FILE) 1.0.0 was added: ...`, as the serving worker asks for a
    /// new generation that brings it in.
    private func added(_ name: String, in directory: PluginDirectoryFixture) -> String {
        "plugin-host: plugin \(name) (\(file(name, in: directory))) 1.0.0 was added: starting a new worker that loads the plugin files beside the running plugins"
    }

    /// Whether `first` comes before `second` in `lines`, both there.
    private func order(_ lines: [String], _ first: String, before second: String) -> Bool {
        guard let one = lines.firstIndex(of: first), let two = lines.firstIndex(of: second) else { return false }
        return one < two
    }

    @Test("--watch: a plugin dropped in comes with a new generation, which serves it; optional users see it as they bootstrap")
    func addWhileRunning() throws {
        let (directory, log) = try directory(["RecA", "Listener"], ["Listener": #""sees": "Extra""#])
        let host = try start(directory)
        #expect(log.wait(for: "Listener serving"))
        #expect(log.lines.contains("Listener does not see Extra"))

        try drop("RecB", into: directory)
        #expect(host.waitForError(added("RecB", in: directory)))
        #expect(host.waitForError("plugin-host: upgraded: RecB 1.0.0 (new)"), "\(host.standardError)")
        #expect(log.wait(for: "RecB serving"))
        try drop("Extra", into: directory)
        #expect(host.waitForError("plugin-host: upgraded: Extra 1.0.0 (new)"), "\(host.standardError)")
        #expect(log.wait(for: "Listener sees Extra"))

        let result = host.stop(with: SIGTERM)
        #expect(result.status == 0, "\(result.standardError)")
        // The last generation stops like any: what comes later first, before what it requires.
        let last = Array(log.lines.suffix(4))
        #expect(Set(last) == ["Extra shutdown", "RecB shutdown", "RecA shutdown", "Listener shutdown"], "\(last)")
        #expect(order(last, "RecB shutdown", before: "RecA shutdown") && order(last, "Listener shutdown", before: "Extra shutdown"), "\(last)")
    }

    @Test("a new plugin whose requirement is missing is reported once, and comes in with the requirement")
    func addWaitsForRequirement() throws {
        let (directory, log) = try directory(["RecA"])
        let host = try start(directory)
        #expect(log.wait(for: "RecA serving"))
        try drop("RecC", into: directory)
        let refused = "plugin-host: error: plugin RecC (\(file("RecC", in: directory))) requires RecB, which is not installed; "
            + "add the plugin RecB to the plugin directory or remove it from RecC's requires; not added"
        #expect(host.waitForError(refused))
        #expect(!host.standardError.contains("RecC (\(file("RecC", in: directory))) 1.0.0 was added"), "no new worker for a plugin that cannot run")

        try drop("RecB", into: directory)
        #expect(wait(until: { host.standardError.contains("plugin-host: upgraded: RecB 1.0.0 (new), RecC 1.0.0 (new)") }), "\(host.standardError)")
        #expect(log.wait(for: "RecC serving"))
        #expect(host.isRunning)
        #expect(host.stop(with: SIGTERM).status == 0)
        #expect(Array(log.lines.suffix(3)) == ["RecC shutdown", "RecB shutdown", "RecA shutdown"])
    }

    @Test("a removed file's plugin stops after the plugins that require it: drained, service stopped, shut down; the host runs on")
    func removeWhileRunning() throws {
        let (directory, log) = try directory(["RecA", "RecB", "RecC", "Listener", "Extra"])
        let host = try start(directory)
        #expect(log.wait(for: "RecC serving"))

        try FileManager.default.removeItem(at: directory.plugins.appending(path: "libRecB.so"))
        #expect(wait(until: { host.standardError.contains("removed plugin RecC") }))
        let plugins = directory.plugins.path
        #expect(host.standardError.contains(
            "plugin-host: plugin RecC (\(plugins)/libRecC.so) stops too: it requires RecB, which is leaving"))
        #expect(host.standardError.contains(
            "plugin-host: removed plugin RecB (\(plugins)/libRecB.so): drained and shut down; its code stays loaded until the worker ends"))
        let gone = log.lines.filter { $0.hasPrefix("RecB") || $0.hasPrefix("RecC") }.filter { !$0.hasSuffix("bootstrap") && !$0.hasSuffix("serving") }
        #expect(gone == ["RecC draining", "RecC drained", "RecB draining", "RecB drained", "RecC stopped", "RecB stopped",
                         "RecC shutdown", "RecB shutdown"] || gone == ["RecC draining", "RecC drained", "RecB draining", "RecB drained",
                         "RecB stopped", "RecC stopped", "RecC shutdown", "RecB shutdown"])

        try FileManager.default.removeItem(at: directory.plugins.appending(path: "libExtra.so"))
        #expect(log.wait(for: "Listener removed Extra"))
        #expect(log.wait(for: "Extra shutdown"))
        #expect(host.isRunning)
        let result = host.stop(with: SIGTERM)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(Array(log.lines.suffix(2)) == ["RecA shutdown", "Listener shutdown"])
    }

    @Test("bad new files are reported once each and never disturb the running host",
          arguments: ["garbage", "group-writable", "same name", "cycle"])
    func badNewFile(kind: String) throws {
        let (directory, log) = try directory(["RecA", "RecB"], ["Broken": #""bootstrapFails": true"#])
        let console = OperatorConsole()
        let host = try start(directory, ["--watch"] + console.arguments)
        #expect(log.wait(for: "RecB serving"))
        let expected: String
        switch kind {
        case "garbage":
            try directory.write("not an ELF file", to: "libBroken.so")
            expected = "\(file("Broken", in: directory)): not a loadable ELF shared object"
        case "group-writable":
            try drop("RecC", into: directory)
            chmod(file("RecC", in: directory), 0o775)
            expected = "\(file("RecC", in: directory))"
        case "same name":
            try drop("RecA", into: directory, as: "libRecA-copy.so")
            expected = "\(file("RecA-copy", in: directory)) declares plugin RecA, which is running from \(file("RecA", in: directory))"
        default:
            // CycleA requires CycleB, which requires CycleC, which requires CycleA.
            for name in ["CycleA", "CycleB", "CycleC"] { try drop(name, into: directory) }
            expected = "cycle"
        }
        #expect(wait(until: { host.standardError.contains(expected) && host.standardError.contains("not added") }), "\(host.standardError)")
        if kind == "garbage" {
            // A file no plugin's name could be read from: the table has no name for it, and its
            // line names the file once.
            let broken = file("Broken", in: directory)
            #expect(console.waitForStatus { $0.plugins.contains { $0["file"] as? String == broken } } != nil)
            let text = try console.run("status").standardOutput
            let row = text.split(separator: "\n").first { $0.hasSuffix(broken) }.map(String.init) ?? ""
            #expect(row.hasPrefix("  -  ") && row.contains("not added"), "\(text)")
            #expect(text.contains("\n  \(broken): not a loadable ELF shared object: not an ELF file;"), "\(text)")
            #expect(text.components(separatedBy: broken).count - 1 == 2, "in the table's row and once in its line: \(text)")
        }
        // Another change, and the rescan it causes, which says nothing more of the bad files;
        // nor does the new generation that brings Listener in. Two files of one plugin leave
        // the new generation without RecA: it gives up, and the serving one serves on.
        try drop("Listener", into: directory)
        if kind == "same name" {
            #expect(host.waitForError("the upgrade failed; the running plugins keep serving as they were"), "\(host.standardError)")
        } else {
            #expect(host.waitForError("plugin-host: upgraded: Listener 1.0.0 (new)"), "\(host.standardError)")
        }
        let lines = host.standardError.split(separator: "\n").filter { $0.contains("not added") && !$0.contains("did not run") }
        #expect(Set(lines).count == lines.count, "reported more than once: \(lines)")
        let result = host.stop(with: SIGTERM)
        let last = Array(log.lines.suffix(kind == "same name" ? 2 : 3))
        #expect(Set(last) == Set(["RecB shutdown", "RecA shutdown"] + (kind == "same name" ? [] : ["Listener shutdown"])), "\(last)")
        #expect(order(last, "RecB shutdown", before: "RecA shutdown"), "\(last)")
        #expect(result.status == 0, "a file not added leaves the host as it was: \(result.standardError)")
    }

    @Test("a bad file already there when a host that watches starts is reported once and not added; the rest runs; STATUS says so",
          arguments: ["garbage", "missing requirement"])
    func badFileAtStart(kind: String) throws {
        let (directory, log) = try directory(["RecA"])
        let expected: String
        if kind == "garbage" {
            try directory.write("not an ELF file", to: "libBroken.so")
            expected = "\(file("Broken", in: directory)): not a loadable ELF shared object: not an ELF file; only plugins belong in a "
                + "plugin directory: remove the file, or replace it with the plugin built as a 64-bit shared object for this machine; not added"
        } else {
            try drop("RecC", into: directory)
            expected = "plugin RecC (\(file("RecC", in: directory))) requires RecB, which is not installed"
        }
        // Without --watch the directory is refused, as before.
        let plain = try directory.runHost()
        #expect(plain.status == 1)

        let listener = try NotifyListener()
        let host = try RunningHost(
            Repository.host.path, ["--dir", directory.plugins.path, "--config", directory.configuration.path, "--watch"],
            environment: ["NOTIFY_SOCKET": listener.address])
        let ready = listener.wait(forPrefix: "READY=1")
        #expect(ready?.hasPrefix("READY=1\nSTATUS=1 plugin running; not added: lib\(kind == "garbage" ? "Broken" : "RecC").so") == true, "\(ready ?? "")")
        #expect(log.wait(for: "RecA serving"))
        #expect(host.standardError.contains(expected), "\(host.standardError)")
        // Another change: a rescan, which says nothing more of the file.
        try directory.write("not a plugin", to: "notes.txt")
        try drop("Extra", into: directory)
        #expect(host.waitForError("plugin-host: upgraded: Extra 1.0.0 (new)"), "\(host.standardError)")
        #expect(host.standardError.components(separatedBy: kind == "garbage" ? "libBroken.so: not a loadable" : "requires RecB").count == 2,
                "said once, by neither the rescan nor the new generation again: \(host.standardError)")
        let result = host.stop(with: SIGTERM)
        #expect(result.status == 0, "a bad file not added leaves the exit status alone: \(result.standardError)")
    }

    @Test("without --watch, SIGHUP rescans: a dropped-in plugin is added after the reload")
    func sighupRescans() throws {
        let (directory, log) = try directory(["RecA"])
        let host = try start(directory, [])
        #expect(log.wait(for: "RecA serving"))
        try drop("RecB", into: directory)
        host.send(SIGHUP)
        #expect(log.wait(for: "RecB serving"))
        // The reload comes first, then the rescan that adds RecB: nothing scanned before.
        let lines = log.lines
        let reload = try #require(lines.firstIndex(of: "RecA reload marker=-"))
        let added = try #require(lines.firstIndex(of: "RecB bootstrap"))
        #expect(reload < added, "RecB was added before the SIGHUP: \(lines)")
        #expect(host.stop(with: SIGTERM).status == 0)
    }

    @Test("--watch keeps a host without services running, for plugins to come")
    func watchWithoutServices() throws {
        let directory = try PluginDirectoryFixture(fixtures: ["RecA"])
        let log = EventLog(directory.root.appending(path: "events.log"))
        try directory.configure(#""RecB": {"log": "\#(log.file.path)", "serve": true}"#)
        let listener = try NotifyListener()
        let host = try RunningHost(
            Repository.host.path, ["--dir", directory.plugins.path, "--config", directory.configuration.path, "--watch"],
            environment: ["NOTIFY_SOCKET": listener.address])
        #expect(listener.wait(forPrefix: "READY=1") == "READY=1\nSTATUS=1 plugin running")
        // Still there, and watching: a plugin dropped in now joins.
        try drop("RecB", into: directory)
        #expect(log.wait(for: "RecB serving"))
        #expect(host.stop(with: SIGTERM).status == 0)
    }
}
