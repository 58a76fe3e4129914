/// One command of `plugin-host`, declared once: its name, how it is used, the options it
/// takes, what its help says, and whether it asks a running host. The parser, the global
/// help, each command's own help and the usage errors read it; what a command does is its
/// handler's (``PluginHostCommand``), and what a host answers, the machine's.
struct CommandEntry: Sendable {
    /// Makes the command of what its command line gave, or says what is wrong with it.
    typealias Maker = @Sendable (ParsedArguments) throws(UsageError) -> Command

    /// What a command works on, which is the list of the global help it is in.
    enum Kind: Sendable {
        /// Plugin files and projects; no host need run.
        case files
        /// A running host, asked through its control socket (`--dir` or `--control` name which).
        case runningHost
        /// The record of what hosts of the plugin directories proved.
        case record
        /// The help itself.
        case help
    }

    let name: String
    let kind: Kind
    /// How the global help lists it (`inspect FILE`), and what it does there, in a line or a
    /// few: `the whole manifest of one plugin file, with its path, size and time`.
    let listing: String
    let brief: String
    /// Its usage lines, as the help prints them after `plugin-host `; a line that begins with
    /// a space continues the one before, and a line several commands share
    /// (`reload | stop ...`) is given to each of them.
    let usage: [String]
    /// The options it takes (`--dir`), each described once in the global help.
    let options: Set<String>
    /// What it does, in a few lines: the head of its own help.
    let summary: String
    let examples: [String]
    /// The command it makes of its command line: its options checked together, its
    /// arguments counted.
    let make: Maker

    /// Whether it asks a running host through its control socket.
    var asksHost: Bool { kind == .runningHost }
}

/// Every command, in the order the help lists them.
enum CommandTable {
    /// The entry named `name`, if a command is.
    static func entry(_ name: String) -> CommandEntry? {
        all.first { $0.name == name }
    }

    /// The commands' names; anything else on a command line is a run's.
    static let names = Set(all.map(\.name))

    /// The usage of every command, each line once, in the order of the table: `Usage:
    /// plugin-host [run] ...`, then a line per command, continuations under their arguments.
    static var usage: String {
        var seen: Set<String> = []
        let lines = all.flatMap(\.usage).filter { seen.insert($0).inserted }
        return lines.enumerated().map { index, line in
            if line.hasPrefix(" ") { return String(repeating: " ", count: 19) + line.trimmingSpaces }
            return (index == 0 ? "Usage: " : "       ") + "plugin-host " + line
        }.joined(separator: "\n") + "\n"
    }

    /// The global help's list of the commands of `kind`: each as it is listed, and what it
    /// does beside it, or under it when the listing is long.
    static func listing(of kind: CommandEntry.Kind) -> String {
        let column = 17
        return all.filter { $0.kind == kind }.map { entry in
            let lines = entry.brief.split(separator: "\n").map(String.init)
            let head = "  " + entry.listing
            let indent = String(repeating: " ", count: column)
            let first = head.count <= column - 2
                ? head + String(repeating: " ", count: column - head.count) + (lines.first ?? "")
                : head + "\n" + indent + (lines.first ?? "")
            return first + "\n" + lines.dropFirst().map { indent + $0 + "\n" }.joined()
        }.joined()
    }

    private static let search: Set<String> = ["--dir", "--allow-any-owner"]
    private static let asking: Set<String> = ["--dir", "--control", "--json"]
    private static let askingUsage = "[--dir DIR | --control PATH]"
    private static let running = "list | graph | inspect NAME --running \(askingUsage)"
    private static let reloadOrStop = "reload | stop \(askingUsage) [--json]"
    private static let aboutBuilds = "restart | accept | rollback \(askingUsage) [--json] [PLUGIN]..."

