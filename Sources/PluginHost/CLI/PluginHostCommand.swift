/// The `plugin-host` program.
@main
struct PluginHostCommand {
    static func main() {
        Process.exit(run(arguments: Array(CommandLine.arguments.dropFirst())).rawValue)
    }

    /// Runs the program with `arguments` (without the program name).
    static func run(arguments: [String]) -> ExitStatus {
        let defaultDirectory = installedPluginDirectory
        let command: Command
        do {
            command = try Command(parsing: arguments, defaultDirectory: defaultDirectory)
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
            return RunCommand(options: options).run()
        }
    }

    /// The plugin directory of the install tree this executable belongs to:
    /// `BIN/../lib/plugin-host/plugins`, when it exists.
    static var installedPluginDirectory: String? {
        guard let executable = Process.executablePath, let slash = executable.lastIndex(of: "/") else { return nil }
        let binDirectory = executable[..<slash]
        guard let parentSlash = binDirectory.lastIndex(of: "/") else { return nil }
        let candidate = String(binDirectory[..<parentSlash]) + "/lib/plugin-host/plugins"
        guard (try? FileStatus(path: candidate))?.kind == .directory else { return nil }
        return candidate
    }
}
