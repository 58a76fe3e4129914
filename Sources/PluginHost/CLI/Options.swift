/// What the command line asks for.
enum Command: Equatable {
    case run(RunOptions)
    case help
    case version
}

/// The options of a run.
struct RunOptions: Equatable {
    /// The directory to load plugins from.
    var directory: String
    /// The configuration file, if any.
    var configurationFile: String?
    /// Print the report as JSON instead of text.
    var json = false
}

/// The command line is not one `plugin-host` understands.
struct UsageError: Error, Equatable, CustomStringConvertible {
    let message: String

    var description: String { message }
}

extension Command {
    /// Parses the arguments that follow the program name.
    ///
    /// Options take their value as the next argument or after `=` (`--dir plugins`,
    /// `--dir=plugins`). `--help` and `--version` win over everything else.
    ///
    /// - Parameters:
    ///   - arguments: The arguments, without the program name.
    ///   - defaultDirectory: The plugin directory used when `--dir` is not given.
    /// - Throws: ``UsageError``.
    init(parsing arguments: [String], defaultDirectory: String?) throws(UsageError) {
        if arguments.contains(where: { $0 == "--help" || $0 == "-h" }) {
            self = .help
            return
        }
        if arguments.contains("--version") {
            self = .version
            return
        }
        var directory: String?
        var configurationFile: String?
        var json = false
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            var name = argument
            var inlineValue: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            func value() throws(UsageError) -> String {
                if let inlineValue { return inlineValue }
                guard let next = remaining.popFirst(), !next.hasPrefix("--") else {
                    throw UsageError(message: "option \(name) needs a value")
                }
                return next
            }
            switch name {
            case "--dir":
                guard directory == nil else { throw UsageError(message: "--dir given more than once") }
                directory = try value()
                if directory!.isEmpty { throw UsageError(message: "--dir needs a directory, not an empty string") }
            case "--config":
                guard configurationFile == nil else { throw UsageError(message: "--config given more than once") }
                configurationFile = try value()
            case "--json":
                guard inlineValue == nil else { throw UsageError(message: "--json takes no value") }
                json = true
            default:
                throw UsageError(
                    message: name.hasPrefix("-") ? "unknown option '\(name.debugEscaped)'" : "unexpected argument '\(name.debugEscaped)'")
            }
        }
        guard let directory = directory ?? defaultDirectory else {
            throw UsageError(message: "no plugin directory: give one with --dir")
        }
        self = .run(RunOptions(directory: directory, configurationFile: configurationFile, json: json))
    }
}
