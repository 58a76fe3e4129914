/// What `plugin-host history [PLUGIN]` is asked.
struct HistoryOptions: Equatable {
    /// The plugin directories whose record is read.
    var search: SearchOptions
    /// `--state`: where the record is kept, when not where a host of these directories keeps it.
    var state: String?
    /// Only this plugin's builds.
    var plugin: String?
    var json = false
}

/// `plugin-host history [PLUGIN]`: what the record of the plugin directories holds, read from
/// the file the supervisor keeps, so that it answers whether a host runs or not: each build on
/// trial, the permanent builds (newest first, the first the one a start runs), and the builds
/// left out with why, each with its version, file and when the record first kept it so.
///
/// Exit 0; 1 when the record is damaged, no record can be kept (no state directory), or it
/// has no build of the plugin named.
struct HistoryCommand {
    let options: HistoryOptions
    let record: RecordFile?

    private var console: Console { .direct }

    /// One build as the history shows it.
    struct Entry: Equatable {
        let plugin: String
        let version: String
        /// `on trial`, `permanent` (the build a start runs), `kept` (permanent before), `left out`.
        let verdict: String
        let reason: String?
        let file: String
        let since: Int64?
        let copy: Bool
    }

    func run() -> ExitStatus {
        guard let record else {
            console.write("plugin-host: error: no state directory to read the record from; give one with --state DIR\n", to: .error)
            return .failure
        }
        let kept: BuildRecord
        switch record.read() {
        case .none:
            kept = BuildRecord()
        case .record(let read):
            kept = read
        case .damaged(let why):
            console.write("plugin-host: error: the record at \(record.path) is damaged (\(why)); a host ignores it, and writes a new one once it proves anything\n", to: .error)
            return .failure
        }
        let entries = Self.entries(of: kept).filter { entry in options.plugin.map { $0 == entry.plugin } ?? true }
        if let plugin = options.plugin, entries.isEmpty {
            console.write("plugin-host: error: the record at \(record.path) has no build of \(plugin)\n", to: .error)
            return .failure
        }
        if options.json {
            console.write(Self.document(entries, record: record.path).rendered() + "\n", to: .output)
        } else if entries.isEmpty {
            console.write("the record at \(record.path) holds no build yet: no host of these directories has served as a service\n", to: .output)
        } else {
            let rows = entries.map { entry in
                [entry.plugin, entry.version, entry.verdict + (entry.reason.map { ": " + $0 } ?? ""),
                 entry.since.map { TextFormat.utc(Double($0)) } ?? "-", entry.file + (entry.copy ? " (copy kept)" : "")]
            }
            console.write("record: \(record.path)\n" + TextTable.render(header: ["plugin", "version", "verdict", "since", "file"], rows: rows), to: .output)
        }
        return .success
    }

    /// The builds of `record`, by plugin (those with a permanent build first); for each: on trial, then
    /// permanent (newest first), then left out (newest first).
    static func entries(of record: BuildRecord) -> [Entry] {
        var plugins: [String] = []
        for name in record.permanent.map(\.name) + record.onTrial.map(\.name) + record.leftOut.map(\.name) where !plugins.contains(name) {
            plugins.append(name)
        }
        return plugins.flatMap { plugin -> [Entry] in
            let trials = record.onTrial.filter { $0.name == plugin }.map { build in
                Entry(plugin: plugin, version: build.version, verdict: "on trial", reason: nil, file: build.file, since: build.since, copy: false)
            }
            let permanent = record.permanent.filter { $0.name == plugin }.reversed().enumerated().map { index, build in
                Entry(plugin: plugin, version: build.version, verdict: index == 0 ? "permanent" : "kept", reason: nil, file: build.file,
                      since: build.since, copy: build.copy != nil)
            }
            let leftOut = record.leftOut.filter { $0.name == plugin }.reversed().map { build in
                Entry(plugin: plugin, version: build.version, verdict: "left out", reason: build.reason, file: build.file, since: build.since, copy: false)
            }
            return trials + permanent + leftOut
        }
    }

    /// `{"record": PATH, "builds": [{"plugin", "version", "verdict", "reason", "since", "file", "copy"}]}`.
    static func document(_ entries: [Entry], record: String) -> JSONOutput {
        .object([
            ("record", .string(record)),
            ("builds", .array(entries.map { entry in
                .object([
                    ("plugin", .string(entry.plugin)), ("version", .string(entry.version)), ("verdict", .string(entry.verdict)),
                    ("reason", entry.reason.map(JSONOutput.string) ?? .null),
                    ("since", entry.since.map { .string(TextFormat.utc(Double($0))) } ?? .null),
                    ("file", .string(entry.file)), ("copy", .bool(entry.copy)),
                ])
            })),
        ])
    }
}
