/// What the supervisor tells an operator of what it decided, as values: who, which build,
/// why, and what comes next. The machine says these; the driver writes each as one line on
/// standard error (``Announcement/line``, the only place their words are made), and the
/// simulator checks the values against the truth and each line against its values.
enum Announcement: Equatable, Sendable {
    // MARK: Restarts

    /// A serving generation ended unexpectedly; one without the builds to blame starts.
    case restarting(blame: Blame, dependents: [String], restart: RestartCount)
    /// A failure was blamed on builds on trial: the builds they replaced come back.
    case rollingBackAfterFailure(trials: [Rollback], failure: WorkerEnding.Summary, dependents: [String], restart: RestartCount)
    /// Without the builds to blame (and the plugins that require them), nothing would serve.
    case nothingLeftToServe(culprits: [PublishedPlugin], withDependents: Bool)
    /// The restart would exceed `--restart-limit`.
    case restartLimitReached(recent: Int, policy: RestartPolicy)

    // MARK: The record

    /// What became of the record's writes, kept at `kept` (its path).
    case record(RecordWriteNews, kept: String?)

    // MARK: Upgrades

    /// The candidate failed before the serving generation was disturbed, and no build is to
    /// blame: `ended` is how the new worker ended (`crashed: SIGSEGV`), empty when unknown.
    case upgradeFailedBlamingNobody(ended: WorkerEnding.Summary)
    /// The candidate failed before the serving generation was disturbed: these are left out.
    case upgradeFailed(leftOut: [PublishedPlugin])
    /// The builds that changed and are not to blame are tried again without those that are.
    case upgradingAgain(with: [PublishedPlugin])
    /// The candidate could not even start.
    case upgradeCouldNotStart
    /// How the host's own upgrade goes (``HostUpgrade``).
    case hostUpgrade(HostUpgradeNews)
    /// The candidate cannot run `plugin`, which runs now: its file did not load, or (once
    /// `bootstrapped`) did not bootstrap, or is no plugin now. It is told to give up.
    case candidateCannotRun(plugin: String, bootstrapped: Bool)
    /// An upgrade's candidate would run exactly what serves now: what it was to bring did not
    /// load or bootstrap in it (`failed`, the first plugin that did not), and it gives up.
    case candidateChangesNothing(failed: String?, bootstrapped: Bool)
    /// The candidate failed after the generation before had stopped: the builds that ran
    /// before are restored, without `leftOut`.
    case upgradeFailedAfterStop(leftOut: [PublishedPlugin], restart: RestartCount)
    /// Restoring would exceed `--restart-limit`.
    case notRestoring(window: Duration)
    /// An upgrade's generation serves: what changed.
    case upgraded([BuildChange])
    /// The generation an operator's restart started serves: what changed (a build with no
    /// build before ran in none: tried again, or new).
    case restartedAsAsked([BuildChange])

    // MARK: Trials and rollbacks

    /// The builds an upgrade brought in are on trial for `limit`.
    case onTrial([BuildChange], for: Duration)
    /// Trials ended by time: these builds are permanent.
    case trialPassed([PublishedPlugin])
    /// An operator accepted these builds on trial.
    case accepted([PublishedPlugin])
    /// Builds on trial are rolled back while the generation before serves: why, in the
    /// health check's or the operator's words.
    case rollingBack(trials: [Rollback], because: [Unhealthy])
    /// An operator's rollback: the builds that run are left out, and the builds before come
    /// back while the generation that runs them serves.
    case rollingBackAsAsked([Rollback])
    /// A rollback's generation serves: what it brought back.
    case rolledBack(broughtBack: [PublishedPlugin])
    /// A rollback's generation failed before it took over.
    case rollbackFailed(trials: [Rollback])
    /// A restoring generation starts with these held builds in place of files left out.
    case bringingBack([PublishedPlugin])
    /// A plugin to restore has no build that can come back, and why.
    case cannotBringBack(plugin: String, because: CannotComeBack)
    /// At start, the builds the record on disk leaves out, as a process before proved them bad.
    case leftOutByRecord([BuildRecord.LeftOut])
    /// At start, the builds the record on disk has on trial: none runs as permanent; the
    /// permanent build the record keeps runs in its place, when there is one, and each is tried
    /// again as an upgrade once the host serves.
    case awaitingTrialByRecord([AwaitedTrial])

