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

    @Test("--watch: a plugin whose requirements run joins the running chain, its service starts, optional users hear of it")
    func addWhileRunning() throws {
        let (directory, log) = try directory(["RecA", "Listener"])
        let host = try start(directory)
        #expect(log.wait(for: "Listener serving"))

        try drop("RecB", into: directory)
        #expect(wait(until: { host.standardError.contains("plugin-host: added plugin RecB (\(file("RecB", in: directory)))") }))
        #expect(log.wait(for: "RecB serving"))
        try drop("Extra", into: directory)
        #expect(log.wait(for: "Listener added Extra (visible)"))

        let result = host.stop(with: SIGTERM)
        #expect(result.status == 0, "\(result.standardError)")
        // The added plugins stop like the others: after what came later, before what they require.
        #expect(Array(log.lines.suffix(4)) == ["Extra shutdown", "RecB shutdown", "RecA shutdown", "Listener shutdown"])
    }

    @Test("a new plugin whose requirement is missing is reported once, and joins when the requirement arrives")
    func addWaitsForRequirement() throws {
        let (directory, log) = try directory(["RecA"])
        let host = try start(directory)
        #expect(log.wait(for: "RecA serving"))
        try drop("RecC", into: directory)
        let refused = "plugin-host: error: plugin RecC (\(file("RecC", in: directory))) requires RecB, which is not running; not added"
        #expect(wait(until: { host.standardError.contains(refused) }))
        try directory.write("not a plugin", to: "notes.txt")  // another change: a rescan
        usleep(500_000)
        #expect(host.standardError.components(separatedBy: refused).count == 2)

        try drop("RecB", into: directory)
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
          arguments: ["garbage", "group-writable", "failing bootstrap", "same name", "cycle"])
    func badNewFile(kind: String) throws {
        let (directory, log) = try directory(["RecA", "RecB"], ["Broken": #""bootstrapFails": true"#])
        let host = try start(directory)
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
        case "failing bootstrap":
            try directory.add(fixture: "RecA", as: "Broken", requires: ["RecB"])
            expected = "plugin Broken (\(file("Broken", in: directory)))"
        case "same name":
            try drop("RecA", into: directory, as: "libRecA-copy.so")
            expected = "\(file("RecA-copy", in: directory)) declares plugin RecA, which is running from \(file("RecA", in: directory))"
        default:
            // CycleA requires CycleB, which requires CycleC, which requires CycleA.
            for name in ["CycleA", "CycleB", "CycleC"] { try drop(name, into: directory) }
            expected = "cycle"
        }
        #expect(wait(until: { host.standardError.contains(expected) && host.standardError.contains("not added") }), "\(host.standardError)")
        try directory.write("not a plugin", to: "notes.txt")
        usleep(500_000)
        #expect(host.isRunning)
        let lines = host.standardError.split(separator: "\n").filter { $0.contains("not added") }
        #expect(Set(lines).count == lines.count, "reported more than once: \(lines)")
        let result = host.stop(with: SIGTERM)
        #expect(Array(log.lines.suffix(2)) == ["RecB shutdown", "RecA shutdown"])
        #expect(result.status == 0, "a file not added leaves the host as it was: \(result.standardError)")
    }

    @Test("without --watch, SIGHUP rescans: a dropped-in plugin is added after the reload")
    func sighupRescans() throws {
        let (directory, log) = try directory(["RecA"])
        let host = try start(directory, [])
        #expect(log.wait(for: "RecA serving"))
        try drop("RecB", into: directory)
        usleep(500_000)
        #expect(!log.lines.contains("RecB bootstrap"), "no rescan without --watch or SIGHUP")
        host.send(SIGHUP)
        #expect(log.wait(for: "RecB serving"))
        #expect(host.stop(with: SIGTERM).status == 0)
    }

    @Test("--watch keeps a host without services running, for plugins to come")
    func watchWithoutServices() throws {
        let directory = try PluginDirectoryFixture(fixtures: ["RecA"])
        let host = try start(directory)
        usleep(500_000)
        #expect(host.isRunning)
        #expect(host.stop(with: SIGTERM).status == 0)
    }
}
