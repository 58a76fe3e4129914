import Foundation
import Testing

@Suite("The demo application, run by the real plugin-host")
struct DemoApplicationTests {
    @Test("bootstraps Persistence, Domain and Application in dependency order")
    func demoOrder() throws {
        let directory = try PluginDirectoryFixture.demo()
        let (result, report) = try directory.runHostJSON()
        #expect(result.status == 0, "\(result.standardError)")
        #expect(report.plugins.map { $0["name"] as? String } == ["Persistence", "Domain", "Application"])
        #expect(report.plugins.map { $0["status"] as? String } == ["bootstrapped", "bootstrapped", "bootstrapped"])
        #expect(report.plugins.map { $0["requires"] as? [String] } == [[], ["Persistence"], ["Domain"]])
        #expect(report.plugins.allSatisfy { ($0["milliseconds"] as? Double ?? -1) >= 0 })
        #expect(report.errors.isEmpty)
    }

    @Test("the text report lists the plugins in order, with versions and times")
    func textReport() throws {
        let result = try PluginDirectoryFixture.demo().runHost()
        #expect(result.status == 0)
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("Bootstrapped 3 plugins from ") })
        let table = lines.filter { $0.hasPrefix("  ") }
        #expect(table.count == 4)
        #expect(table[1].contains("1  Persistence  1.0.0    -  "))
        #expect(table[2].contains("2  Domain       1.0.0    Persistence  bootstrapped"))
        #expect(table[3].contains("3  Application  1.0.0    Domain       bootstrapped"))
        #expect(result.standardError.isEmpty)
    }

    @Test("Domain peels bananas from Persistence's store, and the store persists across runs")
    func storePersists() throws {
        let directory = try PluginDirectoryFixture.demo()
        let store = directory.data.appending(path: "bananas.json")

        let first = try directory.runHost()
        #expect(first.status == 0, "\(first.standardError)")
        #expect(first.standardOutput.contains("Application: peeled banana #1; 1 peeled so far, 2 left (store: \(store.path))"))

        let second = try directory.runHost()
        #expect(second.status == 0, "\(second.standardError)")
        #expect(second.standardOutput.contains("Application: peeled banana #2; 2 peeled so far, 1 left"))

        let saved = try JSONSerialization.jsonObject(with: Data(contentsOf: store)) as? [String: Any]
        let bananas = saved?["bananas"] as? [[String: Any]] ?? []
        #expect(bananas.map { $0["isPeeled"] as? Bool } == [true, true, false])
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.data.path).sorted() == ["bananas.json", "bananas.lock"])
    }

    @Test("a corrupt store is reported with its path and left untouched")
    func corruptStore() throws {
        let directory = try PluginDirectoryFixture.demo()
        try FileManager.default.createDirectory(at: directory.data, withIntermediateDirectories: true)
        let store = directory.data.appending(path: "bananas.json")
        try Data(#"{"format": 1, "bananas": [{"id": 1, "isPee"#.utf8).write(to: store)

        let result = try directory.runHost()
        #expect(result.status == 1)
        #expect(result.standardError.contains("plugin Persistence (\(directory.plugins.path)/libPersistence.so) failed to bootstrap: banana store \(store.path) cannot be used"))
        #expect(result.standardError.contains("not run: Domain, Application"))
        #expect(try String(contentsOf: store, encoding: .utf8) == #"{"format": 1, "bananas": [{"id": 1, "isPee"#)
    }

    @Test("a plugin dropped in after the host was built is picked up and ordered after what it requires")
    func droppedInPlugin() throws {
        let directory = try PluginDirectoryFixture.demo(fixtures: ["Ripener"])
        let (result, report) = try directory.runHostJSON()
        #expect(result.status == 0, "\(result.standardError)")
        #expect(report.plugins.map { $0["name"] as? String } == ["Persistence", "Domain", "Application", "Ripener"])
        #expect(report.plugins.last?["version"] as? String == "0.3.0")
        #expect(result.standardError.contains("Ripener: ripening the bananas in \(directory.data.path)/bananas.json"))
    }

    @Test("with --json, what plugins print goes to stderr and stdout holds only the report")
    func jsonStaysClean() throws {
        let (result, report) = try PluginDirectoryFixture.demo().runHostJSON()
        #expect(report.plugins.count == 3)
        #expect(!result.standardOutput.contains("Application:"))
        #expect(result.standardError.contains("Application: peeled banana #1"))
    }
}