    // MARK: Workers

    /// A worker process was stopped (SIGSTOP, SIGTSTP, ...): what ran, and how long it may stay so.
    case workerSuspended(process: ProcessID, by: Signal, running: [String], limit: Duration?)
    case workerResumed(process: ProcessID, after: Duration)
    case cannotStartWorker(reason: String)
    /// A worker ended as it should not have: the judgement of its end.
    case workerFailed(EndingAccount)
    /// A warning a worker reported, said once while it holds.
    case warning(String)
    /// A generation is handed what the plugins of the one before handed over.
    case handingOver(items: [String], from: Int, to: Int)

    // MARK: Stopping

    /// A stop was asked by an operator (`plugin-host stop`) or a signal.
    case stopping(StopRequest)
    /// A second stop signal: the host exits at once.
    case stoppingAtOnce(Signal)
    /// Workers sent SIGKILL did not end within the grace: the host ends without them.
    case workersDidNotEnd(count: Int, grace: Duration)

    /// Who is blamed for a generation's end.
    enum Blame: Equatable, Sendable {
        /// These builds, left out until their files change.
        case culprits([PublishedPlugin])
        /// Nobody: the evidence clears every plugin, for this reason.
        case nobody(WorkerEnding.Exoneration)
        /// The evidence names no plugin.
        case unknown
    }

    /// A plugin's build against the one it replaces: `Counter 0.3.0 -> 0.3.1`, or new.
    struct BuildChange: Equatable, Sendable {
        let build: PublishedPlugin
        /// The build before, `nil` for a plugin that is new.
        let before: PublishedPlugin?
        /// Why a failure cannot bring the build before back; `nil` when it can.
        var beforeStaysAway: StaysAway?
    }

    /// Why a restore cannot bring back the build of a plugin that ran before.
    enum CannotComeBack: Equatable, Sendable {
        /// The build that ran before is the one left out.
        case leftOut
        /// It is held as far as the machine knows, and the driver could not hand it over: its
        /// held file no longer reads the bytes of this version, and no copy of it is kept.
        case cannotBeOpened(version: String)
        /// The driver does not hold it, and why, when it is known.
        case notHeld(BuildLedger.NotHeld?)
    }

    /// Why the build an upgrade replaced cannot come back.
    enum StaysAway: Equatable, Sendable {
        /// It is left out.
        case leftOut
        /// The driver does not hold it as it ran.
        case notHeld
    }

    /// A build that was on trial when the host last stopped, and the permanent build that runs
    /// in its place until it is tried again (`nil`: none is kept).
    struct AwaitedTrial: Equatable, Sendable {
        let build: BuildRecord.Build
        let permanent: PublishedPlugin?
    }

    /// A build on trial its health check finds unhealthy, and what the check said, if anything.
    struct Unhealthy: Equatable, Sendable {
        let build: PublishedPlugin
        let said: String?
    }

    /// A build on trial giving way to the build it replaced: `Counter 0.3.1 -> 0.3.0`.
    struct Rollback: Equatable, Sendable {
        let onTrial: PublishedPlugin
        let replaced: PublishedPlugin

        init(_ trial: BuildLedger.Trial) {
            onTrial = trial.build
            replaced = trial.replaced
        }
    }

    /// A restart's place against the limit, and its wait.
    struct RestartCount: Equatable, Sendable {
        /// This restart's number, and the policy that bounds it.
        let number: Int
        let policy: RestartPolicy
        /// Whether leaving a build out heals its failure: it is at once, and not counted
        /// against the limit.
        let healed: Bool
        /// Of the restarts leaving out did not heal, how many are within the window now, this
        /// one included.
        let counted: Int
        /// How long it waits, and how many restarts in a row leaving out did not heal.
        let wait: Duration
        let inARow: Int
    }

    enum StopRequest: Equatable, Sendable {
        case signal(Signal)
        /// An operator asked (`plugin-host stop`).
        case operatorAsked
    }
}
