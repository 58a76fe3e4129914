/// What the supervisor's state machine knows of the host, for `plugin-host status`: its state,
/// its generations, its plugins and their builds, its restarts, its last reload and upgrade,
/// the warnings in force. The driver adds what only it can see (process ids, the sockets,
/// the files on disk now, build ids) when it writes it out.
struct HostStatus: Equatable, Sendable {
    var state: HostState
    /// When the host started, and when this was taken.
    var startedAt: MonotonicInstant
    var now: MonotonicInstant
    /// When a restart waits, until when.
    var backingOffUntil: MonotonicInstant?
    /// The generations whose worker lives, the one that speaks for the host first.
    var generations: [GenerationStatus] = []
    var plugins: [PluginStatus] = []
    var restarts: RestartStatus
    var lastReload: ReloadRecord?
    var lastUpgrade: UpgradeRecord?
    /// The last upgrade of the host's own binary (``HostUpgrade``), on this host's end.
    var lastHostUpgrade: HostUpgradeRecord?
    var reloadsApplied = 0
    var reloadsRefused = 0
    /// The warnings that hold now, each said once when it first applied.
    var warnings: [String] = []
    /// How long each plugin took to answer its last health check, in seconds.
    var healthDurations: [String: Double] = [:]
    /// Since when the record's writes stall, while they do: its state directory does not answer.
    var recordStalledSince: MonotonicInstant?
}

/// A generation whose worker lives.
struct GenerationStatus: Equatable, Sendable {
    /// What it does for the host.
    var role: GenerationRole
    var number: Int
    var cause: GenerationPlan.Cause
    var startedAt: MonotonicInstant
    var readyAt: MonotonicInstant?
}

/// A plugin of the host: what state it is in, and which build runs.
struct PluginStatus: Equatable, Sendable {
    /// Why a plugin is in its state (said in `Messages/`).
    enum Reason: Equatable, Sendable {
        /// What the generation that speaks told of it, in its worker's words.
        case told(String)
        /// It is left out until its file changes: why.
        case leftOut(LeaveOutReason)
        /// Its file is gone from the plugin directories.
        case fileGone
    }

    var name: String
    var state: PluginCondition.State
    var reason: Reason?
    var version: String?
    var file: String?
    /// The build that runs, when one does.
    var build: FileIdentity?
    /// The names of the plugins it requires.
    var requires: [String] = []
    /// The version of the build held open for a rollback, when one is.
    var held: String?
    /// Where the build that runs came from, when one runs.
    var origin: BuildOrigin?
    /// Its build on trial, when an upgrade brought it in and the trial has not ended.
    var trial: TrialStatus?
    /// How often it was blamed for a generation's end, and the last time.
    var failures = 0
    var lastFailure: FailureRecord?
}

/// Where a running build came from.
enum BuildOrigin: String, Codable, Equatable, Sendable {
    /// Its plugin's file.
    case file
    /// The build held open from before, in place of its file's build, which is left out.
    case held
    /// The record's copy of a permanent build, in place of its file's build, which is left out
    /// or awaits its trial.
    case record
}

/// A build on trial: a failure blamed on it before `until` brings back the build it replaced.
struct TrialStatus: Equatable, Sendable {
    /// The version on trial, and the version it replaced.
    var version: String
    var replaces: String
    var until: MonotonicInstant
    /// Whether the build it replaced is held open, so that it can come back.
    var canRollBack: Bool
}

/// A failure the supervisor blamed on a plugin.
struct FailureRecord: Equatable, Sendable {
    var at: MonotonicInstant
    /// The version of the build that failed: not always the one that runs now (a build that
    /// failed on trial is left out, and the one before it serves).
    var version: String?
    /// `crashed during the run phase: SIGSEGV`.
    var summary: WorkerEnding.Summary
}

/// The restarts against their limit and backoff.
struct RestartStatus: Equatable, Sendable {
    /// Restarts within the window that ends now, and the most it allows.
    var used: Int
    var limit: Int
    var window: Duration
    /// Restarts so far; in a row since a generation served steadily, of those whose failure
    /// leaving a build out did not heal; and those it did heal, which did not wait.
    var total: Int
    var inARow: Int
    var healed: Int
    /// How long the next restart would wait after a failure that leaving out does not heal.
    var nextDelay: Duration
    var enabled: Bool
}

/// The last reload.
struct ReloadRecord: Equatable, Sendable {
    var at: MonotonicInstant
    var applied: Bool
    var reasons: [String]
}

/// The last upgrade, or rollback.
struct UpgradeRecord: Equatable, Sendable {
    let at: MonotonicInstant
    /// What happened, as values; the status says it in words (`Messages/`).
    private(set) var outcome: Outcome

    /// How it ended, as its outcome says.
    var result: Result {
        switch outcome {
        case .upgraded: .upgraded
        case .failed: .failed
        case .restored, .rolledBack: .rolledBack
        case .refused: .refused
        }
    }

    /// How an upgrade ended, as the status names it.
    enum Result: CaseIterable, Equatable, Sendable {
        case upgraded
        case failed
        case rolledBack
        /// A new build that would leave a plugin outside its `requiredVersions`: not loaded.
        case refused
    }

    enum Outcome: Equatable, Sendable {
        /// An upgrade's generation serves: what changed.
        case upgraded([Announcement.BuildChange])
        /// The candidate failed while the generation before served on: these builds are left
        /// out (none: no plugin was to blame).
        case failed(leftOut: [PublishedPlugin])
        /// The candidate failed after the generation before had stopped: the builds that ran
        /// before are restored, without those left out; what came back, once known.
        case restored(leftOut: [PublishedPlugin], broughtBack: [PublishedPlugin]?)
        /// Builds on trial, or that ran, gave way to the builds they replaced, and why; what came
        /// back, once known.
        case rolledBack(trials: [Announcement.Rollback], because: RollbackCause, broughtBack: [PublishedPlugin]?)
        /// A new build was not taken up (`Domain 1.0.0 -> 2.0.0`), and why.
        case refused(upgrade: String, reasons: [String])
    }

    /// Why builds were rolled back.
    enum RollbackCause: Equatable, Sendable {
        /// A failure blamed on them while on trial: its summary (`crashed during the run phase: SIGSEGV`).
        case failedOnTrial(WorkerEnding.Summary)
        /// Their health checks, on trial: which are unhealthy, and why.
        case unhealthyOnTrial([Announcement.Unhealthy])
        /// An operator asked (`plugin-host rollback`).
        case asked
    }

    /// A restore or rollback brought back `builds`: the record says so. Any other outcome is kept.
    mutating func broughtBack(_ builds: [PublishedPlugin]) {
        switch outcome {
        case .restored(let leftOut, nil): outcome = .restored(leftOut: leftOut, broughtBack: builds)
        case .rolledBack(let trials, let because, nil): outcome = .rolledBack(trials: trials, because: because, broughtBack: builds)
        case .upgraded, .failed, .restored, .rolledBack, .refused: break
        }
    }
}
