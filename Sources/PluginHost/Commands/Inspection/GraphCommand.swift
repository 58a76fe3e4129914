/// `plugin-host graph`: the dependency graph as Graphviz DOT, without loading anything.
///
/// One node per plugin labelled with its name and version, an edge from each plugin to each
/// plugin it requires (dashed for optional ones; labelled with the versions it works with,
/// when its manifest says). Problems are red: a missing plugin as a
/// dashed red node, the members and edges of a cycle, plugins with another graph problem,
/// and each file that is not a plugin this host can use (an octagon, labelled with the file
/// name and what is wrong). Every problem is also said on standard error. Exit 0, or 1 when
/// a directory could not be read.
struct GraphCommand {
    let options: SearchOptions

    func run() -> ExitStatus {
        let survey = PluginSurvey(options)
        Console.direct.write(Self.dot(survey), to: .output)
        Console.direct.write(Diagnostics.text(notes: survey.shadowingNotes, problems: survey.problems), to: .error)
        return survey.directoryProblems.isEmpty ? .success : .failure
    }

    static func dot(_ survey: PluginSurvey) -> String {
        let plugins = survey.resolution.order
        let names = Set(plugins.map(\.name))
        let versions = Dictionary(plugins.map { ($0.name, $0.manifest.version) }, uniquingKeysWith: { first, _ in first })
        let cycleMembers = Set(survey.resolution.failures.filter { $0.value.code == .dependencyCycle }.map(\.key))
        var lines = ["digraph plugins {", "  rankdir=BT;", #"  node [shape=box, style="rounded", fontname="Helvetica"];"#]
        for plugin in plugins {
            let failed = survey.resolution.failures[plugin.name] != nil
            let style = failed ? ", color=red, fontcolor=red" : ""
            lines.append("  \(quoted(plugin.name)) [label=\(quoted("\(plugin.name)\n\(plugin.manifest.version)"))\(style)];")
        }
        var missing = Set<String>()
        for plugin in plugins {
            for required in plugin.manifest.requires {
                let inCycle = cycleMembers.contains(plugin.name) && cycleMembers.contains(required)
                if !names.contains(required) { missing.insert(required) }
                let range = plugin.manifest.requiredVersions[required]
                let outOfRange = range.map { range in versions[required].map { !range.admits($0) } ?? false } ?? false
                let red = inCycle || !names.contains(required) || outOfRange
                var attributes = red ? ["color=red"] : []
                if let range { attributes.append("label=\(quoted(range.description))" + (outOfRange ? ", fontcolor=red" : "")) }
                lines.append("  \(quoted(plugin.name)) -> \(quoted(required))\(attributes.isEmpty ? "" : " [\(attributes.joined(separator: ", "))]");")
            }
            for optional in plugin.manifest.optional where names.contains(optional) {
                let red = cycleMembers.contains(plugin.name) && cycleMembers.contains(optional)
                lines.append("  \(quoted(plugin.name)) -> \(quoted(optional)) [style=dashed\(red ? ", color=red" : "")];")
            }
        }
        for name in missing.sorted() {
            lines.append("  \(quoted(name)) [label=\(quoted("\(name)\nmissing")), color=red, fontcolor=red, style=\"rounded,dashed\"];")
        }
        for entry in survey.entries where entry.candidate == nil {
            let name = entry.file.split(separator: "/").last.map(String.init) ?? entry.file
            let what = survey.scan.problems.first { $0.file == entry.file }?.code.rawValue ?? "unusable"
            lines.append("  \(quoted(entry.file)) [label=\(quoted("\(name)\n\(what)")), shape=octagon, color=red, fontcolor=red];")
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    /// A DOT string literal.
    static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences("\\", with: "\\\\").replacingOccurrences("\"", with: "\\\"").replacingOccurrences("\n", with: "\\n") + "\""
    }
}
