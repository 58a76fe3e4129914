import Foundation
import Testing

/// "Writing a plugin" (the README and docs/writing-plugins.md), followed step by step from a directory outside the
/// repository, against a `make install` tree.
@Suite("Writing a plugin, as the documentation tells")
struct WritingAPluginTests {
    @Test("scaffold a plugin that requires Domain, build and test it, drop it in, and see it ordered after Domain")
    func walkthrough() throws {
        // 1. Install the host (make install PREFIX=...).
        let tree = try InstallTree.own()
        let (work, prefix, host) = (tree.root, tree.prefix, tree.host)

        // 2. pkg-config gives the swiftc flags.
        let flags = try Command.run("/usr/bin/env", ["pkg-config", "--cflags", "--libs", "plugin-abi"],
                                    environment: ["PKG_CONFIG_PATH": prefix.appending(path: "lib/pkgconfig").path])
        #expect(flags.status == 0, "\(flags.standardError)")
        #expect(flags.standardOutput.contains("-lPluginABI"))
        #expect(flags.standardOutput.contains("/lib/swift"))

        // 3. plugin-host new NAME --requires Domain --optional Metrics --into DIR: the project
        // links Domain and uses the protocol it exports; its test stands in for Domain.
        let created = try Command.run(host, ["new", "Peel", "--requires", "Domain", "--optional", "Metrics", "--into", work.path])
        #expect(created.status == 0, "\(created.standardError)")
        let project = work.appending(path: "Peel")
        for file in ["Package.swift", "manifest.json", "Sources/Peel/PeelBootstrapping.swift", "Tests/PeelTests/PeelTests.swift", "Makefile"] {
            #expect(FileManager.default.fileExists(atPath: project.appending(path: file).path), "\(file)")
        }
        let source = try String(contentsOf: project.appending(path: "Sources/Peel/PeelBootstrapping.swift"), encoding: .utf8)
        #expect(source.contains("import Domain"))
        #expect(source.contains("try bootstrapped.component(BananaPeeling.self)"))
        let makefile = try String(contentsOf: project.appending(path: "Makefile"), encoding: .utf8)
        #expect(makefile.contains("LINKS              := Domain Persistence\n"), "what Domain requires is linked too")
        // The versions of Domain it works with: from the one installed, which it is built against.
        let manifest = try String(contentsOf: project.appending(path: "manifest.json"), encoding: .utf8)
        #expect(manifest.contains(#""requiredVersions": {"Domain": "^1.0.0"}"#), "\(manifest)")

        // 4. The Makefile path: make; make test; make install (from the project directory, outside the repository).
        let build = try Command.run("/usr/bin/env", ["make"], in: project)
        #expect(build.status == 0, "\(build.standardOutput)\(build.standardError)")
        let tests = try Command.run("/usr/bin/env", ["make", "test"], in: project)
        #expect(tests.status == 0, "\(tests.standardOutput)\(tests.standardError)")
        #expect((tests.standardOutput + tests.standardError).contains("Test run with 4 tests in 1 suite passed"), "\(tests.standardOutput)\(tests.standardError)")
        let install = try Command.run("/usr/bin/env", ["make", "install"], in: project)
        #expect(install.status == 0, "\(install.standardError)")

        // 5. The installed host picks it up and orders it after Domain.
        let data = work.appending(path: "data")
        let config = work.appending(path: "config.json")
        try Data(#"{"plugins": {"Persistence": {"dataDirectory": "\#(data.path)"}, "Peel": {"greeting": "peeled and ready"}}}"#.utf8)
            .write(to: config)
        let run = try Command.run(host, ["--config", config.path, "--json"])
        #expect(run.status == 0, "\(run.standardError)")
        let report = try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any] ?? [:]
        let names = report.plugins.compactMap { $0["name"] as? String }
        let peel = try #require(names.firstIndex(of: "Peel"))
        #expect(peel > names.firstIndex(of: "Domain")!)
        #expect(report.plugins[peel]["status"] as? String == "bootstrapped")
        #expect(report.plugins[peel]["requires"] as? [String] == ["Domain"])
        #expect(report.plugins[peel]["optional"] as? [String] == ["Metrics"])
        #expect(run.standardError.contains("Peel: peeled and ready"))
    }

