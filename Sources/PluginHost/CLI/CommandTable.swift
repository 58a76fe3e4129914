/// One command of `plugin-host`, declared once: its name, how it is used, the options it
/// takes, what its help says, and whether it asks a running host. The parser, the global
/// help, each command's own help and the usage errors read it; what a command does is its
/// handler's (``PluginHostCommand``), and what a host answers, the machine's.
struct CommandEntry: Sendable {
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
    /// Whether it takes plugin names after its options (`restart Ticker`).
    var takesPluginNames = false

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
            examples: ["plugin-host --dir plugins/", "plugin-host run --dir plugins/ --watch --trial 60 --state /var/lib/app"]),
        CommandEntry(
            name: "list", kind: .files, listing: "list",
            brief: "one line per plugin: name, version, ABI, requires, file, loadable or why not", usage: ["list [--dir DIR]... [--json]", running],
            options: search.union(["--json", "--running", "--control"]),
            summary: "One line per plugin: name, version, ABI, requires, file, and whether it would load, read\n"
                + "from the files without loading any; with --running, the builds a running host serves.",
            examples: ["plugin-host list --dir plugins/", "plugin-host list --running --dir plugins/"]),
        CommandEntry(
            name: "inspect", kind: .files, listing: "inspect FILE",
            brief: "the whole manifest of one plugin file, with its path, size and time", usage: ["inspect [--json] FILE", running],
            options: ["--json", "--running", "--control", "--dir"],
            summary: "Everything one plugin file's manifest holds, with its path, size and time, without loading\n"
                + "it; inspect NAME --running shows the build a running host serves.",
            examples: ["plugin-host inspect plugins/libDomain.so", "plugin-host inspect Domain --running --dir plugins/"]),
        CommandEntry(
            name: "check", kind: .files, listing: "check",
            brief: "report every problem; exit 0 if the plugins would bootstrap, else 1", usage: ["check [--dir DIR]..."], options: search,
            summary: "Reports every problem of the plugin directories at once; exit 0 when the plugins would\n"
                + "bootstrap, 1 when not. No plugin is loaded.",
            examples: ["plugin-host check --dir plugins/"]),
        CommandEntry(
            name: "graph", kind: .files, listing: "graph",
            brief: "the dependency graph as Graphviz DOT (problems in red)", usage: ["graph [--dir DIR]...", running],
            options: search.union(["--running", "--control"]),
            summary: "The dependency graph as Graphviz DOT, problems in red; with --running, what a running host\n"
                + "serves, each plugin that does not serve in red (an optional one nobody installed in grey).",
            examples: ["plugin-host graph --dir plugins/ | dot -Tsvg > plugins.svg"]),
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
            examples: ["plugin-host new Ripener --requires Domain", "plugin-host new Pulse --service --optional Metrics --into ~/src"]),
        CommandEntry(
            name: "embed-manifest", kind: .files, listing: "embed-manifest MANIFEST --output FILE.swift [--plugin NAME]",
            brief: "check a plugin's manifest.json as the host reads it and write the\n"
                + "Swift constant that embeds it (SwiftPM's build runs it; exit 1 with\n"
                + "what is wrong)", usage: ["embed-manifest MANIFEST --output FILE.swift [--plugin NAME]"],
            options: ["--output", "--plugin"],
            summary: "Checks a plugin's manifest.json as the host reads it and writes the Swift constant that\n"
                + "embeds it; SwiftPM's build of a project from new runs it. Exit 1 with what is wrong.",
            examples: ["plugin-host embed-manifest manifest.json --output .build/Manifest.swift --plugin Ripener"]),
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
            examples: ["plugin-host check-api manifest.json --interface build/Ripener.swiftinterface --dir /srv/app/plugins"]),
        CommandEntry(
            name: "install", kind: .files, listing: "install FILE.so [--interface FILE.swiftinterface] [--dir DIR]",
            brief: "check a built plugin against the directory (ABI, requirements,\n"
                + "ranges, API), then rename it and its interface in; exit 1 and\n"
                + "nothing changed when refused", usage: ["install FILE.so [--interface FILE.swiftinterface] [--dir DIR]"],
            options: ["--interface", "--dir"],
            summary: "Checks a built plugin against a plugin directory (ABI, requirements, version ranges, API),\n"
                + "then renames it and its module interface in; exit 1 and nothing changed when refused.",
            examples: ["plugin-host install .build/release/libRipener.so", "plugin-host install build/libRipener.so --dir /srv/app/plugins"]),
        CommandEntry(
            name: "status", kind: .runningHost, listing: "status",
            brief: "its state, generations, plugins and the builds that run, restarts,\n"
                + "last reload and upgrade, warnings; --json (schema 1), --follow (a\n"
                + "line per change until interrupted), --metrics (Prometheus text)", usage: ["status \(askingUsage) [--json] [--follow | --metrics]"],
            options: asking.union(["--follow", "--metrics"]),
            summary: "The state of a running host: its generations, each plugin and the build that runs, trials,\n"
                + "restarts, the last reload and upgrade, warnings.",
            examples: ["plugin-host status --dir plugins/", "plugin-host status --metrics --control /run/plugin-host/app.sock"]),
        CommandEntry(
            name: "reload", kind: .runningHost, listing: "reload",
            brief: "what SIGHUP does, waiting for the outcome: exit 0 applied, 1 refused", usage: [reloadOrStop], options: asking,
            summary: "What SIGHUP does, answered when done: the configuration is read again and every component\n"
                + "reloads (or none); exit 0 applied, 1 refused. A build left out stays out.",
            examples: ["plugin-host reload --dir plugins/"]),
        CommandEntry(
            name: "restart", kind: .runningHost, listing: "restart [PLUGIN]...",
            brief: "a new generation beside the serving one; the plugins named are tried\n"
                + "again if left out; exit 0 once it serves", usage: [aboutBuilds], options: asking,
            summary: "A new generation loads beside the serving one and takes over; the plugins named are tried\n"
                + "again if left out. Exit 0 once it serves.",
            examples: ["plugin-host restart --dir plugins/", "plugin-host restart Ticker --dir plugins/"],
            takesPluginNames: true),
        CommandEntry(
            name: "accept", kind: .runningHost, listing: "accept [PLUGIN]...",
            brief: "the builds on trial of the plugins named (all, when none is) are\n"
                + "permanent now; the builds before are let go", usage: [aboutBuilds], options: asking,
            summary: "The builds on trial of the plugins named (every one, when none is) are permanent now.",
            examples: ["plugin-host accept Ticker --dir plugins/"],
            takesPluginNames: true),
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
            takesPluginNames: true),
        CommandEntry(
            name: "stop", kind: .runningHost, listing: "stop",
            brief: "what SIGTERM does, waiting for the end; prints the exit status", usage: [reloadOrStop], options: asking,
            summary: "What SIGTERM does, answered when the host has ended: prints its exit status.",
            examples: ["plugin-host stop --dir plugins/"]),
        CommandEntry(
            name: "history", kind: .record, listing: "history [PLUGIN]",
            brief: "each build on trial, permanent (newest first; copies kept) and\n"
                + "left out with why, and since when; --json", usage: ["history [--dir DIR]... [--state DIR] [--json] [PLUGIN]"],
            options: ["--dir", "--state", "--json"],
            summary: "What the record of these plugin directories holds, whether a host runs or not: each build\n"
                + "on trial, the permanent builds (newest first), the builds left out and why, since when.",
            examples: ["plugin-host history --dir plugins/", "plugin-host history Ticker --dir plugins/ --json"]),
        CommandEntry(
            name: "help", kind: .help, listing: "help [COMMAND]",
            brief: "the help of a command", usage: ["help [COMMAND] | COMMAND --help"], options: [],
            summary: "The help of a command, as COMMAND --help prints it; with no command, the help of them all.",
            examples: ["plugin-host help rollback"]),
    ]
}
