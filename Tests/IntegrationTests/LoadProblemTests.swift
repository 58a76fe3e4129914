import Foundation
import Testing

/// Problems found while loading and bootstrapping: the run stops at the first one.
@Suite("Load and bootstrap problems")
struct LoadProblemTests {
    @Test("a failing bootstrap stops the run and names the plugins that did not run")
    func failingBootstrap() throws {
        let directory = try PluginDirectoryFixture.demo(fixtures: ["Failing"])
        let (result, report) = try directory.runHostJSON(["--jobs", "1"])
        #expect(result.status == 1)
        #expect(report.plugins.map { $0["status"] as? String } == ["failed", "not-run", "not-run", "not-run"])
        let error = try #require(report.errors.first)
        #expect(error["code"] as? String == "bootstrap-failed")
        #expect(error["plugin"] as? String == "Failing")
        #expect(error["message"] as? String
            == "plugin Failing (\(directory.plugins.path)/libFailing.so) failed to bootstrap: the banana warehouse is too hot; not run: Persistence, Domain, Application")
    }

    @Test("a plugin without the entry point is named", arguments: [
        ("NoEntry", "entry-point-missing", "has no entry point plugin_host_bootstrapping"),
        ("NotAComponent", "not-a-component", "its entry point returned a NotAComponent.Banana, not a component type exported with PluginEntryPoint.export"),
        ("Impostor", "component-mismatch", "returned a Persistence.PersistenceBootstrapping, which is defined in"),
    ])
    func badEntryPoints(fixture: String, code: String, message: String) throws {
        let directory = try PluginDirectoryFixture.demo(fixtures: [fixture])
        let (result, report) = try directory.runHostJSON()
        #expect(result.status == 1)
        #expect(!result.signalled)
        let error = try #require(report.errors.first)
        #expect(error["code"] as? String == code)
        #expect(error["file"] as? String == "\(directory.plugins.path)/lib\(fixture).so")
        #expect((error["message"] as? String ?? "").contains(message), "\(error)")
        #expect(!FileManager.default.fileExists(atPath: directory.data.path), "no component may bootstrap when a plugin fails to load")
    }

    @Test("a plugin that fails inside dlopen is reported with dlerror's text")
    func dlopenFailure() throws {
        // Sneaky links libPersistence.so, which is not installed: no plugin's library, so the
        // graph is fine, and the dynamic loader is the first to notice that it is missing.
        let directory = try PluginDirectoryFixture(fixtures: ["Sneaky"])
        let result = try directory.runHost()
        #expect(result.status == 1)
        #expect(!result.signalled)
        #expect(result.standardError.contains(
            "plugin Sneaky (\(directory.plugins.path)/libSneaky.so) failed to load: libPersistence.so: cannot open shared object file"))
    }
}
