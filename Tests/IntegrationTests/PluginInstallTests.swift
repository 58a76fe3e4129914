import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `plugin-host install`, through the real binary, against a `make install` tree of its own
/// (whose demo plugins `make install` put in with `plugin-host install` too).
@Suite("plugin-host install: a plugin checked against the directory, then renamed in with its interface")
struct PluginInstallTests {
    /// A copy of the fixture `Extra` whose manifest says `manifest`, outside any plugin directory.
    private func extra(_ manifest: String, in directory: URL) throws -> URL {
        let copy = directory.appending(path: "build-\(UUID().uuidString)/libExtra.so")
        try FileManager.default.createDirectory(at: copy.deletingLastPathComponent(), withIntermediateDirectories: true)
        let manifestFile = directory.appending(path: "manifest-\(UUID().uuidString).json")
        try Data(manifest.utf8).write(to: manifestFile)
        let result = try Command.run("/usr/bin/env", [
            "objcopy", "--update-section", ".plugin_host_manifest=\(manifestFile.path)", try Fixtures.plugin("Extra").path, copy.path,
        ])
        guard result.status == 0 else { throw CommandFailure(command: "objcopy", result: result) }
        return copy
    }

    private var interface: String {
        get throws { try Fixtures.plugin("Extra").deletingLastPathComponent().appending(path: "modules/Extra.swiftinterface").path }
    }

    /// Every file of `directory` with its bytes: what a refused install must leave as it was.
    private func contents(of directory: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            files[name] = try Data(contentsOf: directory.appending(path: name))
        }
        return files
    }

    private func inode(_ path: String) throws -> UInt64 {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? UInt64)
    }

    @Test("into a directory a --watch host serves: added, then upgraded by one rename, a new inode, nothing half-written seen")
    func intoServedDirectory() throws {
        let tree = try InstallTree.own()
        let plugins = tree.prefix.appending(path: "lib/plugin-host/plugins")
        let listener = try NotifyListener()
        let host = try RunningHost(tree.host, ["--dir", plugins.path, "--watch", "--trial", "0"], environment: ["NOTIFY_SOCKET": listener.address])
        #expect(listener.wait(forPrefix: "READY=1") != nil, "\(host.standardError)")

        let first = try Command.run(tree.host, ["install", try Fixtures.plugin("Extra").path, "--interface", try interface])
        #expect(first.status == 0, "\(first.standardError)")
        #expect(first.standardOutput.contains("installed Extra 1.0.0: \(plugins.path)/libExtra.so, "), "\(first.standardOutput)")
        #expect(FileManager.default.fileExists(atPath: tree.prefix.appending(path: "lib/swift/Extra.swiftinterface").path))
        #expect(listener.wait(forPrefix: "STATUS=Added plugin Extra") != nil, "\(host.standardError)")
        let target = plugins.appending(path: "libExtra.so").path
        let before = try inode(target)

        let next = try extra(#"{"name": "Extra", "version": "1.1.0", "abi": 2}"#, in: tree.root)
        let second = try Command.run(tree.host, ["install", next.path, "--interface", try interface])
        #expect(second.status == 0, "\(second.standardError)")
        #expect(second.standardOutput.contains("installed Extra 1.1.0 (was 1.0.0)"), "\(second.standardOutput)")
        #expect(host.waitForError("plugin-host: upgraded: Extra 1.0.0 -> 1.1.0"), "\(host.standardError)")
        #expect(try inode(target) != before, "a new file, renamed in: the running worker's mapped file is left as it was")
        #expect(!host.standardError.contains("not added"), "\(host.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: plugins.path).allSatisfy { !$0.hasPrefix(".") }, "no staging file left")
        #expect(host.stop(with: SIGTERM).status == 0)
    }

    @Test("a refused install names the problem and leaves the directory byte for byte as it was", arguments: [
        ("range", #"{"name": "Extra", "version": "1.0.0", "abi": 2, "requires": ["Domain"], "requiredVersions": {"Domain": "^9.0.0"}}"#,
         "requires Domain ^9.0.0, but Domain 1.0.0 is installed"),
        ("abi", #"{"name": "Extra", "version": "1.0.0", "abi": 99, "requires": []}"#, "ABI"),
        ("not a plugin", "", "not a loadable ELF shared object"),
        ("another module's interface", #"{"name": "Extra", "version": "1.0.0", "abi": 2}"#, "is not the module interface of Extra"),
    ])
    func refused(what: String, manifest: String, expected: String) throws {
        let tree = try InstallTree.shared()
        let plugins = tree.prefix.appending(path: "lib/plugin-host/plugins")
        let modules = tree.prefix.appending(path: "lib/swift")
        let work = try Scratch.directory(named: "install-\(what.replacingOccurrences(of: " ", with: "-"))")
        let file: URL
        if manifest.isEmpty {
            file = work.appending(path: "libJunk.so")
            try Data("not a plugin\n".utf8).write(to: file)
        } else {
            file = try extra(manifest, in: work)
        }
        let given = what == "another module's interface"
            ? try Fixtures.plugin("Crasher").deletingLastPathComponent().appending(path: "modules/Crasher.swiftinterface").path : try interface
        let (pluginsBefore, modulesBefore) = (try contents(of: plugins), try contents(of: modules))
        let result = try Command.run(tree.host, ["install", file.path, "--interface", given])
        #expect(result.status == 1)
        #expect(result.standardError.contains(expected), "\(result.standardError)")
        #expect(result.standardError.contains("nothing was installed"), "\(result.standardError)")
        #expect(try contents(of: plugins) == pluginsBefore)
        #expect(try contents(of: modules) == modulesBefore)
    }
}
