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
    /// Ask a running host: `status`, `reload`, `restart`, `stop`.
    case control(ControlRequest, ControlOptions)
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

    /// Parses the arguments that follow the program name.
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
        var remaining = arguments[...]
        let subcommand = remaining.first.flatMap { Self.subcommands.contains($0) ? $0 : nil } ?? "run"
        if remaining.first == subcommand { remaining = remaining.dropFirst() }

        var parser = OptionParser(remaining)
        var directories: [String] = []
        var allowAnyOwner = false
        var run = RunOptions(search: SearchOptions(directories: []))
        var json = false
        var requires: [String] = []
        var optional: [String] = []
        var service = false
        var parent: String?
        var output: String?
        var plugin: String?
        var interface: String?
        var positional: [String] = []
        var control: String?
        var running = false
        var follow = false
        var metrics = false
        var rollbackTarget: String?
        let entry = CommandTable.entry(subcommand)
        let accepted = entry?.options ?? []
        while let argument = try parser.next() {
            guard case .option(let name) = argument else {
                if case .positional(let value) = argument { positional.append(value) }
                continue
            }
            guard accepted.contains(name) else {
                let known = CommandTable.all.reduce(Set<String>()) { $0.union($1.options) }
                throw UsageError(message: known.contains(name)
                    ? "\(name) does not apply to 'plugin-host \(subcommand)'" : "unknown option '\(name.debugEscaped)'")
            }
            switch name {
            case "--dir":
                let directory = try parser.value(for: name)
                guard !directory.isEmpty else { throw UsageError(message: "--dir needs a directory, not an empty string") }
                directories.append(directory)
            case "--allow-any-owner": try parser.flag(name); allowAnyOwner = true
            case "--json": try parser.flag(name); json = true
            case "--keep-going": try parser.flag(name); run.keepGoing = true
            case "--config":
                guard run.configurationFile == nil else { throw UsageError(message: "--config given more than once") }
                run.configurationFile = try parser.value(for: name)
            case "--timeline": run.timeline = try parser.value(for: name)
            case "--timeout": run.timeout = try Self.seconds(try parser.value(for: name), for: name)
            case "--shutdown-timeout": run.shutdownTimeout = try Self.seconds(try parser.value(for: name), for: name)
            case "--watch": try parser.flag(name); run.watch = true
            case "--health-interval": run.healthInterval = try Self.seconds(try parser.value(for: name), for: name, zero: "never") ?? .zero
            case "--restart":
                let text = try parser.value(for: name)
                switch text {
                case "on-failure": run.restart.enabled = true
                case "no": run.restart.enabled = false
                default: throw UsageError(message: "--restart needs 'on-failure' or 'no', not '\(text.debugEscaped)'")
                }
            case "--restart-limit":
                let text = try parser.value(for: name)
                let parts = text.split(separator: "/", omittingEmptySubsequences: false)
                let window = parts.count == 2 ? (try? Self.seconds(String(parts[1]), for: name)) ?? nil : nil
                guard parts.count == 2, let limit = Int(parts[0]), (1...10_000).contains(limit), let window else {
                    throw UsageError(message: "--restart-limit needs RESTARTS/SECONDS such as 5/60, not '\(text.debugEscaped)'")
                }
                run.restart.limit = limit
                run.restart.window = window
            case "--restart-delay":
                run.restart.delay = try Self.seconds(try parser.value(for: name), for: name, zero: "no wait") ?? .zero
            case "--trial":
                run.trial = try Self.seconds(try parser.value(for: name), for: name, zero: "no trial")
            case "--state":
                let directory = try parser.value(for: name)
                guard !directory.isEmpty else { throw UsageError(message: "--state needs a directory, such as /var/lib/plugin-host") }
                run.state = directory
            case "--restart-max-delay":
                run.restart.maximumDelay = try Self.seconds(try parser.value(for: name), for: name, zero: "no wait") ?? .zero
            case "--listen":
                let text = try parser.value(for: name)
                guard let equals = text.firstIndex(of: "="), equals != text.startIndex, text.index(after: equals) != text.endIndex else {
                    throw UsageError(message: "--listen needs NAME=ADDRESS, such as echo=/run/echo.sock or web=:8080, not '\(text.debugEscaped)'")
                }
                let listen = ListenAddress(name: String(text[..<equals]), address: String(text[text.index(after: equals)...]))
                guard NamedSocket.isWellFormed(listen.address) else {
                    throw UsageError(message: "--listen \(listen.name.debugEscaped)=\(listen.address.debugEscaped): expected \(NamedSocket.addressForms)")
                }
                guard !run.listen.contains(where: { $0.name == listen.name }) else {
                    throw UsageError(message: "--listen: the socket name '\(listen.name.debugEscaped)' is given twice")
                }
                run.listen.append(listen)
            case "--jobs":
                let text = try parser.value(for: name)
                guard let jobs = Int(text), (1...128).contains(jobs) else {
                    throw UsageError(message: "--jobs needs a whole number from 1 to 128, not '\(text.debugEscaped)'")
                }
                run.jobs = jobs
            case "--requires":
                requires += try parser.value(for: name).split(separator: ",").map { $0.trimmingSpaces }.filter { !$0.isEmpty }
            case "--optional":
                optional += try parser.value(for: name).split(separator: ",").map { $0.trimmingSpaces }.filter { !$0.isEmpty }
            case "--service": try parser.flag(name); service = true
            case "--running": try parser.flag(name); running = true
            case "--follow": try parser.flag(name); follow = true
            case "--metrics": try parser.flag(name); metrics = true
            case "--control":
                let path = try parser.value(for: name)
                guard !path.isEmpty else { throw UsageError(message: "--control needs the path of a socket, not an empty string") }
                control = path
            case "--metrics-listen":
                let address = try parser.value(for: name)
                guard !address.isEmpty else { throw UsageError(message: "--metrics-listen needs an address such as :9464 or /run/metrics.sock") }
                guard NamedSocket.isWellFormed(address) else {
                    throw UsageError(message: "--metrics-listen \(address.debugEscaped): expected \(NamedSocket.addressForms), such as :9464")
                }
                run.metricsListen = address
            case "--output": output = try parser.value(for: name)
            case "--plugin": plugin = try parser.value(for: name)
            case "--interface": interface = try parser.value(for: name)
            case "--to":
                let version = try parser.value(for: name)
                guard !version.isEmpty else { throw UsageError(message: "--to needs a version, such as 0.2.0 (plugin-host history PLUGIN lists the builds kept)") }
                rollbackTarget = version
            default:  // --into
                parent = try parser.value(for: name)
            }
        }

        // The search path: --dir in order, then PLUGIN_HOST_PATH, then (without --dir) the
        // install tree's plugin directory.
        var search = directories + (searchPath ?? "").split(separator: ":").map(String.init).filter { !$0.isEmpty }
        if directories.isEmpty, let defaultDirectory { search.append(defaultDirectory) }
        let searchOptions = SearchOptions(directories: search, allowAnyOwner: allowAnyOwner)
        let asksHost = entry?.asksHost == true || running
        if asksHost {
            guard control != nil || !search.isEmpty else {
                throw UsageError(message: "which host? give its --control socket, or its plugin directory with --dir or PLUGIN_HOST_PATH")
            }
            let options = ControlOptions(target: control.map(ControlTarget.path) ?? .directories(search), json: json)
            if follow && metrics { throw UsageError(message: "--follow and --metrics do not go together") }
            if entry?.takesPluginNames != true, subcommand != "inspect", let extra = positional.first {
                throw UsageError(message: "unexpected argument '\(extra.debugEscaped)'")
            }
            switch subcommand {
            case "status": self = .control(follow ? .follow : metrics ? .metrics : .status, options)
            case "reload": self = .control(.reload, options)
            case "restart": self = .control(.restart(positional), options)
            case "accept": self = .control(.accept(positional), options)
            case "rollback":
                if rollbackTarget != nil, positional.count != 1 { throw UsageError(message: "rollback --to VERSION takes one plugin name") }
                self = .control(.rollBack(positional, to: rollbackTarget), options)
            case "stop": self = .control(.stop, options)
            case "list": self = .running(.list, options)
            case "graph": self = .running(.graph, options)
            default:
                guard positional.count == 1 else { throw UsageError(message: "inspect --running takes one plugin name") }
                self = .running(.inspect(positional[0]), options)
            }
            return
        }
        if control != nil, subcommand != "run" {
            let asking = CommandTable.all.filter(\.asksHost).map(\.name).joined(separator: ", ")
            throw UsageError(message: "--control applies to a run, to --running and to \(asking)")
        }
        if subcommand == "inspect", directories.count > 0 { throw UsageError(message: "--dir does not apply to 'plugin-host inspect FILE'; it takes the file's path") }
        if ["run", "list", "check", "graph", "history"].contains(subcommand) {
            if subcommand == "history", positional.count > 1 { throw UsageError(message: "history takes at most one plugin name") }
            if subcommand == "history", positional.count == 1 {
                guard !search.isEmpty else { throw UsageError(message: "no plugin directory: give one with --dir or PLUGIN_HOST_PATH") }
                self = .history(HistoryOptions(search: searchOptions, state: run.state, plugin: positional[0], json: json))
                return
            }
            guard positional.isEmpty else { throw UsageError(message: "unexpected argument '\(positional[0].debugEscaped)'") }
            guard !search.isEmpty else {
                throw UsageError(message: "no plugin directory: give one with --dir or PLUGIN_HOST_PATH")
            }
        }
        switch subcommand {
        case "history": self = .history(HistoryOptions(search: searchOptions, state: run.state, plugin: nil, json: json))
        case "list": self = .list(searchOptions, json: json)
        case "check": self = .check(searchOptions)
        case "graph": self = .graph(searchOptions)
        case "inspect":
            guard positional.count == 1 else { throw UsageError(message: "inspect takes one plugin file") }
            self = .inspect(file: positional[0], json: json)
        case "new":
            guard positional.count == 1 else { throw UsageError(message: "new takes one plugin name") }
            if let problem = PluginManifest.problem(withName: positional[0]) {
                throw UsageError(message: "plugin name \(problem)")
            }
            // The project's module, and its types, are named after the plugin.
            for name in [positional[0]] + requires where !Self.isSwiftIdentifier(name) {
                throw UsageError(message: "new: '\(name.debugEscaped)' is not a Swift identifier, which a plugin's module and its types are named by: "
                    + "use letters, digits and _, not beginning with a digit (such as \(Self.identifierSuggestion(for: name)))")
            }
            for (option, names) in [("--requires", requires), ("--optional", optional)] {
                for listed in names {
                    if let problem = PluginManifest.problem(withName: listed) { throw UsageError(message: "\(option): \(problem)") }
                    if listed == positional[0] { throw UsageError(message: "\(option): a plugin cannot depend on itself") }
                }
            }
            if let both = requires.first(where: optional.contains) {
                throw UsageError(message: "\(both) is given with both --requires and --optional; keep one")
            }
            self = .new(NewPluginOptions(name: positional[0], requires: requires, optional: optional, service: service, parent: parent ?? "."))
        case "embed-manifest":
            guard positional.count == 1, let output, !output.isEmpty else {
                throw UsageError(message: "embed-manifest takes one manifest.json and --output FILE.swift")
            }
            if let plugin, let problem = PluginManifest.problem(withName: plugin) { throw UsageError(message: "--plugin: \(problem)") }
            self = .embedManifest(EmbedManifestOptions(manifest: positional[0], output: output, plugin: plugin))
        case "check-api":
            guard let manifest = positional.first, (interface == nil) != (positional.count == 1) else {
                throw UsageError(message: "check-api takes a manifest.json, then --interface FILE.swiftinterface or the plugin's Swift sources")
            }
            guard directories.count <= 1 else { throw UsageError(message: "check-api takes one --dir: the plugin directory whose installed build it compares with") }
            self = .checkAPI(CheckAPIOptions(
                manifest: manifest, interface: interface, sources: Array(positional.dropFirst()), output: output, directory: directories.first))
        case "install":
            guard positional.count == 1 else {
                throw UsageError(message: "install takes one plugin library (libNAME.so), then --interface FILE.swiftinterface and --dir DIR if needed")
            }
            guard directories.count <= 1 else { throw UsageError(message: "install takes one --dir") }
            self = .install(InstallOptions(file: positional[0], interface: interface, directory: directories.first))
        default:
            run.search = searchOptions
            run.json = json
            run.control = control
            self = .run(run)
        }
    }

    /// A duration option: seconds, fractions allowed, 0 for no limit.
    private static func seconds(_ text: String, for option: String, zero: String = "no limit") throws(UsageError) -> Duration? {
        guard let seconds = Double(text), seconds.isFinite, seconds >= 0, seconds <= 86_400 * 365 else {
            throw UsageError(message: "\(option) needs a number of seconds (0 for \(zero)), not '\(text.debugEscaped)'")
        }
        return seconds == 0 ? nil : .milliseconds(Int64((seconds * 1000).rounded(.up)))
    }
}

