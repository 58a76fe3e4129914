import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `requiredVersions`, through the real binary: a required plugin outside the versions a plugin
/// works with is refused before any plugin is loaded, at start, in `check`, and when a
/// running host sees a new build.
@Suite("Version ranges: a required plugin outside the versions a plugin works with is refused before any code runs")
struct VersionRangeIntegrationTests {
    /// The demo's Domain, its manifest saying `version`.
    private func domain(_ version: String, in directory: URL) throws -> URL {
        try relabelled("Domain", #"{"name": "Domain", "version": "\#(version)", "abi": 2, "requires": ["Persistence"]}"#, in: directory)
    }

    private func relabelled(_ plugin: String, _ manifest: String, in directory: URL) throws -> URL {
        let manifestFile = directory.appending(path: "manifest-\(UUID().uuidString).json")
        try Data(manifest.utf8).write(to: manifestFile)
        let copy = directory.appending(path: "build-\(UUID().uuidString).so")
        let result = try Command.run("/usr/bin/env", [
            "objcopy", "--update-section", ".plugin_host_manifest=\(manifestFile.path)", Repository.demoPlugin(plugin).path, copy.path,
        ])
        guard result.status == 0 else { throw CommandFailure(command: "objcopy", result: result) }
        chmod(copy.path, 0o755)
        return copy
    }

    @Test("a range that holds runs; one that does not is refused at start and by check, naming both versions and the range")
    func atStart() throws {
        let service = try ServiceFixture()
        let holds = try Command.run(Repository.host.path, ["check", "--dir", service.directory.plugins.path])
        #expect(holds.status == 0, "the demo's ranges (^1.0.0) hold: \(holds.standardError)")

        try service.replace("Domain", withFile: try domain("2.0.0", in: service.directory.root))
        let message = "plugin Application (\(service.file("Application").path)) requires Domain ^1.0.0, but Domain 2.0.0 is installed "
            + "(\(service.file("Domain").path)); install a build of Domain within ^1.0.0, or rebuild Application against Domain 2.0.0"
        let check = try Command.run(Repository.host.path, ["check", "--dir", service.directory.plugins.path])
        #expect(check.status == 1)
        #expect(check.standardError.contains(message), "\(check.standardError)")
        let list = try Command.run(Repository.host.path, ["list", "--dir", service.directory.plugins.path])
        let row = list.standardOutput.split(separator: "\n").first { $0.contains("libApplication.so") } ?? ""
        #expect(row.contains("Domain ^1.0.0  NOT LOADABLE"), "list shows the range: \(list.standardOutput)")
        let graph = try Command.run(Repository.host.path, ["graph", "--dir", service.directory.plugins.path])
        #expect(graph.standardOutput.contains(#""Application" -> "Domain" [color=red, label="^1.0.0", fontcolor=red];"#), "\(graph.standardOutput)")

        let run = try Command.run(Repository.host.path, ["--dir", service.directory.plugins.path, "--config", service.directory.configuration.path, "--json"])
        #expect(run.status == 1)
        #expect(run.standardError.contains("plugin-host: error: " + message))
        let report = try #require(try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any])
        let errors = report["errors"] as? [[String: Any]] ?? []
        #expect(errors.contains { $0["code"] as? String == "version-mismatch" && $0["plugin"] as? String == "Application" })
    }

    @Test("an upgrade of a required plugin to a new major version is refused, naming the dependent, while the old build serves")
    func upgradeRefused() throws {
        let service = try ServiceFixture()
        let console = OperatorConsole()
        let (host, listener) = try service.start(console.arguments + ["--watch"])
        #expect(listener.wait(forPrefix: "READY=1") != nil)
        let worker = service.echo().worker

        try service.replace("Domain", withFile: try domain("2.0.0", in: service.directory.root))
        #expect(host.waitForError(
            "requires Domain ^1.0.0, but Domain 2.0.0 is installed (\(service.file("Domain").path)); install a build of Domain within "
                + "^1.0.0, or rebuild Application against Domain 2.0.0; not upgrading Domain 1.0.0 -> 2.0.0: the running plugins keep serving"),
            "\(host.standardError)")
        let status = try #require(console.status().map(HostStatusView.init))
        #expect(status.generations.map { $0["number"] as? Int } == [1], "no new generation")
        #expect(status.plugin("Domain")?["version"] as? String == "1.0.0")
        #expect(status.plugin("Domain")?["fileChanged"] as? Bool == true)
        #expect(status.plugin("Domain")?["state"] as? String == "serving")
        #expect((status.plugin("Domain")?["reason"] as? String)?.hasPrefix("its file's build 2.0.0 is not taken up: plugin Application") == true,
                "the status says why the file's build does not run: \(status.plugins)")
        let lastUpgrade = status.json["lastUpgrade"] as? [String: Any]
        #expect(lastUpgrade?["result"] as? String == "refused", "\(lastUpgrade ?? [:])")
        #expect((lastUpgrade?["detail"] as? String)?.hasPrefix("Domain 1.0.0 -> 2.0.0: plugin Application") == true, "\(lastUpgrade ?? [:])")
        #expect(service.echo().worker == worker)

        // An operator's restart would load the files on disk too: refused for the same reason, before anything is disturbed.
        let restart = try console.run("restart")
        #expect(restart.status == 1, "\(restart.standardOutput)\(restart.standardError)")
        #expect((restart.standardOutput + restart.standardError).contains("requires Domain ^1.0.0, but Domain 2.0.0 is installed"),
                "\(restart.standardOutput)\(restart.standardError)")
        #expect(restart.standardError.contains("; not restarting: the running plugins keep serving"), "\(restart.standardError)")
        let after = try #require(console.status().map(HostStatusView.init))
        #expect(after.generations.map { $0["number"] as? Int } == [1], "no new generation")
        #expect(after.plugin("Application")?["condition"] as? String != "left out", "\(after.plugins)")
        #expect(service.echo().worker == worker)

        // Both at once: an Application that works with Domain 2 lets the upgrade go ahead.
        try service.replace("Application", withFile: try relabelled(
            "Application", #"{"name": "Application", "version": "2.0.0", "abi": 2, "requires": ["Domain"], "requiredVersions": {"Domain": "^2.0.0"}}"#,
            in: service.directory.root))
        #expect(host.waitForError("plugin-host: upgraded: "), "\(host.standardError)")
        let upgraded = try #require(console.waitForStatus { $0.state == "serving" && $0.plugin("Domain")?["version"] as? String == "2.0.0" })
        #expect(upgraded.plugin("Application")?["version"] as? String == "2.0.0")
        #expect(host.stop(with: SIGTERM).status == 0)
    }
}
