/// `plugin-host list`: one line per plugin file, without loading any.
///
/// Exit 0 even when plugins have problems (they are listed); 1 when a directory could not
/// be read.
struct ListCommand {
    let options: SearchOptions
    let json: Bool

    func run() -> ExitStatus {
        let survey = PluginSurvey(options)
        let directoryProblems = survey.directoryProblems
        let entries = survey.entries.filter { entry in !directoryProblems.contains { $0.file == entry.file } }
        if json {
            Console.direct.write(JSONOutput.object([
                ("directories", .array(options.directories.map(JSONOutput.string))),
                ("plugins", .array(entries.map(Self.json))),
                ("errors", .array(directoryProblems.map { .string($0.message) })),
            ]).rendered() + "\n", to: .output)
        } else {
            let rows = entries.map { entry -> [String] in
                let manifest = entry.candidate?.manifest
                return [
                    manifest?.name ?? "?", manifest?.version.description ?? "-", manifest.map { "\($0.abi)" } ?? "-",
                    manifest?.dependencyList(showingRanges: true) ?? "-", entry.problem == nil ? "loadable" : "NOT LOADABLE", entry.file,
                ]
            }
            // A directory that cannot be read lists nothing: only its error is said.
            var text = rows.isEmpty && !directoryProblems.isEmpty
                ? "" : TextTable.render(header: ["plugin", "version", "abi", "requires", "state", "file"], rows: rows)
            // Each problem once: it names its plugins and files itself.
            var said = Set<String>()
            for problem in entries.compactMap(\.problem) where said.insert(problem).inserted {
                text += "  \(problem)\n"
            }
            for note in survey.shadowingNotes { text += "  note: \(note)\n" }
            Console.direct.write(text, to: .output)
            Console.direct.write(Diagnostics.text(problems: directoryProblems), to: .error)
        }
        return directoryProblems.isEmpty ? .success : .failure
    }

    private static func json(_ entry: PluginSurvey.Entry) -> JSONOutput {
        let manifest = entry.candidate?.manifest
        return .object([
            ("name", manifest.map { .string($0.name) } ?? .null),
            ("version", manifest.map { .string($0.version.description) } ?? .null),
            ("abi", manifest.map { .number(Double($0.abi)) } ?? .null),
            ("requires", .array((manifest?.requires ?? []).map(JSONOutput.string))),
            ("optional", .array((manifest?.optional ?? []).map(JSONOutput.string))),
            ("file", .string(entry.file)),
            ("shadowed", .array((entry.candidate?.shadowed ?? []).map(JSONOutput.string))),
            ("loadable", .bool(entry.problem == nil)),
            ("problem", entry.problem.map(JSONOutput.string) ?? .null),
        ])
    }
}
