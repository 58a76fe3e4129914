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
/// the file the supervisor keeps, so that it answers whether a host runs or not: each build
/// once, with its life (``BuildLife``): on trial, permanent (the one a start runs), kept (those
/// `rollback --to` brings back), left out with why; each with its version, file and when the
/// record first kept it so.
///
/// The record is the one a host of these directories keeps, whatever their spelling: in
/// `--state`, else where such a host keeps it; the one a host of them keeps under an earlier
/// name (``RecordFile/earlier()``), when it has none of its own yet; or, without `--state`,
/// the one the host that serves them says it keeps (its status's `record`).
///
/// Exit 0; 1 when the record cannot be read (the state directory is missing, is no directory,
/// or may not be read), is damaged, no record can be kept (no state directory), or it has no
/// build of the plugin named.
struct HistoryCommand {
    let options: HistoryOptions
    let record: RecordFile?

    private var console: Console { .direct }

    /// One build as the history shows it.
    struct Entry: Equatable {
        let plugin: String
        let version: String
        /// The build's life (``BuildLife/verdict``): `on trial`, `permanent` (the build a start
        /// runs), `kept` (what `rollback --to` brings back), `left out`.
        let verdict: String
        let reason: String?
        let file: String
        let since: Int64?
        let copy: Bool
    }

    func run() -> ExitStatus {
        guard var record else {
            console.write("plugin-host: error: no state directory to read the record from; give one with --state DIR\n", to: .error)
            return .failure
        }
        // Without --state, the record is the one the host that serves these directories keeps.
        let running = runningHostRecord().flatMap { $0 == record.path ? nil : $0 }
        if let running, options.state == nil {
            console.write("plugin-host: note: reading the record the host that serves these directories keeps, at \(running)\n", to: .error)
            record = RecordFile(path: running, directories: record.directories)
        }
        let elsewhere = options.state == nil ? nil : running.map { running in
            "the host that serves these directories keeps its record at \(running); read it with --state "
                + RecordFile(path: running, directories: record.directories).stateDirectory
        }
        if let problem = record.unreadable() {
            console.write("plugin-host: error: cannot read the record at \(record.path): \(problem)" + (elsewhere.map { "; " + $0 } ?? "") + "\n", to: .error)
            return .failure
        }
        var path = record.path
        var kept = BuildRecord()
        switch read(path) {
        case .record(let read):
            kept = read
        case .none:
            if let earlier = record.earlier(), case .record(let read) = read(earlier) {
                console.write("plugin-host: note: the record of these directories is kept at \(earlier), under another spelling of them; the next host of them takes it over as \(record.path)\n", to: .error)
                (path, kept) = (earlier, read)
            } else if let elsewhere {
                console.write("plugin-host: error: no record of these directories at \(record.path): \(elsewhere)\n", to: .error)
                return .failure
            }
        case .failed:
            return .failure
        }
        let entries = Self.entries(of: kept).filter { entry in options.plugin.map { $0 == entry.plugin } ?? true }
        if let plugin = options.plugin, entries.isEmpty {
            console.write("plugin-host: error: the record at \(path) has no build of \(plugin)\n", to: .error)
            return .failure
        }
        if options.json {
            console.write(Self.document(entries, record: path).rendered() + "\n", to: .output)
        } else if entries.isEmpty {
            console.write("the record at \(path) holds no build yet: no host of these directories has served as a service\n", to: .output)
        } else {
            let rows = entries.map { entry in
                [entry.plugin, entry.version, entry.verdict + (entry.reason.map { ": " + $0 } ?? ""),
                 entry.since.map { TextFormat.utc(Double($0)) } ?? "-", entry.file + (entry.copy ? " (copy kept)" : "")]
            }
            console.write("record: \(path)\n" + TextTable.render(header: ["plugin", "version", "verdict", "since", "file"], rows: rows), to: .output)
        }
        return .success
    }

    /// What reading a record found: none, a record, or a failure already said.
    private enum Found {
        case none
        case record(BuildRecord)
        case failed
    }

    /// The record at `path`; a record that cannot be read or is damaged is said.
    private func read(_ path: String) -> Found {
        switch RecordFile(path: path, directories: ResolvedDirectories([], workingDirectory: "/")).read() {
        case .none:
            return .none
        case .record(let read):
            return .record(read)
        case .unreadable(let problem):
            console.write("plugin-host: error: cannot read the record at \(path): \(problem)\n", to: .error)
            return .failed
        case .damaged(let why):
            console.write("plugin-host: error: the record at \(path) is damaged (\(why)); a host ignores it, and writes a new one once it proves anything\n", to: .error)
            return .failed
        }
    }

    /// Where the host that serves these directories keeps its record, as it says; `nil` when
    /// none runs, it keeps none, or it does not say.
    private func runningHostRecord() -> String? {
        let path = ControlPath.forClient(of: options.search.directories, environment: Process.environment, user: currentUser)
        guard let status = try? ControlClient.answer(to: .status, at: path, patience: .seconds(2)).status else { return nil }
        return status.record
    }

    /// The builds of `record`, each once with its life, by plugin (those with a permanent
    /// build first); for each: on trial, permanent, kept (newest first), left out (newest first).
    static func entries(of record: BuildRecord) -> [Entry] {
        record.entries.map { build in
            Entry(plugin: build.name, version: build.version, verdict: build.life.verdict, reason: build.life.reason?.text, file: build.file,
                  since: build.since, copy: build.copy)
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