    static let all: [CommandEntry] = [
        CommandEntry(
            name: "run", kind: .files, listing: "run",
            brief: "load and run the plugins (the default)",
            usage: [
                "[run] [--dir DIR]... [--config FILE] [--json] [--keep-going] [--jobs N]",
                " [--timeout SECONDS] [--shutdown-timeout SECONDS] [--timeline FILE.svg] [--allow-any-owner]",
                " [--watch] [--health-interval SECONDS] [--restart on-failure|no] [--restart-limit N/SECONDS]",
                " [--restart-delay SECONDS] [--restart-max-delay SECONDS] [--trial SECONDS] [--state DIR]",
                " [--listen NAME=ADDRESS]... [--control PATH] [--metrics-listen ADDRESS]",
            ],
            options: search.union([
                "--config", "--json", "--keep-going", "--timeout", "--jobs", "--shutdown-timeout", "--timeline", "--watch",
                "--health-interval", "--restart", "--restart-limit", "--restart-delay", "--restart-max-delay", "--trial", "--state",
                "--listen", "--control", "--metrics-listen",
            ]),
            summary: "Loads the plugins of the plugin directories in the order their requirements give, bootstraps\n"
                + "each, runs their services until asked to stop, then drains and shuts them down. It is what\n"
                + "plugin-host does with no command. Plugin code runs only in worker processes the supervisor\n"
                + "watches; see docs/operations.md.",
            examples: ["plugin-host --dir plugins/", "plugin-host run --dir plugins/ --watch --trial 60 --state /var/lib/app"],
            make: { arguments throws(UsageError) in
                try arguments.noArguments()
                var run = arguments.run
                run.search = try arguments.pluginDirectories()
                run.json = arguments.json
                run.control = arguments.control
                return .run(run)
            }),
        CommandEntry(
            name: "list", kind: .files, listing: "list",
            brief: "one line per plugin: name, version, ABI, requires, file, loadable or why not", usage: ["list [--dir DIR]... [--json]", running],
            options: search.union(["--json", "--running", "--control"]),
            summary: "One line per plugin: name, version, ABI, requires, file, and whether it would load, read\n"
                + "from the files without loading any; with --running, the builds a running host serves.",
            examples: ["plugin-host list --dir plugins/", "plugin-host list --running --dir plugins/"],
            make: { arguments throws(UsageError) in
                if arguments.running { return try .running(.list, arguments.hostAskedForNothingMore()) }
                try arguments.asksNoHost()
                try arguments.noArguments()
                return .list(try arguments.pluginDirectories(), json: arguments.json)
            }),
        CommandEntry(
            name: "inspect", kind: .files, listing: "inspect FILE",
            brief: "the whole manifest of one plugin file, with its path, size and time", usage: ["inspect [--json] FILE", running],
            options: ["--json", "--running", "--control", "--dir"],
            summary: "Everything one plugin file's manifest holds, with its path, size and time, without loading\n"
                + "it; inspect NAME --running shows the build a running host serves.",
            examples: ["plugin-host inspect plugins/libDomain.so", "plugin-host inspect Domain --running --dir plugins/"],
            make: { arguments throws(UsageError) in
                if arguments.running {
                    let host = try arguments.host()
                    return .running(.inspect(try arguments.oneArgument("inspect --running takes one plugin name")), host)
                }
                try arguments.asksNoHost()
                guard arguments.directories.isEmpty else {
                    throw UsageError(message: "--dir does not apply to 'plugin-host inspect FILE'; it takes the file's path")
                }
                return .inspect(file: try arguments.oneArgument("inspect takes one plugin file"), json: arguments.json)
            }),
        CommandEntry(
            name: "check", kind: .files, listing: "check",
            brief: "report every problem; exit 0 if the plugins would bootstrap, else 1", usage: ["check [--dir DIR]..."], options: search,
            summary: "Reports every problem of the plugin directories at once; exit 0 when the plugins would\n"
                + "bootstrap, 1 when not. No plugin is loaded.",
            examples: ["plugin-host check --dir plugins/"],
            make: { arguments throws(UsageError) in
                try arguments.noArguments()
                return .check(try arguments.pluginDirectories())
            }),
        CommandEntry(
            name: "graph", kind: .files, listing: "graph",
            brief: "the dependency graph as Graphviz DOT (problems in red)", usage: ["graph [--dir DIR]...", running],
            options: search.union(["--running", "--control"]),
            summary: "The dependency graph as Graphviz DOT, problems in red; with --running, what a running host\n"
                + "serves, each plugin that does not serve in red (an optional one nobody installed in grey).",
            examples: ["plugin-host graph --dir plugins/ | dot -Tsvg > plugins.svg"],
            make: { arguments throws(UsageError) in
                if arguments.running { return try .running(.graph, arguments.hostAskedForNothingMore()) }
                try arguments.asksNoHost()
                try arguments.noArguments()
                return .graph(try arguments.pluginDirectories())
            }),
        CommandEntry(
            name: "new", kind: .files, listing: "new NAME",
            brief: "write a plugin project (Package.swift, manifest, source, tests, Makefile)\n"
                + "that builds against this install with `swift build` or `make`;\n"
                + "--requires A,B (linked), --optional C,D (looked up if present),\n"
                + "--service (a component that runs a service and handles readiness,\n"
                + "health and drain); --into DIR", usage: ["new NAME [--requires A,B] [--optional C,D] [--service] [--into DIR]"],
            options: ["--requires", "--optional", "--service", "--into"],
            summary: "Writes a plugin project, NAME/, that builds, tests and installs against this install tree\n"
                + "with no edit (swift build or make). A required plugin must be installed in the tree.",
            examples: ["plugin-host new Ripener --requires Domain", "plugin-host new Pulse --service --optional Metrics --into ~/src"],
            make: { arguments throws(UsageError) in .new(try NewPluginOptions(arguments)) }),
        CommandEntry(
            name: "embed-manifest", kind: .files, listing: "embed-manifest MANIFEST --output FILE.swift [--plugin NAME]",
            brief: "check a plugin's manifest.json as the host reads it and write the\n"
                + "Swift constant that embeds it (SwiftPM's build runs it; exit 1 with\n"
                + "what is wrong)", usage: ["embed-manifest MANIFEST --output FILE.swift [--plugin NAME]"],
            options: ["--output", "--plugin"],
            summary: "Checks a plugin's manifest.json as the host reads it and writes the Swift constant that\n"
                + "embeds it; SwiftPM's build of a project from new runs it. Exit 1 with what is wrong.",
            examples: ["plugin-host embed-manifest manifest.json --output .build/Manifest.swift --plugin Ripener"],
            make: { arguments throws(UsageError) in
                guard arguments.positional.count == 1, let output = arguments.output, !output.isEmpty else {
                    throw UsageError(message: "embed-manifest takes one manifest.json and --output FILE.swift")
                }
                if let plugin = arguments.plugin, let problem = PluginManifest.problem(withName: plugin) {
                    throw UsageError(message: "--plugin: \(problem)")
                }
                return .embedManifest(EmbedManifestOptions(manifest: arguments.positional[0], output: output, plugin: arguments.plugin))
            }),
        CommandEntry(
            name: "check-api", kind: .files, listing: "check-api MANIFEST (--interface FILE.swiftinterface | SOURCE.swift...) [--dir DIR]",
            brief: "compare a plugin's public API with its build installed last in the\n"
                + "plugin directory (--dir, else this tree's);\n"
                + "within the same major version, exit 1 naming each declaration\n"
                + "removed or changed (both builds of a new project run it)",
            usage: ["check-api MANIFEST (--interface FILE.swiftinterface | SOURCE.swift...) [--dir DIR] [--output FILE.swift]"],
            options: ["--output", "--interface", "--dir"],
            summary: "Compares a plugin's public API with the build of it installed last in a plugin directory;\n"
                + "within the same major version, exit 1 naming each declaration removed or changed.",
            examples: ["plugin-host check-api manifest.json --interface build/Ripener.swiftinterface --dir /srv/app/plugins"],
            make: { arguments throws(UsageError) in
                guard let manifest = arguments.positional.first, (arguments.interface == nil) != (arguments.positional.count == 1) else {
                    throw UsageError(message: "check-api takes a manifest.json, then --interface FILE.swiftinterface or the plugin's Swift sources")
                }
                guard arguments.directories.count <= 1 else {
                    throw UsageError(message: "check-api takes one --dir: the plugin directory whose installed build it compares with")
                }
                return .checkAPI(CheckAPIOptions(
                    manifest: manifest, interface: arguments.interface, sources: Array(arguments.positional.dropFirst()), output: arguments.output,
                    directory: arguments.directories.first))
            }),
        CommandEntry(
            name: "install", kind: .files, listing: "install FILE.so [--interface FILE.swiftinterface] [--dir DIR]",
            brief: "check a built plugin against the directory (ABI, requirements,\n"
                + "ranges, API), then rename it and its interface in; exit 1 and\n"
                + "nothing changed when refused", usage: ["install FILE.so [--interface FILE.swiftinterface] [--dir DIR]"],
            options: ["--interface", "--dir"],
            summary: "Checks a built plugin against a plugin directory (ABI, requirements, version ranges, API),\n"
                + "then renames it and its module interface in; exit 1 and nothing changed when refused.",
            examples: ["plugin-host install .build/release/libRipener.so", "plugin-host install build/libRipener.so --dir /srv/app/plugins"],
            make: { arguments throws(UsageError) in
                let file = try arguments.oneArgument(
                    "install takes one plugin library (libNAME.so), then --interface FILE.swiftinterface and --dir DIR if needed")
                guard arguments.directories.count <= 1 else { throw UsageError(message: "install takes one --dir") }
                return .install(InstallOptions(file: file, interface: arguments.interface, directory: arguments.directories.first))
            }),
        CommandEntry(
            name: "status", kind: .runningHost, listing: "status",
            brief: "its state, generations, plugins and the builds that run, restarts,\n"
                + "last reload and upgrade, warnings; --json (schema 1), --follow (a\n"
                + "line per change until interrupted), --metrics (Prometheus text)", usage: ["status \(askingUsage) [--json] [--follow | --metrics]"],
            options: asking.union(["--follow", "--metrics"]),
            summary: "The state of a running host: its generations, each plugin and the build that runs, trials,\n"
                + "restarts, the last reload and upgrade, warnings.",
            examples: ["plugin-host status --dir plugins/", "plugin-host status --metrics --control /run/plugin-host/app.sock"],
            make: { arguments throws(UsageError) in
                let host = try arguments.host()
                if arguments.follow && arguments.metrics { throw UsageError(message: "--follow and --metrics do not go together") }
                try arguments.noArguments()
                if arguments.follow { return .control(.follow, host, shown: .changes) }
                if arguments.metrics { return .control(.metrics, host, shown: .metrics) }
                return .control(.status, host, shown: .status)
            }),
        CommandEntry(
            name: "wait", kind: .runningHost, listing: "wait",
            brief: "until the host is up and serves, no generation on its way in; then\n"
                + "its status as status prints it; exit 1 if it stops first", usage: ["wait \(askingUsage) [--json]"], options: asking,
            summary: "Waits until the host serves: a generation serves and none is on its way in (a start, a\n"
                + "restart, an upgrade). Prints the status then, as status does, and exits 0; exits 1 when the\n"
                + "host stops first. A host not up yet is waited for too: give up with timeout(1).",
            examples: ["plugin-host wait --dir plugins/", "plugin-host wait --control /run/plugin-host/app.sock --json"],
            make: { arguments throws(UsageError) in try .control(.wait, arguments.hostAskedForNothingMore(), shown: .status) }),
        CommandEntry(
            name: "reload", kind: .runningHost, listing: "reload",
            brief: "what SIGHUP does, waiting for the outcome: exit 0 applied, 1 refused", usage: [reloadOrStop], options: asking,
            summary: "What SIGHUP does, answered when done: the configuration is read again and every component\n"
                + "reloads (or none); exit 0 applied, 1 refused. A build left out stays out.",
            examples: ["plugin-host reload --dir plugins/"],
            make: { arguments throws(UsageError) in try .control(.reload, arguments.hostAskedForNothingMore(), shown: .outcome) }),
        CommandEntry(
            name: "restart", kind: .runningHost, listing: "restart [PLUGIN]...",
            brief: "a new generation beside the serving one; the plugins named are tried\n"
                + "again if left out; exit 0 once it serves", usage: [aboutBuilds], options: asking,
            summary: "A new generation loads beside the serving one and takes over; the plugins named are tried\n"
                + "again if left out. Exit 0 once it serves.",
            examples: ["plugin-host restart --dir plugins/", "plugin-host restart Ticker --dir plugins/"],
            make: { arguments throws(UsageError) in try .control(.restart(arguments.positional), arguments.host(), shown: .outcome) }),
        CommandEntry(
            name: "accept", kind: .runningHost, listing: "accept [PLUGIN]...",
            brief: "the builds on trial of the plugins named (all, when none is) are\n"
                + "permanent now; the builds before are let go", usage: [aboutBuilds], options: asking,
            summary: "The builds on trial of the plugins named (every one, when none is) are permanent now.",
            examples: ["plugin-host accept Ticker --dir plugins/"],
            make: { arguments throws(UsageError) in try .control(.accept(arguments.positional), arguments.host(), shown: .outcome) }),
        CommandEntry(
            name: "rollback", kind: .runningHost, listing: "rollback [PLUGIN]... [--to VERSION]",
            brief: "the builds that run of the plugins named (every build on trial,\n"
                + "when none is) are left out now and the builds before come back:\n"
                + "the build a trial replaced, else the newest permanent build kept\n"
                + "before, or the kept build of VERSION; exit 0 once the generation\n"
                + "that brings them back serves", usage: [aboutBuilds, "rollback PLUGIN --to VERSION \(askingUsage) [--json]"],
            options: asking.union(["--to"]),
            summary: "The builds that run of the plugins named (every build on trial, when none is) are left out,\n"
                + "and the builds before come back: the build a trial replaced, else the newest permanent build\n"
                + "kept before, or the kept build of --to VERSION. Exit 0 once they serve.",
            examples: ["plugin-host rollback Ticker --dir plugins/", "plugin-host rollback Ticker --to 0.1.0 --dir plugins/"],
            make: { arguments throws(UsageError) in
                let host = try arguments.host()
                if arguments.rollbackTarget != nil, arguments.positional.count != 1 {
                    throw UsageError(message: "rollback --to VERSION takes one plugin name")
                }
                return .control(.rollBack(arguments.positional, to: arguments.rollbackTarget), host, shown: .outcome)
            }),
        CommandEntry(
            name: "stop", kind: .runningHost, listing: "stop",
            brief: "what SIGTERM does, waiting for the end; prints the exit status", usage: [reloadOrStop], options: asking,
            summary: "What SIGTERM does, answered when the host has ended: prints its exit status.",
            examples: ["plugin-host stop --dir plugins/"],
            make: { arguments throws(UsageError) in try .control(.stop, arguments.hostAskedForNothingMore(), shown: .outcome) }),
        CommandEntry(
            name: "upgrade-host", kind: .runningHost, listing: "upgrade-host",
            brief: "start the plugin-host now installed as the new host, on trial,\n"
                + "with the old one kept to serve again", usage: ["upgrade-host [--dir DIR]... [--control PATH] [--json]"], options: asking,
            summary: "Replaces the running host by the plugin-host binary now installed at the path it was started\n"
                + "from, with no gap: the new host takes the sockets, loads the plugins beside the running ones\n"
                + "and takes over as an upgrade's generation does; the old host keeps what it needs to serve again\n"
                + "until the new host's trial (--trial) passes, and serves again by itself if the new host fails.\n"
                + "Exits 0 once the new host serves; 1, with why, when the file is refused or the new host fails first.\n"
                + "SIGUSR2 to the supervisor asks for the same, with no answer (systemctl kill -s USR2 --kill-who=main).",
            examples: ["plugin-host upgrade-host --dir plugins/"],
            make: { arguments throws(UsageError) in try .control(.upgradeHost, arguments.hostAskedForNothingMore(), shown: .outcome) }),
        CommandEntry(
            name: "history", kind: .record, listing: "history [PLUGIN]",
            brief: "each build on trial, permanent (newest first; copies kept) and\n"
                + "left out with why, and since when; --json", usage: ["history [--dir DIR]... [--state DIR] [--json] [PLUGIN]"],
            options: ["--dir", "--state", "--json"],
            summary: "What the record of these plugin directories holds, whether a host runs or not: each build\n"
                + "on trial, the permanent builds (newest first), the builds left out and why, since when.",
            examples: ["plugin-host history --dir plugins/", "plugin-host history Ticker --dir plugins/ --json"],
            make: { arguments throws(UsageError) in
                guard arguments.positional.count <= 1 else { throw UsageError(message: "history takes at most one plugin name") }
                return .history(HistoryOptions(
                    search: try arguments.pluginDirectories(), state: arguments.run.state, plugin: arguments.positional.first, json: arguments.json))
            }),
        CommandEntry(
            name: "help", kind: .help, listing: "help [COMMAND]",
            brief: "the help of a command", usage: ["help [COMMAND] | COMMAND --help"], options: [],
            summary: "The help of a command, as COMMAND --help prints it; with no command, the help of them all.",
            examples: ["plugin-host help rollback"],
            make: { _ throws(UsageError) in .help }),
    ]
}
