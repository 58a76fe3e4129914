/// What the command line asks for.
enum Command: Equatable {
    /// Load and run the plugins (the default).
    case run(RunOptions)
    /// One line per plugin, without loading any.
    case list(SearchOptions, json: Bool)
    /// Everything known about one plugin file, without loading it.
    case inspect(file: String, json: Bool)
    /// Resolve the graph and report every problem, without loading anything.
    case check(SearchOptions)
    /// The dependency graph as Graphviz DOT, without loading anything.
    case graph(SearchOptions)
    /// Write a new plugin project.
    case new(NewPluginOptions)
    /// Check a manifest and write the Swift source that embeds it (for SwiftPM's build).
    case embedManifest(EmbedManifestOptions)
    /// Check that a plugin being built keeps the API of its installed build.
    case checkAPI(CheckAPIOptions)
    case install(InstallOptions)
    /// Ask a running host (`status`, `reload`, `restart`, ...), its answer shown as `shown`.
    case control(ControlRequest, ControlOptions, shown: AnswerShown)
    /// What a running host serves, as `list`, `inspect` or `graph` show files: `--running`.
    case running(RunningView, ControlOptions)
    /// What the record of a set of plugin directories holds: `plugin-host history`.
    case history(HistoryOptions)
    case help
    /// The help of one command: `plugin-host COMMAND --help`, `plugin-host help COMMAND`.
    case commandHelp(String)
    case version
}

/// The command line is not one `plugin-host` understands.
struct UsageError: Error, Equatable, CustomStringConvertible {
    let message: String

    var description: String { message }
}

extension Command {
    /// The subcommands (``CommandTable``); anything else is a run.
    static var subcommands: Set<String> { CommandTable.names }

    /// Parses the arguments that follow the program name: the command's entry in
    /// ``CommandTable`` says which options it takes and makes the command of them.
    ///
    /// Options take their value as the next argument or after `=` (`--dir plugins`,
    /// `--dir=plugins`). `--help` and `--version` win over everything else.
    ///
    /// - Parameters:
    ///   - arguments: The arguments, without the program name.
    ///   - searchPath: The value of `PLUGIN_HOST_PATH`, if set.
    ///   - defaultDirectory: The plugin directory searched when `--dir` is not given.
    /// - Throws: ``UsageError``.
    init(parsing arguments: [String], searchPath: String? = nil, defaultDirectory: String?) throws(UsageError) {
        if arguments.first == "help" {
            guard let name = arguments.dropFirst().first.map({ $0 == "--help" || $0 == "-h" ? "help" : $0 }) else {
                self = .help
                return
            }
            guard arguments.count == 2, Self.subcommands.contains(name) else {
                throw UsageError(message: arguments.count > 2 ? "help takes one command"
                    : "no command '\(name.debugEscaped)'; the commands are " + Self.subcommands.sorted().joined(separator: ", "))
            }
            self = .commandHelp(name)
            return
        }
        if arguments.contains(where: { $0 == "--help" || $0 == "-h" }) {
            self = arguments.first.flatMap { Self.subcommands.contains($0) ? .commandHelp($0) : nil } ?? .help
            return
        }
        if arguments.contains("--version") {
            self = .version
            return
        }
        let named = arguments.first.flatMap(CommandTable.entry)
        guard let entry = named ?? CommandTable.entry("run") else { throw UsageError(message: "no command 'run' in this build") }
        let parsed = try ParsedArguments(
            arguments.dropFirst(named == nil ? 0 : 1), for: entry, searchPath: searchPath, defaultDirectory: defaultDirectory)
        self = try entry.make(parsed)
    }
}
