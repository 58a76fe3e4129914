import Testing

@testable import PluginHost

@Suite("Command: the command line")
struct CommandTests {
    private func parse(_ arguments: [String], defaultDirectory: String? = nil) throws(UsageError) -> Command {
        try Command(parsing: arguments, defaultDirectory: defaultDirectory)
    }

    @Test("a run takes the directory, the configuration file and --json, in either form")
    func runOptions() throws {
        #expect(try parse(["--dir", "plugins/", "--config", "c.json", "--json"])
            == .run(RunOptions(directory: "plugins/", configurationFile: "c.json", json: true)))
        #expect(try parse(["--dir=plugins", "--config=c.json"]) == .run(RunOptions(directory: "plugins", configurationFile: "c.json")))
    }

    @Test("the installed plugin directory is the default")
    func defaultDirectory() throws {
        #expect(try parse([], defaultDirectory: "/opt/ph/lib/plugin-host/plugins") == .run(RunOptions(directory: "/opt/ph/lib/plugin-host/plugins")))
    }

    @Test("--help and --version win over everything else")
    func helpAndVersion() throws {
        #expect(try parse(["--bogus", "--help"]) == .help)
        #expect(try parse(["-h"]) == .help)
        #expect(try parse(["--version", "--dir"]) == .version)
    }

    @Test("usage errors say what is wrong", arguments: [
        (["--dir"], "option --dir needs a value"),
        (["--dir", "--json"], "option --dir needs a value"),
        (["--dir", "a", "--dir", "b"], "--dir given more than once"),
        (["--frobnicate"], "unknown option '--frobnicate'"),
        (["plugins"], "unexpected argument 'plugins'"),
        (["--json=yes", "--dir", "a"], "--json takes no value"),
        ([], "no plugin directory: give one with --dir"),
    ])
    func usageErrors(arguments: [String], message: String) throws {
        let error = try #require(throws: UsageError.self) { try parse(arguments) }
        #expect(error.message == message)
    }
}
