/// The status an operator reads (`plugin-host status --json`, schema 1, docs/operations.md
/// "Status, in JSON"): one type, which the supervisor fills in from the machine's
/// ``HostStatus`` and what only its driver sees (process ids, sockets, the files on disk now,
/// build ids, wall-clock time), and which every command that shows a running host reads back
/// (`status`, `status --json`, `status --follow`, `list`/`graph --running`), as do the
/// metrics. Its properties are the document's fields, in the document's order: a field is
/// only ever added.
struct StatusDocument: Codable, Equatable, Sendable {
    /// The version of the document's layout.
    static let currentSchema = 1

    var schema: Int
    /// The supervisor's process id.
    var pid: Int
    /// The supervisor's state: `serving`, `backing off` in the document.
    var state: HostState
    var startedAt: WallTime
    var uptimeSeconds: Double
    /// When a restart waits, until when, and how long from now.
    var backingOffUntil: WallTime?
    var backingOffSeconds: Double?
    /// The control socket's path.
    var control: String?
    var directories: [String]
    /// The generations whose worker lives, the one that speaks for the host first.
    var generations: [Generation]
    var plugins: [Plugin]
    var restarts: Restarts
    var sockets: [Socket]
    var lastReload: Reload?
    var lastUpgrade: Upgrade?
    var reloads: Reloads
    /// The warnings that hold now.
    var warnings: [String]
    /// What the supervisor itself cost so far; `nil` from a host that does not say.
    var supervisor: SupervisorCost? = nil
    /// Where the host keeps its record of what it proved; `nil` when it keeps none (no state
    /// directory), or from a host that does not say.
    var record: String? = nil
    /// How long the record's writes have stalled (its state directory does not answer), while
    /// they do; `nil` otherwise.
    var recordStalledSeconds: Double? = nil
    /// The plugin-host binary the supervisor runs; `nil` from a host that does not say.
    var host: Host? = nil

    /// The plugin-host binary a supervisor runs: the path it was started from, its version, its
    /// ELF build id, and whether the file at that path is now another build (a package
    /// upgrade installed one the host has not taken up), with the version that file says it is.
    struct Host: Codable, Equatable, Sendable {
        var path: String
        var version: String
        var buildID: String?
        var fileChanged: Bool?
        /// When the file is another build: the version of plugin-host it says it is; `nil`
        /// when it says none (it is no plugin-host, or gone).
        var fileVersion: String?
        /// The last upgrade of the host's binary (`plugin-host upgrade-host`), on this host's
        /// end: when it ended, whether it did what was asked, and what it did.
        var lastUpgrade: HostUpgradeDocument?
    }

    struct HostUpgradeDocument: Codable, Equatable, Sendable {
        var at: WallTime
        var ok: Bool
        var detail: String
    }

    /// The supervisor's own cost: the processor time its process used (user and system, its
    /// workers not included) and how many events its state machine took, so that what an
    /// event costs shows as the one over the other.
    struct SupervisorCost: Codable, Equatable, Sendable {
        var cpuSeconds: Double
        var events: Int
    }

    struct Generation: Codable, Equatable, Sendable {
        var number: Int
        /// Its worker's process id.
        var pid: Int?
        /// What it does for the host: `serving`, `loading beside the serving one`, `draining`
        /// in the document.
        var role: GenerationRole
        var cause: GenerationPlan.Cause
        var startedAt: WallTime
        var ageSeconds: Double
        var readyAt: WallTime?
    }

    struct Plugin: Codable, Equatable, Sendable {
        var name: String
        var state: PluginCondition.State
        /// Why it is in that state, when it is not plainly serving.
        var reason: String?
        var version: String?
        var file: String?
        /// The build that runs, when one does.
        var build: Build?
        /// Whether the file on disk now is another build than the one that runs; `nil` when
        /// no build of it runs.
        var fileChanged: Bool?
        /// The version of the build held open for a rollback.
        var held: String?
        /// Where the build that runs came from: `file`, `held` (held open from before) or
        /// `record` (the record's copy); `nil` when none runs.
        var from: BuildOrigin?
        var trial: Trial?
        /// The names of the plugins it requires.
        var requires: [String]
        /// The ends of a generation blamed on it, and the last.
        var failures: Int
        var lastFailure: Failure?
        /// How long it took to answer its last health check.
        var healthCheckSeconds: Double?

        /// Whether the host read the plugin's name from its file: a file it could not read a
        /// plugin from (not an ELF object, no manifest) is listed under the file's path.
        var isNamed: Bool { name != file }

        /// `Ticker`; a file with no plugin's name read from it, by its path.
        var label: String { isNamed ? name : file ?? name }

        /// Whether it serves (degraded included) in the generation that speaks for the host.
        var isUp: Bool { state == .serving || state == .degraded }
    }

    struct Build: Codable, Equatable, Sendable {
        var size: Int
        var modified: WallTime
        var device: Int
        var inode: Int
        /// The GNU build id of its file, when it has one.
        var buildID: String?
    }

    struct Trial: Codable, Equatable, Sendable {
        /// The version on trial, and the version it replaced.
        var version: String
        var replaces: String
        var until: WallTime
        var secondsLeft: Double
        /// Whether the build it replaced is held open, so that a failure brings it back.
        var canRollBack: Bool
    }

    struct Failure: Codable, Equatable, Sendable {
        var at: WallTime
        /// The version of the build that failed, which need not be the one that runs now.
        var version: String?
        /// `crashed during the run phase: SIGSEGV`.
        var summary: String
    }

    struct Restarts: Codable, Equatable, Sendable {
        /// Restarts within the window that ends now, and the most it allows.
        var used: Int
        var limit: Int
        var windowSeconds: Double
        /// Restarts so far; in a row that leaving out did not heal; those it healed.
        var total: Int
        var inARow: Int
        var healed: Int
        /// How long the next restart would wait after a failure leaving out does not heal.
        var nextDelaySeconds: Double
        /// Whether the host restarts at all (`--restart no`: false).
        var enabled: Bool
    }

    struct Socket: Codable, Equatable, Sendable {
        var name: String
        var address: String
    }

    struct Reload: Codable, Equatable, Sendable {
        var at: WallTime
        var applied: Bool
        var reasons: [String]
    }

    struct Upgrade: Codable, Equatable, Sendable {
        var at: WallTime
        var result: UpgradeRecord.Result
        var detail: String
    }

    struct Reloads: Codable, Equatable, Sendable {
        var applied: Int
        var refused: Int
    }

    /// The document as JSON.
    var json: JSONOutput { JSONCoding.document(self) }
}

extension PluginCondition.State: Codable {}

/// An instant of the wall clock: written `2026-11-25T20:01:02Z`, kept as seconds since the
/// Unix epoch (the metrics export those).
struct WallTime: Codable, Equatable, Sendable, CustomStringConvertible {
    var secondsSinceEpoch: Double

    init(secondsSinceEpoch: Double) {
        self.secondsSinceEpoch = secondsSinceEpoch
    }

    var description: String { TextFormat.utc(secondsSinceEpoch) }

    init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let seconds = TextFormat.secondsSinceEpoch(utc: text) else {
            throw JSONCodingError(path: decoder.codingPath, problem: "expected a UTC time as 2026-11-25T20:01:02Z, found \"\(text)\"")
        }
        secondsSinceEpoch = seconds
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
