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
        #expect(try parse(["embed-manifest", "manifest.json", "--output", "out/PluginManifest.swift", "--plugin", "Peel"])
            == .embedManifest(EmbedManifestOptions(manifest: "manifest.json", output: "out/PluginManifest.swift", plugin: "Peel")))
        #expect(try parse(["check-api", "manifest.json", "--interface", "build/Peel.swiftinterface"])
            == .checkAPI(CheckAPIOptions(manifest: "manifest.json", interface: "build/Peel.swiftinterface")))
        #expect(try parse(["check-api", "manifest.json", "--output", "Check.swift", "A.swift", "B.swift"])
            == .checkAPI(CheckAPIOptions(manifest: "manifest.json", sources: ["A.swift", "B.swift"], output: "Check.swift")))
        #expect(try parse(["history", "--dir", "p"]) == .history(HistoryOptions(search: SearchOptions(directories: ["p"]))))
        #expect(try parse(["history", "Ticker", "--dir", "p", "--state", "/var/lib/ph", "--json"])
            == .history(HistoryOptions(search: SearchOptions(directories: ["p"]), state: "/var/lib/ph", plugin: "Ticker", json: true)))
        #expect(throws: UsageError(message: "history takes at most one plugin name")) { try parse(["history", "Ticker", "Echo", "--dir", "p"]) }
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
        (["embed-manifest", "manifest.json"], "embed-manifest takes one manifest.json and --output FILE.swift"),
        (["check-api", "manifest.json"], "check-api takes a manifest.json, then --interface FILE.swiftinterface or the plugin's Swift sources"),
        (["check-api", "m.json", "--interface", "P.swiftinterface", "A.swift"],
         "check-api takes a manifest.json, then --interface FILE.swiftinterface or the plugin's Swift sources"),
        (["embed-manifest", "--output", "a.swift"], "embed-manifest takes one manifest.json and --output FILE.swift"),
        (["embed-manifest", "m.json", "--output", "a.swift", "--plugin", "lib/x"],
         "--plugin: \"lib/x\" may hold only ASCII letters, digits, '.', '_' and '-', and must start with a letter or digit"),
    ])
    func usageErrors(arguments: [String], message: String) throws {
        let error = try #require(throws: UsageError.self) { try parse(arguments) }
        #expect(error.message == message)
    }

    @Test("status, wait, reload, restart and stop ask the host at --control, or the host of the plugin directories at its default path")
    func controlCommands() throws {
        let atPath = ControlOptions(target: .path("/run/ph.sock"))
        #expect(try parse(["status", "--control", "/run/ph.sock"]) == .control(.status, atPath, shown: .status))
        #expect(try parse(["status", "--dir", "p", "--json"]) == .control(.status, ControlOptions(target: .directories(["p"]), json: true), shown: .status))
        #expect(try parse(["status"], path: "a:b") == .control(.status, ControlOptions(target: .directories(["a", "b"])), shown: .status))
        #expect(try parse(["status", "--control=/run/ph.sock", "--follow"]) == .control(.follow, atPath, shown: .changes))
        #expect(try parse(["status", "--control=/run/ph.sock", "--metrics"]) == .control(.metrics, atPath, shown: .metrics))
        #expect(try parse(["reload", "--control", "/run/ph.sock"]) == .control(.reload, atPath, shown: .outcome))
        #expect(try parse(["restart", "--control", "/run/ph.sock", "Ticker", "Echo"]) == .control(.restart(["Ticker", "Echo"]), atPath, shown: .outcome))
        #expect(try parse(["stop", "--control", "/run/ph.sock"]) == .control(.stop, atPath, shown: .outcome))
        #expect(try parse(["wait", "--control", "/run/ph.sock"]) == .control(.wait, atPath, shown: .status))
        #expect(try parse(["list", "--running", "--dir", "p"]) == .running(.list, ControlOptions(target: .directories(["p"]))))
        #expect(try parse(["inspect", "--running", "Ticker", "--control", "/run/ph.sock"]) == .running(.inspect("Ticker"), atPath))
        #expect(try parse(["graph", "--running", "--control", "/run/ph.sock"]) == .running(.graph, atPath))

        #expect(throws: UsageError(message: "which host? give its --control socket, or its plugin directory with --dir or PLUGIN_HOST_PATH")) {
            try parse(["status"])
        }
        #expect(throws: UsageError(message: "--follow and --metrics do not go together")) {
            try parse(["status", "--dir", "p", "--follow", "--metrics"])
        }
        #expect(throws: UsageError(message: "unexpected argument 'Ticker'")) { try parse(["reload", "--dir", "p", "Ticker"]) }
        #expect(throws: UsageError(message: "--follow does not apply to 'plugin-host reload'")) { try parse(["reload", "--dir", "p", "--follow"]) }
        #expect(throws: UsageError(message: "--running does not apply to 'plugin-host check'")) { try parse(["check", "--dir", "p", "--running"]) }
    }

    @Test("a run takes --control and --metrics-listen")
    func runControlOptions() throws {
        var options = RunOptions(search: SearchOptions(directories: ["p"]))
        options.control = "/run/ph.sock"
        options.metricsListen = ":9464"
        #expect(try parse(["--dir", "p", "--control", "/run/ph.sock", "--metrics-listen", ":9464"]) == .run(options))
        #expect(throws: UsageError(message: "--control needs the path of a socket, not an empty string")) { try parse(["--dir", "p", "--control="]) }
    }
}
