import Testing

@testable import PluginHost

@Suite("Command: the command line")
struct CommandTests {
    private func parse(_ arguments: [String], path: String? = nil, defaultDirectory: String? = nil) throws(UsageError) -> Command {
        try Command(parsing: arguments, searchPath: path, defaultDirectory: defaultDirectory)
    }

    private func run(_ directories: [String], configuration: String? = nil, json: Bool = false) -> Command {
        var options = RunOptions(search: SearchOptions(directories: directories))
        options.configurationFile = configuration
        options.json = json
        return .run(options)
    }

    @Test("a run takes the directory, the configuration file and --json, in either form")
    func runOptions() throws {
        #expect(try parse(["--dir", "plugins/", "--config", "c.json", "--json"]) == run(["plugins/"], configuration: "c.json", json: true))
        #expect(try parse(["--dir=plugins", "--config=c.json"]) == run(["plugins"], configuration: "c.json"))
        #expect(try parse(["run", "--dir", "p"]) == run(["p"]))
    }

    @Test("a long-running host: --watch, --health-interval (0 for never; without it, the default is chosen at start)")
    func serviceOptions() throws {
        var options = RunOptions(search: SearchOptions(directories: ["p"]))
        options.watch = true
        options.healthInterval = .milliseconds(2500)
        #expect(try parse(["--dir", "p", "--watch", "--health-interval", "2.5"]) == .run(options))
        options.watch = false
        options.healthInterval = .zero
        #expect(try parse(["--dir", "p", "--health-interval=0"]) == .run(options))
        #expect(try parse(["--dir", "p"]) == run(["p"]))
    }

    @Test("the search path: each --dir in order, then PLUGIN_HOST_PATH, then (without --dir) the install tree's directory")
    func searchPath() throws {
        #expect(try parse(["--dir", "a", "--dir", "b"], path: "c:d", defaultDirectory: "/opt") == run(["a", "b", "c", "d"]))
        #expect(try parse([], path: "c::d", defaultDirectory: "/opt") == run(["c", "d", "/opt"]))
        #expect(try parse([], defaultDirectory: "/opt/ph/lib/plugin-host/plugins") == run(["/opt/ph/lib/plugin-host/plugins"]))
    }

    @Test("the operator commands and new")
    func subcommands() throws {
        #expect(try parse(["list", "--dir", "p", "--json"]) == .list(SearchOptions(directories: ["p"]), json: true))
        #expect(try parse(["check", "--dir", "p", "--allow-any-owner"]) == .check(SearchOptions(directories: ["p"], allowAnyOwner: true)))
        #expect(try parse(["graph", "--dir", "p"]) == .graph(SearchOptions(directories: ["p"])))
        #expect(try parse(["inspect", "libA.so"]) == .inspect(file: "libA.so", json: false))
        #expect(try parse(["new", "Peel", "--requires", "Domain, Persistence", "--into", "/tmp"])
            == .new(NewPluginOptions(name: "Peel", requires: ["Domain", "Persistence"], parent: "/tmp")))
        #expect(try parse(["new", "Ticker", "--service", "--optional", "Metrics"])
            == .new(NewPluginOptions(name: "Ticker", optional: ["Metrics"], service: true)))
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
        (["--frobnicate"], "unknown option '--frobnicate'"),
        (["plugins"], "unexpected argument 'plugins'"),
        (["--json=yes", "--dir", "a"], "--json takes no value"),
        ([], "no plugin directory: give one with --dir or PLUGIN_HOST_PATH"),
        (["check", "--dir", "a", "--json"], "--json does not apply to 'plugin-host check'"),
        (["inspect"], "inspect takes one plugin file"),
        (["new", "a/b"], "plugin name \"a/b\" may hold only ASCII letters, digits, '.', '_' and '-', and must start with a letter or digit"),
        (["--jobs", "0", "--dir", "a"], "--jobs needs a whole number from 1 to 128, not '0'"),
        (["list", "--dir", "a", "--watch"], "--watch does not apply to 'plugin-host list'"),
        (["--dir", "a", "--health-interval", "soon"], "--health-interval needs a number of seconds (0 for never), not 'soon'"),
        (["--dir", "a", "--service"], "--service does not apply to 'plugin-host run'"),
    ])
    func usageErrors(arguments: [String], message: String) throws {
        let error = try #require(throws: UsageError.self) { try parse(arguments) }
        #expect(error.message == message)
    }
}
