import Foundation
import Testing

@Suite("The command line of the real binary")
struct CommandLineTests {
    private func host(_ arguments: [String]) throws -> CommandResult {
        try Command.run(Repository.host.path, arguments)
    }

    @Test("--help prints usage, options and exit codes on stdout and exits 0")
    func help() throws {
        let result = try host(["--help"])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("Usage: plugin-host [run] [--dir DIR]... [--config FILE] [--json] [--keep-going]"))
        #expect(result.standardOutput.contains("64  the command line is wrong"))
        #expect(result.standardError.isEmpty)
    }

    @Test("--version prints the host and ABI versions")
    func version() throws {
        let result = try host(["--version"])
        #expect(result.status == 0)
        #expect(result.standardOutput == "plugin-host 0.2.0 (plugin ABI 2)\n")
    }

    @Test("a usage error goes to stderr with exit 64")
    func usageError() throws {
        let result = try host(["--dir"])
        #expect(result.status == 64)
        #expect(result.standardOutput.isEmpty)
        #expect(result.standardError.hasPrefix("plugin-host: option --dir needs a value\nUsage: plugin-host [run] [--dir DIR]... [--config FILE]"))
        #expect(result.standardError.contains("       plugin-host check [--dir DIR]...\n"))
        #expect(result.standardError.hasSuffix("See 'plugin-host --help'.\n"))
    }

    @Test("a configuration problem names the file and exits 1")
    func badConfiguration() throws {
        let directory = try PluginDirectoryFixture.demo()
        try Data(#"{"plugins": {"Persistence": {"dataDirectory": 7}}}"#.utf8).write(to: directory.configuration)
        let result = try directory.runHost()
        #expect(result.status == 1)
        #expect(result.standardError.contains(
            "plugin Persistence (\(directory.plugins.path)/libPersistence.so) failed to bootstrap: setting \"dataDirectory\" of plugin Persistence must be a string, but the configuration holds the number 7"))
    }

    @Test("settings for a plugin that is not installed give a warning, not a failure")
    func unknownPluginInConfiguration() throws {
        let directory = try PluginDirectoryFixture.demo()
        try Data(#"{"plugins": {"Persistance": {}, "Persistence": {"dataDirectory": "\#(directory.data.path)"}}}"#.utf8)
            .write(to: directory.configuration)
        let result = try directory.runHost()
        #expect(result.status == 0)
        #expect(result.standardError == "plugin-host: warning: configuration file \(directory.configuration.path) has settings for plugin "
            + "Persistance, which is not in \(directory.plugins.path); did you mean Persistence?\n")
    }
}
