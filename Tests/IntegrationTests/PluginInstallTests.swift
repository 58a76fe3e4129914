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

    /// Every file of `directory` and of the folders in it, with its bytes: what a refused
    /// install must leave as it was.
    private func contents(of directory: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.subpathsOfDirectory(atPath: directory.path) {
            var isFolder: ObjCBool = false
            let path = directory.appending(path: name)
            guard FileManager.default.fileExists(atPath: path.path, isDirectory: &isFolder), !isFolder.boolValue else { continue }
            files[name] = try Data(contentsOf: path)
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
        #expect(host.waitForError("plugin-host: upgraded: Extra 1.0.0 (new)"), "\(host.standardError)")
        let target = plugins.appending(path: "libExtra.so").path
        let before = try inode(target)

        let next = try extra(#"{"name": "Extra", "version": "1.1.0", "abi": 2}"#, in: tree.root)
        let second = try Command.run(tree.host, ["install", next.path, "--interface", try interface])
        #expect(second.status == 0, "\(second.standardError)")
        #expect(second.standardOutput.contains("installed Extra 1.1.0 (was 1.0.0)"), "\(second.standardOutput)")
        #expect(host.waitForError("plugin-host: upgraded: Extra 1.0.0 -> 1.1.0"), "\(host.standardError)")
        #expect(try inode(target) != before, "a new file, renamed in: the running worker's mapped file is left as it was")
        #expect(!host.standardError.contains("not added"), "\(host.standardError)")
        #expect(try FileManager.default.subpathsOfDirectory(atPath: plugins.path).allSatisfy { !$0.contains(".install-") }, "no staging file left")
        #expect(try FileManager.default.contentsOfDirectory(atPath: plugins.path + "/.api").filter { $0.hasPrefix("Extra@") } == ["Extra@1.1.0.swiftinterface"],
                "the interface of the build installed now is kept with the directory, the one before removed")
        #expect(host.stop(with: SIGTERM).status == 0)
    }

    /// The fixture's interface of Extra, with `declaration` added to its API, in a file of its own.
    private func interface(adding declaration: String, in directory: URL) throws -> String {
        let file = directory.appending(path: "interface-\(UUID().uuidString)/Extra.swiftinterface")
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data((try String(contentsOfFile: try interface, encoding: .utf8) + declaration + "\n").utf8).write(to: file)
        return file.path
    }

    @Test("each plugin directory keeps its own API baseline: an install into another directory never moves it, so a correct next build goes in and a break of this directory's build is refused")
    func baselinePerDirectory() throws {
        let tree = try InstallTree.own()
        let work = try Scratch.directory(named: "directories")
        let (a, b) = (work.appending(path: "a"), work.appending(path: "b"))
        for directory in [a, b] { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) }
        let richer = try interface(adding: "public func extraCount() -> Swift.Int", in: work)
        let plain = try interface

        // A gets the build with more API; B, afterwards, an older build with less.
        let intoA = try Command.run(tree.host, ["install", try Fixtures.plugin("Extra").path, "--interface", richer, "--dir", a.path])
        #expect(intoA.status == 0, "\(intoA.standardError)")
        #expect(intoA.standardOutput.contains("no build of Extra is installed in \(a.path) to compare with"), "\(intoA.standardOutput)")
        let intoB = try Command.run(tree.host, ["install", try Fixtures.plugin("Extra").path, "--interface", plain, "--dir", b.path])
        #expect(intoB.status == 0, "B's baseline is not A's: \(intoB.standardError)")

        // A's next build keeps A's API: it goes in, compared with A's build, not with B's.
        let kept = try Command.run(tree.host, ["install", try extra(#"{"name": "Extra", "version": "1.1.0", "abi": 2}"#, in: work).path,
                                               "--interface", richer, "--dir", a.path])
        #expect(kept.status == 0, "\(kept.standardError)")
        #expect(kept.standardOutput.contains("keeps the API of the installed 1.0.0"), "\(kept.standardOutput)")

        // A build that drops what A's build published is refused, though B's would take it.
        let broken = try extra(#"{"name": "Extra", "version": "1.2.0", "abi": 2}"#, in: work)
        let aBefore = try contents(of: a)
        let refused = try Command.run(tree.host, ["install", broken.path, "--interface", plain, "--dir", a.path])
        #expect(refused.status == 1)
        #expect(refused.standardError.contains("Extra 1.2.0 breaks the API of Extra 1.1.0, installed in \(a.path)"), "\(refused.standardError)")
        #expect(refused.standardError.contains("extraCount()"), "\(refused.standardError)")
        #expect(try contents(of: a) == aBefore)
        let check = try Command.run(tree.host, ["check-api", try manifest(#"{"name": "Extra", "version": "1.2.0", "abi": 2}"#, in: work),
                                                "--interface", plain, "--dir", b.path])
        #expect(check.status == 0, "\(check.standardError)")
        #expect(check.standardOutput.contains("keeps the API of the installed 1.0.0"), "\(check.standardOutput)")
    }

    private func manifest(_ text: String, in directory: URL) throws -> String {
        let file = directory.appending(path: "manifest-\(UUID().uuidString).json")
        try Data(text.utf8).write(to: file)
        return file.path
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
