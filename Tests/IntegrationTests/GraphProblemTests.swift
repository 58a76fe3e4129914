import Foundation
import Testing

/// Problems found from the manifests alone: each must stop the run before any plugin code
/// runs, exit 1, and name the file or plugin.
@Suite("Graph problems, reported before any plugin is loaded")
struct GraphProblemTests {
    private func expectFailure(_ directory: PluginDirectoryFixture, code: String, naming fragments: [String]) throws {
        let (result, report) = try directory.runHostJSON()
        #expect(result.status == 1)
        #expect(!result.signalled)
        let error = try #require(report.errors.first { $0["code"] as? String == code }, "\(report.errors)")
        let message = error["message"] as? String ?? ""
        for fragment in fragments {
            #expect(message.contains(fragment), "\(message)")
            #expect(result.standardError.contains(fragment))
        }
        #expect(report.plugins.allSatisfy { $0["status"] as? String == "not-run" })
        #expect(!FileManager.default.fileExists(atPath: directory.data.path), "a plugin ran")
    }

    @Test("a dependency cycle gives its full path")
    func cycle() throws {
        let directory = try PluginDirectoryFixture.demo(fixtures: ["CycleA", "CycleB", "CycleC"])
        try expectFailure(directory, code: "dependency-cycle", naming: ["dependency cycle: CycleA -> CycleB -> CycleC -> CycleA"])
    }

    @Test("a missing dependency names who needs what")
    func missingDependency() throws {
        let directory = try PluginDirectoryFixture.demo(fixtures: ["NeedsGhost"])
        try expectFailure(directory, code: "missing-dependency", naming: [
            "plugin NeedsGhost (\(directory.plugins.path)/libNeedsGhost.so) requires Ghost, which is not installed",
        ])
    }

    @Test("a duplicate name names both files")
    func duplicateName() throws {
        let directory = try PluginDirectoryFixture.demo(fixtures: ["Twin"])
        try directory.add(Fixtures.plugin("Twin"), as: "libTwin-2.so")
        try expectFailure(directory, code: "duplicate-name", naming: [
            "duplicate plugin name Twin: \(directory.plugins.path)/libTwin-2.so and \(directory.plugins.path)/libTwin.so",
        ])
    }

    @Test("an ABI mismatch gives the version found and the one expected")
    func abiMismatch() throws {
        let directory = try PluginDirectoryFixture.demo(fixtures: ["FutureABI"])
        try expectFailure(directory, code: "abi-mismatch", naming: [
            "plugin FutureABI (\(directory.plugins.path)/libFutureABI.so) was built for plugin ABI 99, but this host provides ABI 2; use a plugin-host that provides ABI 99",
        ])
    }

    @Test("a *.so that is not an ELF shared object is named; other files are ignored")
    func notELF() throws {
        let directory = try PluginDirectoryFixture.demo()
        try directory.write("just some notes\n", to: "libnotes.so")
        try directory.write("ignored\n", to: "README.txt")
        try expectFailure(directory, code: "not-a-shared-object", naming: ["\(directory.plugins.path)/libnotes.so: not a loadable ELF shared object: not an ELF file"])
    }

    @Test("a shared object without a manifest is named")
    func missingManifest() throws {
        let directory = try PluginDirectoryFixture.demo()
        let stripped = directory.plugins.appending(path: "libBare.so")
        let result = try Command.run("/usr/bin/env", ["objcopy", "--remove-section", ".plugin_host_manifest", Fixtures.plugin("Twin").path, stripped.path])
        #expect(result.status == 0)
        try directory.trust(stripped)
        try expectFailure(directory, code: "missing-manifest", naming: ["\(stripped.path): no plugin manifest"])
    }

    @Test("every problem is reported in one run")
    func allAtOnce() throws {
        let directory = try PluginDirectoryFixture.demo(fixtures: ["CycleA", "CycleB", "CycleC", "NeedsGhost", "FutureABI", "Twin"])
        try directory.add(Fixtures.plugin("Twin"), as: "libTwin-2.so")
        try directory.write("not elf", to: "libnotes.so")
        let (result, report) = try directory.runHostJSON()
        #expect(result.status == 1)
        #expect(Set(report.errors.compactMap { $0["code"] as? String }) == [
            "dependency-cycle", "missing-dependency", "duplicate-name", "abi-mismatch", "not-a-shared-object",
        ])
        #expect(result.standardError.split(separator: "\n").filter { $0.hasPrefix("plugin-host: error: ") }.count == 5)
    }

    @Test("a plugin directory that does not exist is a clear error")
    func missingDirectory() throws {
        let result = try Command.run(Repository.host.path, ["--dir", "/nonexistent/plugins"])
        #expect(result.status == 1)
        #expect(result.standardError == "plugin-host: error: cannot open plugin directory /nonexistent/plugins: No such file or directory (errno: 2); check --dir\n")
    }
}
