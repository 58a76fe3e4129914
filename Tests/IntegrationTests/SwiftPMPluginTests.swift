import Foundation
import Testing

/// The Swift author's path (docs/writing-plugins.md): `plugin-host new` writes a SwiftPM
/// package; `swift build` and `swift test` work in it with no edit, from a directory outside
/// the repository, against an installed host or against the build tree beside the sources.
@Suite("Plugins built and tested with SwiftPM")
struct SwiftPMPluginTests {
    @Test("new --requires --optional --service, then swift build and swift test with no edit; installed, it runs after Domain")
    func buildTestInstallRun() throws {
        let tree = try InstallTree.own()
        let (work, prefix, host) = (tree.root, tree.prefix, tree.host)
        let created = try Command.run(host, ["new", "Peel", "--requires", "Domain", "--optional", "Metrics", "--service", "--into", work.path])
        #expect(created.status == 0, "\(created.standardError)")
        let project = work.appending(path: "Peel")
        // It sees the types of what it requires, and theirs: Peeling.banana is a Persistence.Banana.
        try edit(project.appending(path: "Sources/Peel/PeelBootstrapping.swift")) {
            $0 + "\nextension PeelBootstrapping {\n    public func nextBanana() throws -> Int { try domain.peelNext().banana.id }\n}\n"
        }

        let build = try swift(["build"], in: project)
        #expect(build.status == 0, "\(build.standardOutput)\(build.standardError)")
        #expect(build.standardOutput.contains("Embedding manifest.json in libPeel.so"), "\(build.standardOutput)")
        let tests = try swift(["test"], in: project)
        #expect(tests.status == 0, "\(tests.standardOutput)\(tests.standardError)")
        let run = tests.standardOutput + tests.standardError
        #expect(run.contains("Test run with 5 tests in 1 suite passed"), "\(run)")

        // Built for release and installed as the package's header says.
        let release = try swift(["build", "-c", "release"], in: project)
        #expect(release.status == 0, "\(release.standardOutput)\(release.standardError)")
        let built = project.appending(path: ".build/release")
        let install = try Command.run(host, ["install", built.appending(path: "libPeel.so").path])
        #expect(install.status == 0, "\(install.standardError)")
        #expect(FileManager.default.fileExists(atPath: prefix.appending(path: "lib/swift/Peel.swiftinterface").path), "the interface went in with it")
        let inspect = try Command.run(host, ["inspect", "--json", prefix.appending(path: "lib/plugin-host/plugins/libPeel.so").path])
        #expect(inspect.standardOutput.contains(#""requiredVersions":{"Domain":"^1.0.0"}"#), "the manifest as written: \(inspect.standardOutput)")

        // The installed host runs it after Domain; its service makes the host wait for a stop.
        let config = work.appending(path: "config.json")
        try Data(#"{"plugins": {"Persistence": {"dataDirectory": "\#(work.appending(path: "data").path)"}, "Peel": {"greeting": "built by SwiftPM"}}}"#.utf8)
            .write(to: config)
        let listener = try NotifyListener()
        let running = try RunningHost(host, ["--config", config.path, "--json"], environment: ["NOTIFY_SOCKET": listener.address])
        #expect(listener.nextSkippingPings() == "READY=1\nSTATUS=4 plugins running")
        let result = running.stop(with: SIGTERM)
        #expect(result.status == 0, "\(result.standardError)")
        let report = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any] ?? [:]
        let names = report.plugins.compactMap { $0["name"] as? String }
        #expect(names == ["Persistence", "Domain", "Application", "Peel"], "\(result.standardOutput)")
        #expect(result.standardError.contains("Peel: built by SwiftPM"), "\(result.standardError)")
    }

    @Test("beside the host's sources: a project new writes from the build tree builds and tests against it")
    func besideTheSources() throws {
        let work = try Scratch.directoryOutsideRepository(named: "author")
        let created = try Command.run(Repository.host.path, ["new", "Side", "--requires", "Domain", "--into", work.path])
        #expect(created.status == 0, "\(created.standardError)")
        let project = work.appending(path: "Side")
        let package = try String(contentsOf: project.appending(path: "Package.swift"), encoding: .utf8)
        #expect(package.contains(#"?? "\#(Repository.root.appending(path: "build").path)""#), "the build tree is its install tree")
        let tests = try swift(["test"], in: project)
        #expect(tests.status == 0, "\(tests.standardOutput)\(tests.standardError)")
        #expect((tests.standardOutput + tests.standardError).contains("Test run with 3 tests in 1 suite passed"))

        // PLUGIN_HOST_PREFIX points the same project at another install tree, tools and all.
        let installed = try InstallTree.shared()
        let elsewhere = try Command.run("/usr/bin/env", ["PLUGIN_HOST_PREFIX=\(installed.prefix.path)", "swift", "build", "-v"], in: project)
        #expect(elsewhere.status == 0, "\(elsewhere.standardOutput)\(elsewhere.standardError)")
        #expect((elsewhere.standardOutput + elsewhere.standardError).contains("\(installed.host) embed-manifest"))
    }

