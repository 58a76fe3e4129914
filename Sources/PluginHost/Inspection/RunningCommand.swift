import PluginABI

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
        let status: Setting
        do {
            let answer = try ControlClient.answer(to: .status, at: path, patience: ControlCommand.statusPatience)
            guard answer["ok"].bool == true else {
                console.write("plugin-host: error: \(answer["error"].text ?? "the host refused without a reason")\n", to: .error)
                return .failure
            }
            status = answer["status"]
        } catch {
            console.write("plugin-host: error: \(error)\n", to: .error)
            return .failure
        }
        let plugins = status["plugins"].list
        switch view {
        case .list:
            if options.json {
                console.write(JSONOutput.object([("plugins", JSONOutput(.array(plugins)))]).rendered() + "\n", to: .output)
            } else {
                let rows = plugins.map { plugin in
                    [plugin["name"].text ?? "?", plugin["version"].text ?? "-", plugin["state"].text ?? "?",
                     StatusText.build(of: plugin) + (plugin["fileChanged"].bool == true ? " (on disk: another build)" : ""),
                     plugin["file"].text ?? "-"]
                }
                console.write(TextTable.render(header: ["plugin", "version", "state", "build that runs", "file"], rows: rows), to: .output)
            }
        case .inspect(let name):
            guard let plugin = plugins.first(where: { $0["name"].text == name }) else {
                let known = plugins.compactMap { $0["name"].text }
                console.write(
                    "plugin-host: error: the running host has no plugin \(name)"
                        + (known.isEmpty ? "\n" : "; it has \(known.joined(separator: ", "))\n"), to: .error)
                return .failure
            }
            console.write(options.json ? JSONOutput(plugin).rendered() + "\n" : Self.details(of: plugin), to: .output)
        case .graph:
            console.write(Self.dot(plugins), to: .output)
        }
        return .success
    }

    /// One plugin, a fact a line.
    static func details(of plugin: Setting) -> String {
        let build = plugin["build"]
        var facts: [(String, String)] = [
            ("plugin", plugin["name"].text ?? "?"), ("version", plugin["version"].text ?? "-"), ("state", plugin["state"].text ?? "?"),
        ]
        if let reason = plugin["reason"].text { facts.append(("why", reason)) }
        facts.append(("file", plugin["file"].text ?? "-"))
        if build != .null {
            facts.append(("size", StatusText.byteCount(build["size"].whole ?? 0) + " (\(build["size"].whole ?? 0) bytes)"))
            facts.append(("modified", build["modified"].text ?? "?"))
            facts.append(("build id", build["buildID"].text ?? "none"))
            facts.append(("device, inode", "\(build["device"].whole ?? 0), \(build["inode"].whole ?? 0)"))
            let onDisk = switch plugin["fileChanged"].bool {
            case true?: "another build: the one that runs was replaced or removed"
            case false?: "the build that runs"
            case nil: "unknown"
            }
            facts.append(("file on disk", onDisk))
        }
        let requires = plugin["requires"].list.compactMap(\.text)
        facts.append(("requires", requires.isEmpty ? "-" : requires.joined(separator: ", ")))
        facts.append(("failures", "\(plugin["failures"].whole ?? 0)"))
        if plugin["lastFailure"] != .null {
            facts.append(("last failure", "\(plugin["lastFailure"]["at"].text ?? "?") \(plugin["lastFailure"]["summary"].text ?? "")"))
        }
        let width = facts.map(\.0.count).max() ?? 0
        return facts.map { $0.0 + ":" + String(repeating: " ", count: width - $0.0.count + 1) + $0.1 + "\n" }.joined()
    }

    /// The running plugins as Graphviz DOT: as `graph` draws files, with each plugin that does
    /// not serve in red, labelled with its state.
    static func dot(_ plugins: [Setting]) -> String {
        var lines = ["digraph plugins {", "  rankdir=BT;", #"  node [shape=box, style="rounded", fontname="Helvetica"];"#]
        for plugin in plugins {
            let name = plugin["name"].text ?? "?"
            let state = plugin["state"].text ?? "?"
            let serving = state == "serving"
            let label = "\(name)\n\(plugin["version"].text ?? "")" + (serving ? "" : "\n\(state)")
            lines.append("  \(GraphCommand.quoted(name)) [label=\(GraphCommand.quoted(label))\(serving ? "" : ", color=red, fontcolor=red")];")
        }
        for plugin in plugins {
            for required in plugin["requires"].list.compactMap(\.text) {
                lines.append("  \(GraphCommand.quoted(plugin["name"].text ?? "?")) -> \(GraphCommand.quoted(required));")
            }
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }
}
