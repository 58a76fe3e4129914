/// The `plugin-host` program.
@main
struct PluginHostCommand {
    static func main() {
        ProcessControl.exit(run(arguments: Array(CommandLine.arguments.dropFirst())).rawValue)
    }

    /// Runs the program with `arguments` (without the program name). A run does not
    /// return: it forks the worker, and both processes exit from there.
    static func run(arguments: [String]) -> ExitStatus {
        let defaultDirectory = installedPluginDirectory
        let console = Console.direct
        let command: Command
        do {
            command = try Command(
                parsing: arguments, searchPath: Process.environment("PLUGIN_HOST_PATH"), defaultDirectory: defaultDirectory)
        } catch {
            // One line: what is wrong, and where the command's help is.
            let name = arguments.first.flatMap { Command.subcommands.contains($0) && $0 != "help" ? $0 + " " : nil } ?? ""
            console.write("plugin-host: \(error); see 'plugin-host \(name)--help'\n", to: .error)
            return .usage
        }
        switch command {
        case .help:
            console.write(HelpText.help(defaultDirectory: defaultDirectory), to: .output)
            return .success
        case .commandHelp(let name):
            console.write(name == "new" ? HelpText.newHelp : CommandHelp.of(name)?.text(defaultDirectory: defaultDirectory) ?? "", to: .output)
            return .success
        case .version:
            console.write(HelpText.versionLine, to: .output)
            return .success
        case .run(var options):
            // A new host of a host upgrade takes the sockets and systemd's variables from the
            // host before, which started it.
            var hostBefore: HostBefore?
            if let text = Process.environment(HostChannel.variable) {
                Process.removeEnvironment(HostChannel.variable)
                guard let descriptor = Int32(text) else {
                    console.write("plugin-host: error: \(HostChannel.variable)=\(text) is no descriptor; it is set by a host that starts its new host\n", to: .error)
                    return .usage
                }
                do {
                    hostBefore = try HostBefore.connect(descriptor: descriptor, waitingUpTo: .seconds(10))
                } catch {
                    console.write("plugin-host: error: cannot take over: \(error)\n", to: .error)
                    return .failure
                }
            }
            let systemd = hostBefore.map { SystemdService.handedOver(address: $0.hello.notifySocket, watchdogMicroseconds: $0.hello.watchdogMicroseconds) }
                ?? SystemdService.fromEnvironment(process: ProcessControl.current)
            if options.healthInterval == nil { options.healthInterval = systemd.watchdog.map { $0 / 2 } ?? .zero }
            // A configuration that can be read once only is read now, for every generation.
            if let file = options.configurationFile, !Configuration.canBeReadAgain(file) {
                do {
                    options.configurationSnapshot = try Configuration.read(file)
                } catch {
                    console.write("plugin-host: error: \(error.message)\n", to: .error)
                    return .failure
                }
            }
            var supervision = Supervisor.Configuration()
            supervision.machine.stopLimit = options.shutdownTimeout
            supervision.machine.suspensionLimit = options.timeout
            supervision.systemd = systemd
            supervision.watching = options.watch ? PluginSearchPath(options.search).directories : []
            supervision.machine.restart = options.restart
            supervision.machine.trial = options.trial
            supervision.machine.keepingGoing = options.keepGoing
            supervision.arguments = arguments
            if let hostBefore {
                supervision.hostBefore = hostBefore
                Self.takeSockets(of: hostBefore, into: &supervision)
            } else {
                supervision.sockets = NamedSocket.fromSystemd(process: ProcessControl.current.rawValue)
            }
            for listen in options.listen where hostBefore == nil {
                guard !supervision.sockets.contains(where: { $0.name == listen.name }) else {
                    console.write("plugin-host: error: --listen \(listen.name)=...: systemd passes a socket of that name already\n", to: .error)
                    return .usage
                }
                do {
                    supervision.sockets.append(try NamedSocket.open(name: listen.name, address: listen.address))
                } catch {
                    console.write("plugin-host: error: --listen \(listen.name)=\(listen.address): \(error); check the address\n", to: .error)
                    for socket in supervision.sockets { socket.close() }
                    return .failure
                }
            }
            supervision.directories = options.search.directories
            supervision.search = options.search
            supervision.record = record(of: options.search, state: options.state)
            do {
                if hostBefore == nil { try openControl(options, into: &supervision, console: console) }
            } catch {
                console.write("plugin-host: error: \(error)\n", to: .error)
                for socket in supervision.sockets { socket.close() }
                return .failure
            }
            Supervisor.start(supervision) { [options] link, plan in WorkerMain(options: options, link: link, plan: plan).run() }
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
        case .embedManifest(let options):
            return EmbedManifestCommand(options: options).run()
        case .checkAPI(let options):
            return CheckAPICommand(options: options, installPrefix: installPrefix).run()
        case .install(let options):
            return InstallCommand(options: options, installPrefix: installPrefix).run()
        case .control(let request, let options, let shown):
            return ControlCommand(request: request, options: options, shown: shown, path: controlPath(of: options)).run()
        case .running(let view, let options):
            return RunningCommand(view: view, options: options, path: controlPath(of: options)).run()
        case .history(let options):
            return HistoryCommand(options: options, record: record(of: options.search, state: options.state)).run()
        }
    }

