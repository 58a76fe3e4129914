import Foundation
import Testing

/// The contract between the host and its plugins, ABI 2, as a plugin sees it.
@Suite("The plugin contract: what a plugin can reach, link and declare")
struct PluginContractTests {
    @Test("a plugin that declares no dependency reaches no component by any public API path, then or later")
    func undeclaredComponentsAreOutOfReach() throws {
        let directory = try PluginDirectoryFixture.demo(fixtures: ["Snoop"])
        let result = try directory.runHost(["--jobs", "1"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("Snoop: reached nothing while bootstrapping"), "\(result.standardOutput)")
        #expect(result.standardOutput.contains("Snoop: reached nothing from its service"), "\(result.standardOutput)")
    }

    @Test("the host's own operations on the chain do not compile in a plugin built against the installed interface",
          arguments: [
              "_ = Bootstrapped(environment: [:])",
              #"_ = bootstrapped.view(for: PluginIdentity(name: "Spy", requires: ["Persistence"]))"#,
              #"_ = try bootstrapped.appending(Spy.self, as: PluginIdentity(name: "Spy"))"#,
              "_ = Lifecycle()",
              "_ = ExportedComponent(Spy.self)",
              "_ = PluginEntryPoint.symbolName",
          ])
    func hostOperationsAreOutOfReach(statement: String) throws {
        let tree = try InstallTree.shared()
        let source = tree.root.appending(path: "Spy-\(UUID().uuidString).swift")
        try Data("""
            import PluginABI
            final class Spy: Bootstrapping {
                init(_ bootstrapped: Bootstrapped) throws {
                    \(statement)
                }
            }
            """.utf8).write(to: source)
        let result = try Command.run("/usr/bin/env", [
            "swiftc", "-swift-version", "6", "-parse-as-library", "-typecheck", "-I", tree.prefix.appending(path: "lib/swift").path,
            source.path,
        ])
        #expect(result.status != 0, "it compiled: \(statement)")
        #expect(
            ["inaccessible", "cannot find", "has no member", "no accessible initializers"].contains { result.standardError.contains($0) },
            "\(result.standardError)")
    }