    @Test("embed-manifest, which the build tool plugin runs, names the manifest and what is wrong, and writes nothing then")
    func embedManifestRefuses() throws {
        let work = try Scratch.directory(named: "embed")
        let manifest = work.appending(path: "manifest.json")
        let output = work.appending(path: "PluginManifest.swift")
        let host = Repository.host.path
        func embed(_ extra: [String] = []) throws -> CommandResult {
            try Command.run(host, ["embed-manifest", manifest.path, "--output", output.path] + extra)
        }
        let missing = try embed()
        #expect(missing.status == 1)
        #expect(missing.standardError == "plugin-host: error: cannot read \(manifest.path): No such file or directory; "
            + "every plugin needs a manifest.json beside its Package.swift\n")

        try Data(#"{"name": "Peel", "version": "1.0.0", "abi": 2}"#.utf8).write(to: manifest)
        let misnamed = try embed(["--plugin", "Peeler"])
        #expect(misnamed.status == 1)
        #expect(misnamed.standardError.contains(#"\#(manifest.path): "name" is "Peel", but it is embedded in libPeeler.so; plugins that require Peel link libPeel.so"#),
                "\(misnamed.standardError)")

        try Data((#"{"name": "Peel", "version": "1.0.0", "abi": 2, "x": ""# + String(repeating: "x", count: 70_000) + "\"}").utf8).write(to: manifest)
        let large = try embed()
        #expect(large.status == 1)
        #expect(large.standardError.contains("the host reads at most 65536"), "\(large.standardError)")
        #expect(!FileManager.default.fileExists(atPath: output.path))

        try Data(#"{"name": "Peel", "version": "1.0.0", "abi": 2}"#.utf8).write(to: manifest)
        let written = try embed(["--plugin", "Peel"])
        #expect(written.status == 0 && written.standardError.isEmpty, "\(written.standardError)")
        #expect(try String(contentsOf: output, encoding: .utf8).contains(#"@section(".plugin_host_manifest") @used"#))
    }
}

/// Runs `swift ARGUMENTS` in `project`.
private func swift(_ arguments: [String], in project: URL) throws -> CommandResult {
    try Command.run("/usr/bin/env", ["swift"] + arguments, in: project)
}

private func edit(_ file: URL, _ change: (String) -> String) throws {
    try Data(change(try String(contentsOf: file, encoding: .utf8)).utf8).write(to: file)
}

/// A plugin's project as its author changes it: the manifest and the API, build after build.
@Suite("Plugins built with SwiftPM, changed build after build")
struct SwiftPMPluginChangeTests {
    @Test("the next swift build embeds a changed manifest.json, and fails on one the host would refuse; check catches an undeclared link")
    func manifestChangesAndLinks() throws {
        let tree = try InstallTree.shared()
        let host = tree.prefix.appending(path: "bin/plugin-host").path
        let work = try Scratch.directoryOutsideRepository(named: "author")
        #expect(try Command.run(host, ["new", "Pit", "--requires", "Domain", "--into", work.path]).status == 0)
        let project = work.appending(path: "Pit")
        let library = project.appending(path: ".build/debug/libPit.so").path
        let manifest = project.appending(path: "manifest.json")
        #expect(try swift(["build"], in: project).status == 0)
        #expect(try Command.run(host, ["inspect", library]).standardOutput.contains("version:   0.1.0"))

        try edit(manifest) { $0.replacingOccurrences(of: #""version": "0.1.0""#, with: #""version": "0.2.0""#) }
        #expect(try swift(["build"], in: project).status == 0)
        let inspected = try Command.run(host, ["inspect", library])
        #expect(inspected.standardOutput.contains("version:   0.2.0"), "the change is embedded: \(inspected.standardOutput)")

        try edit(manifest) { $0.replacingOccurrences(of: #""version": "0.2.0""#, with: #""version": "two""#) }
        let refused = try swift(["build"], in: project)
        #expect(refused.status != 0)
        #expect((refused.standardOutput + refused.standardError).contains(
            "plugin-host: error: \(manifest.path): malformed plugin manifest: \"version\" \"two\" is not a semantic version"),
            "\(refused.standardOutput)\(refused.standardError)")
        try edit(manifest) { $0.replacingOccurrences(of: #""version": "two""#, with: #""version": "0.2.0""#) }

        // Linking Application, which the manifest does not declare: check names it.
        try edit(project.appending(path: "Package.swift")) {
            $0.replacingOccurrences(of: #"let links: [String] = ["Domain", "Persistence"]"#, with: #"let links: [String] = ["Domain", "Persistence", "Application"]"#)
        }
        #expect(try swift(["build"], in: project).status == 0)
        let directory = try PluginDirectoryFixture.demo()
        try directory.add(URL(fileURLWithPath: library))
        let check = try Command.run(host, ["check", "--dir", directory.plugins.path])
        #expect(check.status == 1)
        #expect(check.standardError.contains("plugin Pit (\(directory.plugins.path)/libPit.so) links libApplication.so"), "\(check.standardError)")
        #expect(check.standardError.contains("but its manifest does not declare Application"), "\(check.standardError)")
    }

    @Test("a plugin's public API, against its build installed last: a break within its major version fails swift build and make, named; an addition or a new major version passes")
    func apiKeptAcrossBuilds() throws {
        let tree = try InstallTree.own()
        let (work, prefix, host) = (tree.root, tree.prefix, tree.host)
        #expect(try Command.run(host, ["new", "Pantry", "--into", work.path]).status == 0)
        let project = work.appending(path: "Pantry")
        let source = project.appending(path: "Sources/Pantry/PantryBootstrapping.swift")
        try edit(source) { $0 + "\n/// What Pantry offers other plugins.\npublic protocol Stocking: AnyObject, Sendable {\n    func stock(of item: String) -> Int\n}\n" }

        // Built with no build installed: nothing to compare with. Then installed as `new` says
        // for SwiftPM: plugin-host install, which puts the module interface in with the library.
        let first = try swift(["build", "-c", "release"], in: project)
        #expect(first.status == 0, "\(first.standardOutput)\(first.standardError)")
        let created = try Command.run(host, ["new", "Shown", "--into", work.path])
        #expect(created.standardOutput.contains("swift build -c release && \(host) install .build/release/libShown.so"), "\(created.standardOutput)")
        let install = try Command.run(host, ["install", project.appending(path: ".build/release/libPantry.so").path])
        #expect(install.status == 0, "\(install.standardOutput)\(install.standardError)")
        #expect(install.standardOutput.contains("check-api: Pantry 0.1.0: no build of Pantry is installed in \(prefix.path)/lib/plugin-host/plugins to compare with"),
                "\(install.standardOutput)")

        // Built with make as well, before the break.
        #expect(try Command.run("/usr/bin/env", ["make"], in: project).status == 0)
        let library = project.appending(path: "build/libPantry.so")
        #expect(FileManager.default.fileExists(atPath: library.path))

        // A requirement's return type changed, the version kept: both builds fail, naming it.
        try edit(source) { $0.replacingOccurrences(of: "func stock(of item: String) -> Int\n", with: "func stock(of item: String) -> Int8\n") }
        let named = "Func Stocking.stock(of:) has return type change from Swift.Int to Swift.Int8"
        let swiftBuild = try swift(["build"], in: project)
        #expect(swiftBuild.status != 0)
        #expect((swiftBuild.standardOutput + swiftBuild.standardError).contains(named), "\(swiftBuild.standardOutput)\(swiftBuild.standardError)")
        #expect((swiftBuild.standardOutput + swiftBuild.standardError).contains(
            "plugin-host: error: Pantry 0.1.0 breaks the API of Pantry 0.1.0, installed in \(prefix.path)/lib/plugin-host/plugins"))
        let make = try Command.run("/usr/bin/env", ["make"], in: project)
        #expect(make.status != 0)
        #expect(make.standardError.contains(named), "\(make.standardError)")
        // A refused build leaves no build behind: neither the one before, nor the one refused.
        #expect(!FileManager.default.fileExists(atPath: library.path), "the build before is gone")
        #expect(!FileManager.default.fileExists(atPath: library.path + ".unpackaged"), "the refused build is gone")
        #expect(try Command.run("/usr/bin/env", ["make", "install"], in: project).status != 0, "nor is it installed")

        // Kept, with a declaration added: both pass.
        try edit(source) {
            $0.replacingOccurrences(of: "-> Int8\n", with: "-> Int\n") + "\nextension Stocking {\n    public func inStock(_ item: String) -> Bool { stock(of: item) > 0 }\n}\n"
        }
        #expect(try swift(["build"], in: project).status == 0)
        let added = try Command.run("/usr/bin/env", ["make"], in: project)
        #expect(added.standardOutput.contains("check-api: Pantry 0.1.0 keeps the API of the installed 0.1.0 (1 declaration added)"),
                "\(added.standardOutput)\(added.standardError)")

        // Broken again, as a new major version: passes, and says what it means.
        try edit(source) { $0.replacingOccurrences(of: "func stock(of item: String) -> Int\n", with: "func stock(of item: String) -> Int8\n") }
        try edit(project.appending(path: "manifest.json")) { $0.replacingOccurrences(of: #""version": "0.1.0""#, with: #""version": "0.2.0""#) }
        #expect(try swift(["build"], in: project).status == 0)
        let major = try Command.run("/usr/bin/env", ["make"], in: project)
        #expect(major.status == 0, "\(major.standardError)")
        #expect(major.standardOutput.contains("check-api: Pantry 0.2.0 is a new major version after the installed 0.1.0"), "\(major.standardOutput)")
    }
}