    /// The record of what a host of the directories `search` names proved, in the state
    /// directory `--state` names or the default one; `nil` when there is none.
    private static func record(of search: SearchOptions, state: String?) -> RecordFile? {
        RecordFile(of: search.directories, state: state, workingDirectory: Process.workingDirectory ?? "/", environment: Process.environment)
    }

    /// The sockets, the control socket and the metrics endpoint the host before passed, in
    /// the order of its hello.
    private static func takeSockets(of hostBefore: HostBefore, into supervision: inout Supervisor.Configuration) {
        var descriptors = hostBefore.descriptors[...]
        for socket in hostBefore.hello.sockets {
            guard let descriptor = descriptors.popFirst() else { return }
            var named = NamedSocket(name: socket.name, descriptor: descriptor, createdFile: socket.createdFile)
            named.address = socket.address
            supervision.sockets.append(named)
        }
        if let path = hostBefore.hello.control, let descriptor = descriptors.popFirst() {
            supervision.control = ControlSocket(takingOver: FileDescriptor(rawValue: descriptor), at: path)
        }
        if let metrics = hostBefore.hello.metrics, let descriptor = descriptors.popFirst() {
            var named = NamedSocket(name: metrics.name, descriptor: descriptor, createdFile: metrics.createdFile)
            named.address = metrics.address
            supervision.metrics = named
        }
    }

    /// The control socket a client command asks.
    private static func controlPath(of options: ControlOptions) -> String {
        options.target.path(environment: Process.environment, user: currentUser)
    }

    /// Opens the control socket (at `--control`, else its default path) and the metrics
    /// endpoint (`--metrics-listen`).
    ///
    /// At the default path, a failure is not the end of the host (another host of the same
    /// plugin directories may answer there): it runs without a control socket, and says why
    /// and how to give it one.
    ///
    /// - Throws: ``SocketError`` naming the address that cannot be listened on.
    private static func openControl(_ options: RunOptions, into supervision: inout Supervisor.Configuration, console: Console) throws(SocketError) {
        if let path = options.control {
            do {
                supervision.control = try ControlSocket.listen(at: path)
            } catch {
                throw SocketError(address: "--control \(path)", reason: error.reason)
            }
        } else {
            let path = ControlPath.forHost(of: options.search.directories, environment: Process.environment, user: currentUser)
            do {
                supervision.control = try ControlSocket.listen(at: path, privateDirectory: true)
            } catch {
                console.write("plugin-host: warning: no control socket: \(error); give one with --control PATH\n", to: .error)
            }
        }
        if let address = options.metricsListen {
            do {
                supervision.metrics = try NamedSocket.open(name: "metrics", address: address)
            } catch {
                supervision.control?.close()
                throw SocketError(address: "--metrics-listen \(address)", reason: error.reason)
            }
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
