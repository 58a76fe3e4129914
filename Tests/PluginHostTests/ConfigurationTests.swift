import Foundation
import PluginABI
import Testing

@testable import PluginHost

@Suite("Configuration: settings per plugin from --config")
struct ConfigurationTests {
    private func load(_ text: String) throws -> Configuration {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("config-\(UUID().uuidString).json")
        try Data(text.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        return try Configuration(contentsOf: url.path)
    }

    @Test("settings are read per plugin name")
    func settingsPerPlugin() throws {
        let configuration = try load(#"{"plugins": {"Persistence": {"dataDirectory": "/tmp/x"}, "Domain": {}}}"#)
        #expect(configuration.settings["Persistence"]?["dataDirectory"] == .string("/tmp/x"))
        #expect(configuration.settings["Persistence"]?.pluginName == "Persistence")
        #expect(configuration.settings["Domain"]?.values.isEmpty == true)
    }

    @Test("problems name the file and what is wrong", arguments: [
        (#"{"plugins": {"#, "not valid JSON: line 1, column 14"),
        (#"[]"#, "it must hold a JSON object, found array"),
        (#"{"plugin": {}}"#, #"unknown key "plugin""#),
        (#"{"plugins": []}"#, #""plugins" must be an object"#),
        (#"{"plugins": {"A": 1}}"#, #"the settings of plugin "A" must be an object, found number"#),
    ])
    func invalid(text: String, expected: String) throws {
        let problem = try #require(throws: Problem.self) { try load(text) }
        #expect(problem.code == .configurationInvalid)
        #expect(problem.message.hasPrefix("configuration file /"))
        #expect(problem.message.contains(expected), "\(problem.message)")
    }

    @Test("a missing file is a problem naming it")
    func missingFile() throws {
        let problem = try #require(throws: Problem.self) { try Configuration(contentsOf: "/nonexistent/config.json") }
        #expect(problem.message == "configuration file /nonexistent/config.json: cannot read it: open /nonexistent/config.json: No such file or directory (errno: 2)")
    }
}
