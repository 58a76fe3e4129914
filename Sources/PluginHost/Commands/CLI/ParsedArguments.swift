/// What a command line gave, option by option, before a command's entry makes its command of
/// it (``CommandEntry/make``). Each option is read here once, whichever command takes it: its
/// value checked and kept in the form every command that takes it reads.
struct ParsedArguments {
    /// `--dir`, in order.
    var directories: [String] = []
    var allowAnyOwner = false
    /// What a run reads, `--dir` aside; other commands read the options they share with it
    /// (`--state`) from here too.
    var run = RunOptions(search: SearchOptions(directories: []))
    var json = false
    var requires: [String] = []
    var optional: [String] = []
    var service = false
    var into: String?
    var output: String?
    var plugin: String?
    var interface: String?
    var control: String?
    var running = false
    var follow = false
    var metrics = false
    var rollbackTarget: String?
    /// The arguments that are not options, in order.
    var positional: [String] = []
    /// The plugin directories searched: `--dir` in order, then `PLUGIN_HOST_PATH`, then
    /// (without `--dir`) the install tree's plugin directory.
    private(set) var search = SearchOptions(directories: [])

    /// Reads `arguments` (after the command's name) for `entry`, refusing an option it does
    /// not take.
    init(_ arguments: ArraySlice<String>, for entry: CommandEntry, searchPath: String?, defaultDirectory: String?) throws(UsageError) {
        var parser = OptionParser(arguments)
        while let argument = try parser.next() {
            switch argument {
            case .positional(let value): positional.append(value)
            case .option(let name):
                guard entry.options.contains(name) else {
                    let known = CommandTable.all.reduce(Set<String>()) { $0.union($1.options) }
                    throw UsageError(message: known.contains(name)
                        ? "\(name) does not apply to 'plugin-host \(entry.name)'" : "unknown option '\(name.debugEscaped)'")
                }
                try read(name, from: &parser)
            }
        }
        var directories = directories + (searchPath ?? "").split(separator: ":").map(String.init).filter { !$0.isEmpty }
        if self.directories.isEmpty, let defaultDirectory { directories.append(defaultDirectory) }
        search = SearchOptions(directories: directories, allowAnyOwner: allowAnyOwner)
    }

    /// The plugin directories, for a command that needs at least one.
    func pluginDirectories() throws(UsageError) -> SearchOptions {
        guard !search.directories.isEmpty else { throw UsageError(message: "no plugin directory: give one with --dir or PLUGIN_HOST_PATH") }
        return search
    }

    /// Which running host a command asks: `--control`, else the host of the plugin directories.
    func host() throws(UsageError) -> ControlOptions {
        guard control != nil || !search.directories.isEmpty else {
            throw UsageError(message: "which host? give its --control socket, or its plugin directory with --dir or PLUGIN_HOST_PATH")
        }
        return ControlOptions(target: control.map(ControlTarget.path) ?? .directories(search.directories), json: json)
    }

    /// Which running host a command that takes no argument asks.
    func hostAskedForNothingMore() throws(UsageError) -> ControlOptions {
        let host = try host()
        try noArguments()
        return host
    }

    /// Refuses `--control` on a command that reads files (`list` without `--running`).
    func asksNoHost() throws(UsageError) {
        guard control != nil else { return }
        let asking = CommandTable.all.filter(\.asksHost).map(\.name).joined(separator: ", ")
        throw UsageError(message: "--control applies to a run, to --running and to \(asking)")
    }

    /// Refuses arguments after the options, for a command that takes none.
    func noArguments() throws(UsageError) {
        if let extra = positional.first { throw UsageError(message: "unexpected argument '\(extra.debugEscaped)'") }
    }

    /// The one argument a command takes, or `problem` as the usage error.
    func oneArgument(_ problem: String) throws(UsageError) -> String {
        guard positional.count == 1 else { throw UsageError(message: problem) }
        return positional[0]
    }

    /// Reads option `name` and its value.
    private mutating func read(_ name: String, from parser: inout OptionParser) throws(UsageError) {
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
        case "--restart-max-delay":
            run.restart.maximumDelay = try Self.seconds(try parser.value(for: name), for: name, zero: "no wait") ?? .zero
        case "--trial":
            run.trial = try Self.seconds(try parser.value(for: name), for: name, zero: "no trial")
        case "--state":
            let directory = try parser.value(for: name)
            guard !directory.isEmpty else { throw UsageError(message: "--state needs a directory, such as /var/lib/plugin-host") }
            run.state = directory
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
        case "--metrics-listen":
            let address = try parser.value(for: name)
            guard !address.isEmpty else { throw UsageError(message: "--metrics-listen needs an address such as :9464 or /run/metrics.sock") }
            guard NamedSocket.isWellFormed(address) else {
                throw UsageError(message: "--metrics-listen \(address.debugEscaped): expected \(NamedSocket.addressForms), such as :9464")
            }
            run.metricsListen = address
        case "--control":
            let path = try parser.value(for: name)
            guard !path.isEmpty else { throw UsageError(message: "--control needs the path of a socket, not an empty string") }
            control = path
        case "--requires": requires += Self.names(try parser.value(for: name))
        case "--optional": optional += Self.names(try parser.value(for: name))
        case "--service": try parser.flag(name); service = true
        case "--into": into = try parser.value(for: name)
        case "--running": try parser.flag(name); running = true
        case "--follow": try parser.flag(name); follow = true
        case "--metrics": try parser.flag(name); metrics = true
        case "--output": output = try parser.value(for: name)
        case "--plugin": plugin = try parser.value(for: name)
        case "--interface": interface = try parser.value(for: name)
        case "--to":
            let version = try parser.value(for: name)
            guard !version.isEmpty else { throw UsageError(message: "--to needs a version, such as 0.2.0 (plugin-host history PLUGIN lists the builds kept)") }
            rollbackTarget = version
        default:
            // A command's entry lists an option this reader does not know: the table and
            // this switch disagree, which CommandTableTests catches.
            throw UsageError(message: "\(name) is not read by this build of plugin-host")
        }
    }

    /// `A,B, C` as names.
    private static func names(_ list: String) -> [String] {
        list.split(separator: ",").map { $0.trimmingSpaces }.filter { !$0.isEmpty }
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

    init(_ arguments: ArraySlice<String>) { remaining = arguments }

    mutating func next() throws(UsageError) -> Argument? {
        guard let argument = remaining.popFirst() else { return nil }
        inlineValue = nil
        guard argument.hasPrefix("-"), argument != "-" else { return .positional(argument) }
        if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
            inlineValue = String(argument[argument.index(after: equals)...])
            return .option(String(argument[..<equals]))
        }
        return .option(argument)
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
