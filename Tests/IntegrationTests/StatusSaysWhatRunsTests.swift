import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What the status says is what runs, through the real binary: the build id of the build
/// that serves (on trial, or added while running), warnings that no longer hold, a plugin
/// directory that does not exist, and the environment a plugin added later sees.
@Suite("The status says what runs: build ids, warnings in force, the directory, the environment of added plugins")
struct StatusSaysWhatRunsTests {
    @Test("while a build is on trial, the status gives the build id of the build that serves, not of the build held from before")
    func buildIDOnTrial() throws {
        let service = try ServiceFixture(ticker: false)
        let console = OperatorConsole()
        let (host, listener) = try service.start(console.arguments + ["--watch", "--trial", "120"])
        #expect(listener.wait(forPrefix: "READY=1") != nil)
        let next = try service.build(of: "Misbehaver", manifest: #"{"name": "Echo", "version": "9.0.0", "abi": 2}"#)
        let nextID = try buildID(of: next)
        #expect(nextID != (try buildID(of: Fixtures.plugin("Echo"))), "the two builds have ids of their own")
        try service.replace("Echo", withFile: next)

        let status = try #require(console.waitForStatus { ($0.plugin("Echo")?["trial"] as? [String: Any])?["version"] as? String == "9.0.0" })
        let echo = try #require(status.plugin("Echo"))
        #expect(echo["version"] as? String == "9.0.0")
        #expect((echo["build"] as? [String: Any])?["buildID"] as? String == nextID, "\(echo)")
        let text = try console.run("status").standardOutput
        #expect(text.contains("build id \(nextID.prefix(12))"), "\(text)")
        #expect(host.stop(with: SIGTERM).status == 0)
    }

    @Test("a plugin dropped into a running host has its build id in the status")
    func buildIDOfAddedPlugin() throws {
        let service = try ServiceFixture(ticker: false)
        let console = OperatorConsole()
        let (host, listener) = try service.start(console.arguments + ["--watch"])
        #expect(listener.wait(forPrefix: "READY=1") != nil)
        try service.replace("Extra", with: "Extra")
        #expect(host.waitForError("plugin-host: upgraded: Extra 1.0.0 (new)"), "\(host.standardError)")

        let status = try #require(console.waitForStatus { $0.state(of: "Extra") == "serving" })
        let build = status.plugin("Extra")?["build"] as? [String: Any]
        #expect(build?["buildID"] as? String == (try buildID(of: Fixtures.plugin("Extra"))), "\(status.plugins)")
        #expect(host.stop(with: SIGTERM).status == 0)
    }

    @Test("a settings warning fixed in the configuration and reloaded is no longer in force; one that still holds stays")
    func warningFixedAndReloaded() throws {
        let service = try ServiceFixture(settings: [#""Tikcer": {"speed": 2}"#])
        let console = OperatorConsole()
        let (host, listener) = try service.start(console.arguments)
        #expect(listener.wait(forPrefix: "READY=1") != nil)
        let misspelt = "has settings for plugin Tikcer, which is not in \(service.directory.plugins.path); did you mean Ticker?"
        let before = try #require(console.status().map(HostStatusView.init))
        #expect(before.warnings.contains { $0.hasSuffix(misspelt) }, "\(before.warnings)")

        let configuration = try String(contentsOf: service.directory.configuration, encoding: .utf8)
        #expect(configuration.contains(#", "Tikcer": {"speed": 2}"#))
        try configuration.replacingOccurrences(of: #", "Tikcer": {"speed": 2}"#, with: #", "Ghost": {}"#)
            .write(to: service.directory.configuration, atomically: true, encoding: .utf8)
        #expect(try console.run("reload").status == 0)
        let after = try #require(console.status().map(HostStatusView.init))
        #expect(!after.warnings.contains { $0.contains("Tikcer") }, "the fixed warning is gone: \(after.warnings)")
        #expect(after.warnings.contains { $0.contains("has settings for plugin Ghost, which is not in") }, "the new one holds: \(after.warnings)")
        #expect(host.stop(with: SIGTERM).status == 0)
    }

    @Test("a plugin directory that does not exist is refused with or without --watch: a clear error, exit 1")
    func missingDirectory() throws {
        let missing = try Scratch.directory(named: "missing").appending(path: "nowhere")
        for extra in [[], ["--watch"]] {
            let host = try RunningHost(Repository.host.path, ["--dir", missing.path] + extra)
            let result = host.wait()
            #expect(result.status == 1, "\(extra): \(result.standardError)")
            #expect(result.standardError.contains("plugin-host: error: cannot open plugin directory \(missing.path): No such file or directory"),
                    "\(extra): \(result.standardError)")
            #expect(!result.standardOutput.contains(missing.path + " "), "the directory is no plugin: \(result.standardOutput)")
        }
    }

    @Test("a plugin added to a --watch host that started with an empty directory sees the host's environment, as one there at start does")
    func environmentOfAddedPlugin() throws {
        let directory = try PluginDirectoryFixture()
        // No data directory: Persistence finds its store from HOME, in the environment the chain carries.
        try Data(#"{"plugins": {}}"#.utf8).write(to: directory.configuration)
        let home = directory.root.appending(path: "home")
        let console = OperatorConsole()
        let host = try RunningHost(
            Repository.host.path, ["--dir", directory.plugins.path, "--config", directory.configuration.path, "--watch"] + console.arguments,
            environment: ["HOME": home.path, "XDG_DATA_HOME": ""])
        #expect(console.waitForStatus { $0.state == "serving" } != nil, "\(host.standardError)")

        let staging = directory.root.appending(path: "staging.so")
        try FileManager.default.copyItem(at: Repository.demoPlugin("Persistence"), to: staging)
        try directory.trust(staging)
        #expect(rename(staging.path, directory.plugins.appending(path: "libPersistence.so").path) == 0)
        #expect(host.waitForError("plugin-host: upgraded: Persistence 1.0.0 (new)"), "\(host.standardError)")
        #expect(FileManager.default.fileExists(atPath: home.appending(path: ".local/share/plugin-host").path))
        #expect(host.stop(with: SIGTERM).status == 0)
    }
}

/// The GNU build id of an ELF file, as `readelf -n` prints it.
private func buildID(of file: URL) throws -> String {
    let result = try Command.run("/usr/bin/env", ["readelf", "-n", file.path])
    let line = result.standardOutput.split(separator: "\n").first { $0.contains("Build ID:") } ?? ""
    return line.split(separator: " ").last.map(String.init) ?? ""
}
