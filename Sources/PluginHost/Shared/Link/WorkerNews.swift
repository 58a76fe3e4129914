import PluginABI

/// What a worker tells its supervisor beyond what its page holds, so that the supervisor can
/// answer an operator without asking the worker: the condition of each plugin, the outcome of
/// a reload, the warnings in force, the durations of health checks. It travels as a message of
/// the page, as JSON.
enum WorkerNews: Equatable, Sendable {
    /// Every plugin the worker runs or knows of and does not run, and why.
    case plugins([PluginCondition])
    /// A reload (SIGHUP, or `plugin-host reload`) was applied, or refused for these reasons.
    case reload(applied: Bool, reasons: [String])
    /// The warnings that hold now about `topic` (`configuration`, `reload`): each replaces
    /// what was said before about the same topic.
    case warnings(topic: String, [String])
    /// How long each plugin took to answer the last health check, in seconds.
    case health([String: Double])
    /// A running plugin's file holds a new build that is not taken up (`Domain 1.0.0 -> 2.0.0`),
    /// because it would leave a plugin outside its `requiredVersions`.
    case upgradeRefused(String, reasons: [String])
    /// An upgrade's new worker loaded, or bootstrapped, its plugins, and waits for the
    /// supervisor's word.
    case candidate(CandidateReport)
    /// The files of these running plugins are gone from the plugin directories: the worker
    /// runs them until the supervisor says how they leave.
    case filesGone([String])

    /// The news as the page carries it.
    var encoded: [UInt8] {
        let value: JSONOutput = switch self {
        case .plugins(let conditions):
            .object([("plugins", .array(conditions.map(\.json)))])
        case .reload(let applied, let reasons):
            .object([("reload", .object([("applied", .bool(applied)), ("reasons", .array(reasons.map(JSONOutput.string)))]))])
        case .warnings(let topic, let warnings):
            .object([("warnings", .object([("topic", .string(topic)), ("list", .array(warnings.map(JSONOutput.string)))]))])
        case .health(let durations):
            .object([("health", .object(durations.keys.sorted().map { ($0, .number(durations[$0]!)) }))])
        case .upgradeRefused(let upgrade, let reasons):
            .object([("upgradeRefused", .object([("upgrade", .string(upgrade)), ("reasons", .array(reasons.map(JSONOutput.string)))]))])
        case .candidate(let report):
            .object([("candidate", report.json)])
        case .filesGone(let names):
            .object([("filesGone", .array(names.map(JSONOutput.string)))])
        }
        return Array(value.rendered().utf8)
    }

    /// The news a page carried; `nil` for bytes that are none (a worker whose memory was
    /// scribbled on).
    init?(encoded bytes: [UInt8]) {
        guard let value = try? JSONParser.parse(bytes), case .object(let members) = value, members.count == 1,
            let (key, body) = members.first
        else { return nil }
        switch (key, body) {
        case ("plugins", .array(let items)):
            self = .plugins(items.compactMap(PluginCondition.init(json:)))
        case ("reload", .object(let reload)):
            guard case .bool(let applied)? = reload["applied"], case .array(let reasons)? = reload["reasons"] else { return nil }
            self = .reload(applied: applied, reasons: reasons.compactMap(\.text))
        case ("warnings", .object(let warnings)):
            guard case .string(let topic)? = warnings["topic"], case .array(let list)? = warnings["list"] else { return nil }
            self = .warnings(topic: topic, list.compactMap(\.text))
        case ("health", .object(let durations)):
            var seconds: [String: Double] = [:]
            for (name, value) in durations { if case .number(let number) = value { seconds[name] = number } }
            self = .health(seconds)
        case ("upgradeRefused", .object(let refusal)):
            guard case .string(let upgrade)? = refusal["upgrade"], case .array(let reasons)? = refusal["reasons"] else { return nil }
            self = .upgradeRefused(upgrade, reasons: reasons.compactMap(\.text))
        case ("candidate", let report):
            guard let report = CandidateReport(json: report) else { return nil }
            self = .candidate(report)
        case ("filesGone", .array(let names)):
            self = .filesGone(names.compactMap(\.text))
        default:
            return nil
        }
    }
}

/// One plugin as a worker sees it: serving, or not, and why.
struct PluginCondition: Equatable, Sendable {
    /// What became of the plugin in this worker.
    enum State: String, Equatable, Sendable, CaseIterable {
        /// Bootstrapped, ready, and its last health check (if any) was good.
        case serving
        /// Its last health check said it is degraded.
        case degraded
        /// Its last health check said it is unhealthy.
        case unhealthy
        /// Left out by the supervisor (its build failed), or because it requires one that is.
        case leftOut = "left out"
        /// Its file could not be added (a bad file, a missing requirement).
        case notAdded = "not added"
        /// Its file is new to this worker, which asked for a new generation to bring it in: it
        /// runs once that generation serves.
        case comingIn = "coming in"
        /// It did not get ready, and was removed.
        case notReady = "not ready"
        /// A plugin that a running plugin lists as optional, and that is not installed.
        case optionalAndAbsent = "optional and absent"
        /// It ran in the generation that served last, and no generation serves now: the next
        /// one starts, takes over, or the host stops. Only the supervisor says this.
        case notServing = "not serving"
        /// It ran before, and the generation that serves does not run it: its file is gone
        /// from the plugin directories. Only the supervisor says this.
        case removed

        /// Whether a plugin in this state runs: serving, well or not.
        var runs: Bool { self == .serving || self == .degraded || self == .unhealthy }
    }

    var name: String
    var state: State
    /// The file, when there is one.
    var file: String?
    var version: String?
    /// Why it does not serve, or what its health check said.
    var reason: String?
    /// The build it runs, when it runs.
    var build: FileIdentity?

    fileprivate var json: JSONOutput {
        var members: [(String, JSONOutput)] = [("name", .string(name)), ("state", .string(state.rawValue))]
        if let file { members.append(("file", .string(file))) }
        if let version { members.append(("version", .string(version))) }
        if let reason { members.append(("reason", .string(reason))) }
        if let build {
            // As text: a device or inode number may not fit a JSON number exactly.
            members.append(("build", .string("\(build.device) \(build.inode) \(build.size) \(build.modificationNanoseconds) \(build.changeNanoseconds)")))
        }
        return .object(members)
    }

    fileprivate init?(json: Setting) {
        guard case .object(let members) = json, case .string(let name)? = members["name"], case .string(let state)? = members["state"],
            let parsed = State(rawValue: state)
        else { return nil }
        self.init(name: name, state: parsed, file: members["file"]?.text, version: members["version"]?.text, reason: members["reason"]?.text)
        if let text = members["build"]?.text {
            let fields = text.split(separator: " ")
            if fields.count == 5, let device = UInt64(fields[0]), let inode = UInt64(fields[1]), let size = Int64(fields[2]),
                let modified = Int64(fields[3]), let changed = Int64(fields[4]) {
                build = FileIdentity(device: device, inode: inode, size: size, modificationNanoseconds: modified, changeNanoseconds: changed)
            }
        }
    }

    init(name: String, state: State, file: String? = nil, version: String? = nil, reason: String? = nil, build: FileIdentity? = nil) {
        self.name = name
        self.state = state
        self.file = file
        self.version = version
        self.reason = reason
        self.build = build
    }
}
