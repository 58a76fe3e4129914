/// The help of one command (`plugin-host COMMAND --help`, `plugin-host help COMMAND`): its
/// usage, what it does, the options it takes, each described as the global help describes it,
/// and an example or two.
struct CommandHelp {
    let name: String
    /// What it does, in a few lines.
    let summary: String
    let examples: [String]

    /// The help of `name`, if it is a command.
    static func of(_ name: String) -> CommandHelp? {
        all.first { $0.name == name }
    }

    /// The text printed, the options described with the global help's words.
    func text(defaultDirectory: String?) -> String {
        // A usage line of the command, and the lines that continue it.
        var usage: [String] = []
        var ofThis = false
        for line in HelpText.usage.split(separator: "\n").map({ $0.trimmingSpaces }) {
            if line.contains("plugin-host") { ofThis = Self.commands(of: line).contains(name) }
            guard ofThis else { continue }
            usage.append((line.contains("plugin-host") ? "  " : "              ") + (line.hasPrefix("Usage: ") ? String(line.dropFirst("Usage: ".count)) : line))
        }
        let descriptions = HelpText.optionDescriptions(defaultDirectory: defaultDirectory)
        let options = (Command.options[name] ?? []).sorted().compactMap { descriptions[$0] } + [descriptions["--help"] ?? ""]
        return "Usage:\n" + usage.joined(separator: "\n") + "\n\n" + summary + "\n\nOptions:\n" + options.joined()
            + "\nExamples:\n" + examples.map { "  \($0)\n" }.joined() + "\nAll commands: plugin-host --help; docs/cli.md has more.\n"
    }

    /// The commands a usage line is of: `plugin-host reload | stop ...` is of both; the
    /// first line, with no command, is of `run`.
    private static func commands(of line: String) -> [String] {
        let words = line.split(separator: " ").map(String.init)
        guard let start = words.firstIndex(of: "plugin-host") else { return [] }
        var found: [String] = []
        var index = start + 1
        while index < words.count, Command.subcommands.contains(words[index]) {
            found.append(words[index])
            index += 1
            if index < words.count, words[index] == "|" { index += 1 }
        }
        if line.hasPrefix("Usage: plugin-host [run]") { found.append("run") }
        return found
    }

    static let all: [CommandHelp] = [
        CommandHelp(
            name: "run",
            summary: "Loads the plugins of the plugin directories in the order their requirements give, bootstraps\n"
                + "each, runs their services until asked to stop, then drains and shuts them down. It is what\n"
                + "plugin-host does with no command. Plugin code runs only in worker processes the supervisor\n"
                + "watches; see docs/operations.md.",
            examples: ["plugin-host --dir plugins/", "plugin-host run --dir plugins/ --watch --trial 60 --state /var/lib/app"]),
        CommandHelp(
            name: "list", summary: "One line per plugin: name, version, ABI, requires, file, and whether it would load, read\nfrom the files without loading any; with --running, the builds a running host serves.",
            examples: ["plugin-host list --dir plugins/", "plugin-host list --running --dir plugins/"]),
        CommandHelp(
            name: "inspect", summary: "Everything one plugin file's manifest holds, with its path, size and time, without loading\nit; inspect NAME --running shows the build a running host serves.",
            examples: ["plugin-host inspect plugins/libDomain.so", "plugin-host inspect Domain --running --dir plugins/"]),
        CommandHelp(
            name: "check", summary: "Reports every problem of the plugin directories at once; exit 0 when the plugins would\nbootstrap, 1 when not. No plugin is loaded.",
            examples: ["plugin-host check --dir plugins/"]),
        CommandHelp(
            name: "graph", summary: "The dependency graph as Graphviz DOT, problems in red; with --running, what a running host\nserves, each plugin that does not serve in red (an optional one nobody installed in grey).",
            examples: ["plugin-host graph --dir plugins/ | dot -Tsvg > plugins.svg"]),
        CommandHelp(
            name: "new", summary: "Writes a plugin project, NAME/, that builds, tests and installs against this install tree\nwith no edit (swift build or make). A required plugin must be installed in the tree.",
            examples: ["plugin-host new Ripener --requires Domain", "plugin-host new Pulse --service --optional Metrics --into ~/src"]),
        CommandHelp(
            name: "embed-manifest", summary: "Checks a plugin's manifest.json as the host reads it and writes the Swift constant that\nembeds it; SwiftPM's build of a project from new runs it. Exit 1 with what is wrong.",
            examples: ["plugin-host embed-manifest manifest.json --output .build/Manifest.swift --plugin Ripener"]),
        CommandHelp(
            name: "check-api", summary: "Compares a plugin's public API with the build of it installed last in a plugin directory;\nwithin the same major version, exit 1 naming each declaration removed or changed.",
            examples: ["plugin-host check-api manifest.json --interface build/Ripener.swiftinterface --dir /srv/app/plugins"]),
        CommandHelp(
            name: "install", summary: "Checks a built plugin against a plugin directory (ABI, requirements, version ranges, API),\nthen renames it and its module interface in; exit 1 and nothing changed when refused.",
            examples: ["plugin-host install .build/release/libRipener.so", "plugin-host install build/libRipener.so --dir /srv/app/plugins"]),
        CommandHelp(
            name: "status", summary: "The state of a running host: its generations, each plugin and the build that runs, trials,\nrestarts, the last reload and upgrade, warnings.",
            examples: ["plugin-host status --dir plugins/", "plugin-host status --metrics --control /run/plugin-host/app.sock"]),
        CommandHelp(
            name: "reload", summary: "What SIGHUP does, answered when done: the configuration is read again and every component\nreloads (or none); exit 0 applied, 1 refused. A build left out stays out.",
            examples: ["plugin-host reload --dir plugins/"]),
        CommandHelp(
            name: "restart", summary: "A new generation loads beside the serving one and takes over; the plugins named are tried\nagain if left out. Exit 0 once it serves.",
            examples: ["plugin-host restart --dir plugins/", "plugin-host restart Ticker --dir plugins/"]),
        CommandHelp(
            name: "accept", summary: "The builds on trial of the plugins named (every one, when none is) are permanent now.",
            examples: ["plugin-host accept Ticker --dir plugins/"]),
        CommandHelp(
            name: "rollback", summary: "The builds that run of the plugins named (every build on trial, when none is) are left out,\nand the builds before come back: the build a trial replaced, else the newest permanent build\nkept before, or the kept build of --to VERSION. Exit 0 once they serve.",
            examples: ["plugin-host rollback Ticker --dir plugins/", "plugin-host rollback Ticker --to 0.1.0 --dir plugins/"]),
        CommandHelp(
            name: "stop", summary: "What SIGTERM does, answered when the host has ended: prints its exit status.",
            examples: ["plugin-host stop --dir plugins/"]),
        CommandHelp(
            name: "history", summary: "What the record of these plugin directories holds, whether a host runs or not: each build\non trial, the permanent builds (newest first), the builds left out and why, since when.",
            examples: ["plugin-host history --dir plugins/", "plugin-host history Ticker --dir plugins/ --json"]),
        CommandHelp(
            name: "help", summary: "The help of a command, as COMMAND --help prints it; with no command, the help of them all.",
            examples: ["plugin-host help rollback"]),
    ]
}