    @Test("a plugin built for ABI 1 is refused before any of its code runs, with what to do")
    func abiOnePluginIsRefused() throws {
        let directory = try PluginDirectoryFixture.demo(fixtures: ["OldABI"])
        let log = directory.root.appending(path: "old.log")
        try directory.configure(#""OldABI": {"log": "\#(log.path)"}"#)
        let result = try directory.runHost()
        #expect(result.status == 1)
        #expect(result.standardError.contains(
            "plugin OldABI (\(directory.plugins.path)/libOldABI.so) was built for plugin ABI 1, but this host provides ABI 2; "
                + "rebuild the plugin against this host's libPluginABI.so (since ABI 2 a component sets itself up in init(_ bootstrapped:)"))
        #expect(!FileManager.default.fileExists(atPath: log.path), "OldABI's code ran")
    }

    @Test("a plugin that links another plugin's library without declaring it is refused by check, list and the run, naming both")
    func undeclaredLinkIsRefused() throws {
        let directory = try PluginDirectoryFixture.demo(fixtures: ["Sneaky"])
        let expected = "plugin Sneaky (\(directory.plugins.path)/libSneaky.so) links libPersistence.so, the library of plugin "
            + "Persistence (\(directory.plugins.path)/libPersistence.so), but its manifest does not declare Persistence; "
            + "add \"Persistence\" to \"requires\" in the manifest of Sneaky"

        let check = try Command.run(Repository.host.path, ["check", "--dir", directory.plugins.path])
        #expect(check.status == 1)
        #expect(check.standardError.contains(expected))

        let list = try Command.run(Repository.host.path, ["list", "--dir", directory.plugins.path])
        #expect(list.standardOutput.contains(expected))
        #expect(list.standardOutput.split(separator: "\n").contains { $0.contains("Sneaky") && $0.contains("NOT LOADABLE") })

        let (run, report) = try directory.runHostJSON()
        #expect(run.status == 1)
        #expect(report.errors.contains { $0["code"] as? String == "undeclared-dependency" && $0["plugin"] as? String == "Sneaky" })
        #expect(!FileManager.default.fileExists(atPath: directory.data.path), "a plugin was bootstrapped")
    }

    @Test("a subclass's registrations count: the service a component's subclass registers runs")
    func subclassRegistrationsCount() throws {
        let directory = try PluginDirectoryFixture(fixtures: ["Subclass"])
        let result = try directory.runHost()
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("Subclass: base set up"))
        #expect(result.standardOutput.contains("Subclass: the subclass's service ran"))
    }

    @Test("a plugin built against the ABI 2.0 interface as first published still loads and runs")
    func baselinePlugin() throws {
        let directory = try PluginDirectoryFixture.demo(fixtures: ["Legacy"])
        let result = try directory.runHost()
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("Legacy: bootstrapped through the ABI 2.0 interface"))
    }

    @Test("a plugin built against the ABI 2.0 baseline loads into an ABI that has added a defaulted requirement since")
    func addedRequirementKeepsOldPluginsLoading() throws {
        // The evolved ABI: today's sources with one more requirement on Bootstrapping, and
        // its default (Tests/Evolution). Legacy never saw the requirement; the probe, a
        // minimal host built against the evolved ABI, loads Legacy and calls it.
        let work = try Scratch.directory(named: "evolution")
        let sources = work.appending(path: "PluginABI")
        try FileManager.default.copyItem(at: Repository.root.appending(path: "Sources/PluginABI"), to: sources)
        let protocolFile = sources.appending(path: "Bootstrapping.swift")
        let declaration = "public protocol Bootstrapping: AnyObject, Sendable {"
        let original = try String(contentsOf: protocolFile, encoding: .utf8)
        try #require(original.contains(declaration))
        try original.replacingOccurrences(of: declaration, with: declaration + "\n    static var addedAfterBaseline: String { get }")
            .write(to: protocolFile, atomically: true, encoding: .utf8)
        let abiSources = try FileManager.default.contentsOfDirectory(atPath: sources.path).sorted().map { sources.appending(path: $0).path }
        let evolution = Repository.root.appending(path: "Tests/Evolution")
        let lib = work.appending(path: "lib").path
        try FileManager.default.createDirectory(atPath: lib, withIntermediateDirectories: true)

        let library = try Command.run("/usr/bin/env", [
            "swiftc", "-swift-version", "6", "-Onone", "-wmo", "-parse-as-library", "-package-name", "plugin_host",
            "-emit-library", "-enable-library-evolution", "-module-name", "PluginABI",
            "-emit-module-path", "\(lib)/PluginABI.swiftmodule", "-Xlinker", "-soname=libPluginABI.so", "-o", "\(lib)/libPluginABI.so",
        ] + abiSources + [evolution.appending(path: "AddedRequirement.swift").path])
        try #require(library.status == 0, "\(library.standardError)")
        let probe = work.appending(path: "probe").path
        let built = try Command.run("/usr/bin/env", [
            "swiftc", "-swift-version", "6", "-Onone", "-parse-as-library", "-package-name", "plugin_host",
            "-I", lib, "-L", lib, "-lPluginABI", "-Xlinker", "-rpath", "-Xlinker", lib, "-o", probe,
            evolution.appending(path: "EvolutionProbe.swift").path,
        ])
        try #require(built.status == 0, "\(built.standardError)")

        let result = try Command.run(probe, [try Fixtures.plugin("Legacy").path])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("added requirement: the default"), "\(result.standardOutput)")
        #expect(result.standardOutput.contains("Legacy: bootstrapped through the ABI 2.0 interface"))
        let baseline = try String(contentsOf: Repository.root.appending(path: "Tests/Baselines/PluginABI-2.0/PluginABI.swiftinterface"), encoding: .utf8)
        #expect(!baseline.contains("addedAfterBaseline"), "the baseline predates the added requirement")
    }

    @Test("the run table shows optional dependencies as list does, marked ?")
    func optionalInRunTable() throws {
        let directory = try PluginDirectoryFixture(demo: ["Persistence"], fixtures: ["Gauges"])
        let result = try directory.runHost()
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.split(separator: "\n").contains { $0.contains("Gauges") && $0.contains("Persistence?") })
    }
}

/// One `make install` tree for the tests that build against it.
enum InstallTree {
    struct Tree {
        let root: URL
        let prefix: URL

        /// Its `plugin-host`.
        var host: String { prefix.appending(path: "bin/plugin-host").path }
    }

    private static let built: Result<Tree, any Error> = Result {
        let root = try Scratch.directory(named: "install-tree")
        let prefix = root.appending(path: "ph")
        try Repository.make(["install", "PREFIX=\(prefix.path)"])
        return Tree(root: root, prefix: prefix)
    }

    static func shared() throws -> Tree { try built.get() }

    /// A tree of one test's own, `make install`ed into `ph` of a directory outside the
    /// repository, where the test may install plugins and write projects.
    static func own() throws -> Tree {
        let root = try Scratch.directoryOutsideRepository(named: "author")
        let prefix = root.appending(path: "ph")
        try Repository.make(["install", "PREFIX=\(prefix.path)"])
        return Tree(root: root, prefix: prefix)
    }
}