    @Test("new --service: a component whose service handles readiness, health and drain; its test passes; the host runs it")
    func serviceScaffold() throws {
        let tree = try InstallTree.own()
        let (work, host) = (tree.root, tree.host)
        let created = try Command.run(host, ["new", "Ticker", "--service", "--into", work.path])
        #expect(created.status == 0, "\(created.standardError)")
        let project = work.appending(path: "Ticker")
        let source = try String(contentsOf: project.appending(path: "Sources/Ticker/TickerBootstrapping.swift"), encoding: .utf8)
        for registration in ["lifecycle.run {", "lifecycle.onReady {", "lifecycle.onHealthCheck {", "lifecycle.onDrain {"] {
            #expect(source.contains(registration), "\(registration)")
        }
        // The test runs the service as the host does, through the harness: no method by hand.
        let test = try String(contentsOf: project.appending(path: "Tests/TickerTests/TickerTests.swift"), encoding: .utf8)
        #expect(test.contains("harness.startService(of: \"Ticker\")") && test.contains("try await service.stop()"))
        #expect(!test.contains("worker.serve()"))
        let tests = try Command.run("/usr/bin/env", ["make", "test", "install"], in: project)
        #expect(tests.status == 0, "\(tests.standardOutput)\(tests.standardError)")
        #expect((tests.standardOutput + tests.standardError).contains("Test run with 3 tests in 1 suite passed"), "\(tests.standardOutput)\(tests.standardError)")
        #expect(!tests.standardError.contains("warning"), "\(tests.standardError)")

        let config = work.appending(path: "config.json")
        try Data(#"{"plugins": {"Persistence": {"dataDirectory": "\#(work.appending(path: "data").path)"}, "Ticker": {"interval": 0.01}}}"#.utf8)
            .write(to: config)
        let listener = try NotifyListener()
        // A watchdog of 100 ms: health checked and pinged every 50 ms; pings stop while a
        // component is unhealthy, so five pings in a row say its checks answered healthy.
        let running = try RunningHost(
            host, ["--config", config.path], environment: ["NOTIFY_SOCKET": listener.address, "WATCHDOG_USEC": "100000"])
        #expect(listener.nextSkippingPings() == "READY=1\nSTATUS=4 plugins running")
        for ping in 1...5 { #expect(listener.wait(for: "WATCHDOG=1", within: .seconds(2)), "ping \(ping)") }
        let result = running.stop(with: SIGTERM)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(!result.standardError.contains("health:"), "\(result.standardError)")
    }

    @Test("a plugin that uses what its requirement returns (a type of the requirement's own requirement) builds, tests and passes check")
    func transitiveTypes() throws {
        let tree = try InstallTree.shared()
        let host = tree.prefix.appending(path: "bin/plugin-host").path
        let work = try Scratch.directoryOutsideRepository(named: "author")
        let created = try Command.run(host, ["new", "Ripener", "--requires", "Domain", "--optional", "Metrics", "--into", work.path])
        #expect(created.status == 0, "\(created.standardError)")
        let project = work.appending(path: "Ripener")
        // Peeling.banana is a Persistence.Banana: the project must link Persistence too.
        let source = project.appending(path: "Sources/Ripener/RipenerBootstrapping.swift")
        try Data((try String(contentsOf: source, encoding: .utf8) + """

            extension RipenerBootstrapping {
                /// The id of the banana Domain peels next.
                public func nextBanana() throws -> Int { try domain.peelNext().banana.id }
            }

            """).utf8).write(to: source)
        let tests = try Command.run("/usr/bin/env", ["make", "test"], in: project)
        #expect(tests.status == 0, "\(tests.standardOutput)\(tests.standardError)")
        // The generated test also hears Metrics, optional, join and leave.
        #expect((tests.standardOutput + tests.standardError).contains("Test run with 4 tests in 1 suite passed"), "\(tests.standardOutput)\(tests.standardError)")
        let build = try Command.run("/usr/bin/env", ["make"], in: project)
        #expect(build.status == 0, "\(build.standardError)")
        let directory = try PluginDirectoryFixture.demo()
        try directory.add(project.appending(path: "build/libRipener.so"))
        let check = try Command.run(host, ["check", "--dir", directory.plugins.path])
        #expect(check.status == 0, "the link to Persistence is declared through Domain: \(check.standardOutput)\(check.standardError)")
    }

    @Test("new --help lists new's own flags; --into creates its directory")
    func newHelpAndInto() throws {
        let tree = try InstallTree.shared()
        let host = tree.prefix.appending(path: "bin/plugin-host").path
        let help = try Command.run(host, ["new", "--help"])
        #expect(help.status == 0)
        for flag in ["--requires A,B", "--optional C,D", "--service", "--into DIR"] { #expect(help.standardOutput.contains(flag), "\(flag)") }
        #expect(help.standardOutput.hasPrefix("Usage: plugin-host new NAME"))
        let work = try Scratch.directoryOutsideRepository(named: "author")
        let into = work.appending(path: "not/yet/there")
        let created = try Command.run(host, ["new", "Orchard", "--into", into.path])
        #expect(created.status == 0, "\(created.standardError)")
        #expect(FileManager.default.fileExists(atPath: into.appending(path: "Orchard/manifest.json").path))
    }

    @Test("new refuses a required plugin that is not installed, writing nothing, and refuses to overwrite a project")
    func newWithMissingDependency() throws {
        let tree = try InstallTree.shared()
        let host = tree.prefix.appending(path: "bin/plugin-host").path
        let work = try Scratch.directoryOutsideRepository(named: "author")
        let refused = try Command.run(host, ["new", "Ghosty", "--requires", "Domain,Ghost", "--into", work.path])
        #expect(refused.status == 1)
        #expect(refused.standardError.contains(
            "plugin-host: error: Ghost is not installed in \(tree.prefix.path) (looked for lib/swift/Ghost.swiftinterface); "
                + "Ghosty would import and link it and could not build"), "\(refused.standardError)")
        #expect(refused.standardError.contains("nothing was written"), "\(refused.standardError)")
        #expect(!FileManager.default.fileExists(atPath: work.appending(path: "Ghosty").path), "nothing written")

        // A required plugin that exports no protocol: linked, and the component says where to look it up, as the guide says.
        let created = try Command.run(host, ["new", "Orphan", "--requires", "Application", "--into", work.path])
        #expect(created.status == 0, "\(created.standardError)")
        #expect(created.standardError.contains("Application exports no protocol of its component that a test can stand in for; "
            + "Orphan links it, and Sources/Orphan/OrphanBootstrapping.swift says where to look it up"), "\(created.standardError)")
        let source = try String(contentsOf: work.appending(path: "Orphan/Sources/Orphan/OrphanBootstrapping.swift"), encoding: .utf8)
        #expect(source.contains("// Application exports no protocol of its component: look it up by its class, or by a"), "\(source)")
        let again = try Command.run(host, ["new", "Orphan", "--into", work.path])
        #expect(again.status != 0)
        #expect(again.standardError.contains("/Orphan/Package.swift exists; plugin-host new does not overwrite a project"), "\(again.standardError)")
        // A directory that holds one of its files: refused before anything is written.
        let started = work.appending(path: "Started")
        try FileManager.default.createDirectory(at: started, withIntermediateDirectories: true)
        try Data("{}".utf8).write(to: started.appending(path: "manifest.json"))
        let partial = try Command.run(host, ["new", "Started", "--into", work.path])
        #expect(partial.status != 0)
        #expect(partial.standardError.contains("/Started/manifest.json exists"), "\(partial.standardError)")
        #expect(!FileManager.default.fileExists(atPath: started.appending(path: "Package.swift").path), "nothing written")
    }
}
