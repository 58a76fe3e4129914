import Synchronization

/// The `plugin-host` program.
@main
struct PluginHostCommand {
    static func main() {
        // Before any other thread exists, so that every thread inherits the mask and only
        // the host's signal thread receives SIGINT, SIGTERM and SIGHUP.
        TerminationSignals.block()
        let status = Mutex(ExitStatus.success)
        let finished = Semaphore()
        Task.detached {
            let result = await run(arguments: Array(CommandLine.arguments.dropFirst()))
            status.withLock { $0 = result }
            finished.signal()
        }
        finished.wait(timeout: nil)
        Process.exit(status.withLock { $0 }.rawValue)
    }

    /// Runs the program with `arguments` (without the program name).
    static func run(arguments: [String]) async -> ExitStatus {
        let defaultDirectory = installedPluginDirectory
        let command: Command
        do {
            command = try Command(
                parsing: arguments, searchPath: Process.environment("PLUGIN_HOST_PATH"), defaultDirectory: defaultDirectory)
        } catch {
            StandardStreams.writeToError("plugin-host: \(error)\n\(HelpText.usage)See 'plugin-host --help'.\n")
            return .usage
        }
        switch command {
        case .help:
            StandardStreams.writeToOutput(HelpText.help(defaultDirectory: defaultDirectory))
            return .success
        case .version:
            StandardStreams.writeToOutput(HelpText.versionLine)
            return .success
        case .run(let options):
            return await RunCommand(options: options).run()
        case .list(let options, let json):
            return ListCommand(options: options, json: json).run()
        case .inspect(let file, let json):
            return InspectCommand(file: file, json: json).run()
        case .check(let options):
            return CheckCommand(options: options).run()
        case .graph(let options):
            return GraphCommand(options: options).run()
        case .new(let options):
            return NewPluginCommand(options: options, installPrefix: installPrefix).run()
        }
    }

    /// The install tree this executable belongs to: the parent of its `bin` directory.
    static var installPrefix: String? {
        guard let executable = Process.executablePath, let slash = executable.lastIndex(of: "/") else { return nil }
        let binDirectory = executable[..<slash]
        guard let parentSlash = binDirectory.lastIndex(of: "/") else { return nil }
        return parentSlash == binDirectory.startIndex ? "/" : String(binDirectory[..<parentSlash])
    }

    /// The plugin directory of the install tree: `PREFIX/lib/plugin-host/plugins`, when it
    /// exists.
    static var installedPluginDirectory: String? {
        guard let prefix = installPrefix else { return nil }
        let candidate = prefix + "/lib/plugin-host/plugins"
        guard (try? FileStatus(path: candidate))?.kind == .directory else { return nil }
        return candidate
    }
}