/// Splits arguments into options (`--name`, `--name=value`) and positional arguments.
private struct OptionParser {
    enum Argument {
        case option(String)
        case positional(String)
    }

    private var remaining: ArraySlice<String>
    private var inlineValue: String?
    private var current = ""

    init(_ arguments: ArraySlice<String>) { remaining = arguments }

    mutating func next() throws(UsageError) -> Argument? {
        guard let argument = remaining.popFirst() else { return nil }
        inlineValue = nil
        guard argument.hasPrefix("-"), argument != "-" else { return .positional(argument) }
        if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
            current = String(argument[..<equals])
            inlineValue = String(argument[argument.index(after: equals)...])
        } else {
            current = argument
        }
        return .option(current)
    }

    /// The value of the option just read.
    mutating func value(for name: String) throws(UsageError) -> String {
        if let inlineValue { return inlineValue }
        guard let next = remaining.popFirst(), !next.hasPrefix("--") else {
            throw UsageError(message: "option \(name) needs a value")
        }
        return next
    }

    /// Checks that the flag just read has no `=value`.
    func flag(_ name: String) throws(UsageError) {
        guard inlineValue == nil else { throw UsageError(message: "\(name) takes no value") }
    }

}

extension Command {
    /// Whether `name` can name a Swift module and type: ASCII letters, digits and `_`, not
    /// beginning with a digit.
    static func isSwiftIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
        return name.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }
    }

    /// `name` made an identifier, as an example: `my-plugin` as `MyPlugin`, `9bad` as `Bad9`.
    static func identifierSuggestion(for name: String) -> String {
        let words = name.split { !($0.isASCII && ($0.isLetter || $0.isNumber)) }
        var joined = words.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        let digits = joined.prefix { $0.isNumber }
        joined = String(joined.dropFirst(digits.count)) + digits
        joined = joined.prefix(1).uppercased() + joined.dropFirst()
        return isSwiftIdentifier(joined) ? joined : "Ripener"
    }
}
