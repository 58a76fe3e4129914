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
    /// Run every plugin that does not depend on a failed one, instead of stopping.
    var keepGoing = false
    /// How long one plugin may take to load or to bootstrap; `nil` for no limit.
    var timeout: Duration? = RunOptions.defaultTimeout
    /// Load plugins owned by users other than the current one and root.
    var allowAnyOwner = false
    /// How many components may bootstrap at once.
    var jobs = RunOptions.defaultJobs
    /// How long one shutdown hook may take; `nil` for no limit.
    var shutdownTimeout: Duration? = RunOptions.defaultShutdownTimeout

    /// The default of `--timeout`.
    static let defaultTimeout: Duration? = .seconds(30)
    /// The default of `--shutdown-timeout`.
    static let defaultShutdownTimeout: Duration? = .seconds(10)
    /// The default of `--jobs`: the number of processors online.
    static var defaultJobs: Int { processorCount }
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
        var options = RunOptions(directory: "")
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
            case "--timeout":
                options.timeout = try Self.seconds(try value(), for: name)
            case "--shutdown-timeout":
                options.shutdownTimeout = try Self.seconds(try value(), for: name)
            case "--jobs":
                let text = try value()
                guard let jobs = Int(text), (1...128).contains(jobs) else {
                    throw UsageError(message: "--jobs needs a whole number from 1 to 128, not '\(text.debugEscaped)'")
                }
                options.jobs = jobs
            case "--json", "--keep-going", "--allow-any-owner":
                guard inlineValue == nil else { throw UsageError(message: "\(name) takes no value") }
                switch name {
                case "--json": options.json = true
                case "--keep-going": options.keepGoing = true
                default: options.allowAnyOwner = true
                }
            default:
                throw UsageError(
                    message: name.hasPrefix("-") ? "unknown option '\(name.debugEscaped)'" : "unexpected argument '\(name.debugEscaped)'")
            }
        }
        guard let directory = directory ?? defaultDirectory else {
            throw UsageError(message: "no plugin directory: give one with --dir")
        }
        options.directory = directory
        options.configurationFile = configurationFile
        self = .run(options)
    }

    /// A duration option: seconds, fractions allowed, 0 for no limit.
    private static func seconds(_ text: String, for option: String) throws(UsageError) -> Duration? {
        guard let seconds = Double(text), seconds.isFinite, seconds >= 0, seconds <= 86_400 * 365 else {
            throw UsageError(message: "\(option) needs a number of seconds (0 for no limit), not '\(text.debugEscaped)'")
        }
        return seconds == 0 ? nil : .milliseconds(Int64((seconds * 1000).rounded(.up)))
    }
}
