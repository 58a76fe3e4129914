/// `plugin-host list`, `inspect` and `graph` with `--running`: the builds a running host
/// serves, as it tells them through its control socket, rather than the files on disk now.
/// After a failed upgrade the two differ; this shows what serves, and marks each plugin whose
/// file on disk is another build.
///
/// Exit 0; 1 when no host answers, or (`inspect`) it runs no plugin of that name.
struct RunningCommand {
    let view: RunningView
    let options: ControlOptions
    let path: String

    private var console: Console { .direct }

    func run() -> ExitStatus {
        let plugins: [StatusDocument.Plugin]
        do {
            let answer = try ControlClient.answer(to: .status, at: path, patience: ControlCommand.statusPatience)
            guard answer.ok, let status = answer.status else {
                console.write("plugin-host: error: \(answer.error ?? "the host refused without a reason")\n", to: .error)
                return .failure
            }
            plugins = status.plugins
        } catch {
            console.write("plugin-host: error: \(error)\n", to: .error)
            return .failure
        }
        switch view {
        case .list:
            if options.json {
                let listed = plugins.map(JSONCoding.document)
                console.write(JSONOutput.object([("plugins", .array(listed))]).rendered() + "\n", to: .output)
            } else {
                let rows = plugins.map { plugin in
                    [plugin.name, plugin.version ?? "-", plugin.state.rawValue,
                     StatusText.build(of: plugin) + (plugin.fileChanged == true ? " (on disk: another build)" : ""),
                     plugin.file ?? "-"]
                }
                console.write(TextTable.render(header: ["plugin", "version", "state", "build that runs", "file"], rows: rows), to: .output)
            }
        case .inspect(let name):
            guard let plugin = plugins.first(where: { $0.name == name }) else {
                let known = plugins.map(\.name)
                console.write(
                    "plugin-host: error: the running host has no plugin \(name)"
                        + (known.isEmpty ? "\n" : "; it has \(known.joined(separator: ", "))\n"), to: .error)
                return .failure
            }
            console.write(options.json ? JSONCoding.document(plugin).rendered() + "\n" : Self.details(of: plugin), to: .output)
        case .graph:
            console.write(Self.dot(plugins), to: .output)
        }
        return .success
    }

    /// One plugin, a fact a line.
    static func details(of plugin: StatusDocument.Plugin) -> String {
        var facts: [(String, String)] = [("plugin", plugin.name), ("version", plugin.version ?? "-"), ("state", plugin.state.rawValue)]
        if let reason = plugin.reason { facts.append(("why", reason)) }
        facts.append(("file", plugin.file ?? "-"))
        if let build = plugin.build {
            facts.append(("size", StatusText.byteCount(build.size) + " (\(build.size) bytes)"))
            facts.append(("modified", build.modified.description))
            facts.append(("build id", build.buildID ?? "none"))
            facts.append(("device, inode", "\(build.device), \(build.inode)"))
            let onDisk = switch plugin.fileChanged {
            case true?: "another build: the one that runs was replaced or removed"
            case false?: "the build that runs"
            case nil: "unknown"
            }
            facts.append(("file on disk", onDisk))
        }
        facts.append(("requires", plugin.requires.isEmpty ? "-" : plugin.requires.joined(separator: ", ")))
        facts.append(("failures", "\(plugin.failures)"))
        if let failure = plugin.lastFailure {
            facts.append(("last failure", "\(failure.at), of \(failure.version.map { "\(plugin.name) \($0)" } ?? "an unknown build"): \(failure.summary)"))
        }
        let width = facts.map(\.0.count).max() ?? 0
        return facts.map { $0.0 + ":" + String(repeating: " ", count: width - $0.0.count + 1) + $0.1 + "\n" }.joined()
    }

    /// The running plugins as Graphviz DOT: as `graph` draws files, with each plugin that does
    /// not serve in red, labelled with its state; an optional plugin nobody installed is grey
    /// and dashed, as it was meant to be absent.
    static func dot(_ plugins: [StatusDocument.Plugin]) -> String {
        var lines = ["digraph plugins {", "  rankdir=BT;", #"  node [shape=box, style="rounded", fontname="Helvetica"];"#]
        for plugin in plugins {
            let serving = plugin.state == .serving
            let label = "\(plugin.name)\n\(plugin.version ?? "")" + (serving ? "" : "\n\(plugin.state.rawValue)")
            let style = serving ? "" : plugin.state == .optionalAndAbsent ? #", color=grey, fontcolor=grey, style="rounded,dashed""# : ", color=red, fontcolor=red"
            lines.append("  \(GraphCommand.quoted(plugin.name)) [label=\(GraphCommand.quoted(label))\(style)];")
        }
        for plugin in plugins {
            for required in plugin.requires {
                lines.append("  \(GraphCommand.quoted(plugin.name)) -> \(GraphCommand.quoted(required));")
            }
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }
}
