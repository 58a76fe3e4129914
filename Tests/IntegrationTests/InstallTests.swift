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
}
