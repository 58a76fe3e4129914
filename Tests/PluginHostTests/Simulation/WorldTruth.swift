#if !STANDALONE_SIMULATOR
@testable import PluginHost
#endif

/// The simulated world's own account of what happened, and of what a correct host does about
/// it: which builds have evidence of fault by the rules of docs/operations.md, which were ever
/// blamed, how long the next restart must wait, which reload and stop requests operators
/// made. It is computed from what the world itself did (which build is faulty and how, which
/// plugin faulted, what each worker ran, who sent which signal) and never read from the
/// machine, so that the machine's decisions and words can be checked against it.
struct WorldTruth {
    /// One build of one plugin: its file's inode and the stamp of its contents.
    struct Build: Hashable, CustomStringConvertible {
        let plugin: Int
        let inode: UInt64
        let stamp: Int64

        init(plugin: Int, identity: FileIdentity) {
            self.plugin = plugin
            inode = identity.inode
            stamp = identity.modificationNanoseconds
        }

        var name: String { SimulatedWorld.plugins[plugin].name }
        var version: String { SimulatedWorld.version(stamp: stamp) }
        var description: String { "\(name) \(version) (inode \(inode))" }
    }

    /// How a worker ended, as it really happened.
    enum Death: Equatable {
        /// A crash whose record names this plugin (an index into what the worker published),
        /// or nobody.
        case crash(culprit: Int?)
        /// `exit()` called by this plugin.
        case exitCall(culprit: Int)
        /// `_exit()`: no record.
        case underscoreExit
        /// SIGKILL from outside.
        case killedFromOutside
        /// The worker ended as the host meant: a plugin it gave up on, or none.
        case intended(failedPlugin: Int?)
        /// The supervisor ended it, for this reason.
        case killedBySupervisor(Kill)
    }

    /// Why the supervisor may end a worker, as the world sees it.
    enum Kill: Equatable {
        /// A step of this plugin (an index into what the worker published) ran past its limit.
        case overran(owner: Int)
        /// A signal kept it stopped past `--timeout`, while these ran.
        case stayedSuspended(running: [RunningCode])
        /// Asked to stop, it did not in time; whether a signal kept it stopped then.
        case stopDeadline(whileSuspended: Bool)
        /// Nothing was lost by ending it: a candidate not needed, a stop at once.
        case notNeeded
    }

    /// The builds with evidence of fault a correct host leaves out now, and why: from the
    /// failures it judged, until their files change (a new file is a new build) or an operator restarts them.
    private(set) var evidence: [Build: (reason: String, since: MonotonicInstant)] = [:] {
        didSet { evidenceChanges += 1 }
    }
    /// How many times the evidence changed: the record on disk is checked against it then.
    private(set) var evidenceChanges = 0
    /// Every build ever blamed: a failure that blames one never blamed before is healed by
    /// leaving it out, and its restart does not wait.
    private(set) var everBlamed: Set<Build> = []
    /// New builds whose upgrade failed with nobody to blame: a correct host does not try them
    /// again until their file changes or an operator's restart.
    private(set) var abandoned: Set<Build> = []
    /// The builds on trial, by plugin: each upgrade's changed builds from the moment its
    /// generation took over, for `--trial`. A trial has ended once its instant has come.
    private(set) var trials: [Int: Trial] = [:]

    /// The permanent builds of each plugin, the newest last: a build is permanent once it
    /// served and was not on trial (docs/operations.md), and the newest `permanentKept` of
    /// each plugin are kept for a rollback. A trial that passed by its instant is counted by
    /// ``permanent(of:at:)``.
    private var permanentBuilds: [Int: [Build]] = [:]
    /// The build of each plugin a restore brings back ("the builds that ran before"): the one a
    /// generation that served ran last, on trial or not, or the one a rollback went back to since.
    private(set) var toBringBack: [Int: Build] = [:]
    /// How many permanent builds of a plugin are kept, as docs/operations.md says.
    static let permanentKept = 3

    /// The builds on trial when the supervisor was killed, whose files still hold them: the
    /// start after leaves them out until the host serves, then tries them again as an upgrade.
    /// Each with the permanent build that runs in its place meanwhile.
    private(set) var awaitingTrial: [Build: Build] = [:]

    /// The ends of a generation blamed on each plugin since the supervisor started, by name,
    /// and the last: when it was heard of, and the version of the build blamed.
    private(set) var failures: [String: (count: Int, at: MonotonicInstant, version: String)] = [:]

    /// How the last upgrade ended since the supervisor started, and when: its generation took
    /// over (`upgraded`); its candidate failed while the generation before served on
    /// (`failed`); it was undone, the builds before restored or the builds on trial rolled back
    /// (`rolled back`).
    private(set) var lastUpgrade: (at: MonotonicInstant, result: UpgradeRecord.Result)?

    /// How long each plugin took to answer the last health check the generation that served
    /// told of since the supervisor started, in seconds.
    private(set) var healthDurations: [String: Double] = [:]

    mutating func toldHealthChecks(_ durations: [String: Double]) {
        healthDurations = durations
    }

    /// An upgrade ended at `now` with `result`.
    mutating func upgradeEnded(_ result: UpgradeRecord.Result, at now: MonotonicInstant) {
        lastUpgrade = (now, result)
    }

    /// A build an upgrade brought in, and the build it replaced, until an instant.
    struct Trial: Equatable {
        var build: Build
        let replaced: Build
        let until: MonotonicInstant
        /// The plugin's permanent build when the trial began: the build it replaced, unless
        /// that one was on trial itself, then the permanent build of that trial.
        let permanent: Build
    }

    // MARK: The rules of blame

    /// The plugins (indices into what `worker` published) the documented rules blame for its
    /// end, from what really happened: nobody when a plugin file it loaded was written in place
    /// under it; the plugin a crash or `exit()` record names; the plugins that ran at `_exit()`;
    /// for a SIGKILL from outside, or a signal that kept it stopped, only a plugin in a short
    /// call; the plugin whose step overran. `dying`: the death to judge it by, when not the
    /// one it really had.
    static func blamed(_ worker: SimulatedWorld.Worker, dying: Death? = nil) -> [Int] {
        guard let death = dying ?? worker.death else { return [] }
        if case .intended(let failed) = death { return failed.map { [$0] } ?? [] }
        if worker.end?.rewrittenUnderIt == true { return [] }
        switch death {
        case .crash(let culprit): return culprit.map { [$0] } ?? []
        case .exitCall(let culprit): return [culprit]
        case .underscoreExit: return (worker.end?.running ?? []).map(\.plugin.index)
        case .killedFromOutside: return (worker.end?.running ?? []).filter { WorldRules.inShortCall($0.phase) }.map(\.plugin.index)
        case .killedBySupervisor(.overran(let owner)): return [owner]
        case .killedBySupervisor(.stayedSuspended(let running)): return running.filter { WorldRules.inShortCall($0.phase) }.map(\.plugin.index)
        case .killedBySupervisor(.stopDeadline), .killedBySupervisor(.notNeeded): return []
        case .intended: return []
        }
    }

    /// The plugins (indices into what `worker` published) an end is blamed on, as the status
    /// counts it (`failures`, "ends of a generation blamed on it"): by the rules of blame, and,
    /// for a worker the supervisor ended because it did not stop in time, the plugins whose code
    /// still ran then (operations.md, "Stopping": "plugin Ticker (...) was shutting down").
    /// A worker the supervisor sent SIGKILL before it heard of its end is judged by why it sent
    /// it: whatever else ended it first, its end looks the same.
    static func blamedForItsEnd(_ worker: SimulatedWorld.Worker) -> [Int] {
        let death = worker.killedBecause.map { .killedBySupervisor($0) } ?? worker.death
        guard case .killedBySupervisor(.stopDeadline(let whileSuspended)) = death, worker.end?.rewrittenUnderIt != true else {
            return blamed(worker, dying: death)
        }
        // A signal that kept it stopped kept its plugins from stopping: only one in a short call is suspected.
        return (worker.end?.running ?? []).filter { !whileSuspended || WorldRules.inShortCall($0.phase) }.map(\.plugin.index)
    }

    /// The supervisor heard at `now` of the end of `worker`: each plugin it is blamed on failed once more.
    mutating func ended(_ worker: SimulatedWorld.Worker, at now: MonotonicInstant) {
        for culprit in Self.blamedForItsEnd(worker) where worker.builds.indices.contains(culprit) {
            let build = worker.builds[culprit]
            failures[build.name] = ((failures[build.name]?.count ?? 0) + 1, now, build.version)
        }
    }

    /// The builds to blame for an upgrade's candidate that failed, by the rules: of those its
    /// end blames, the ones it changed from `before` (a plugin serving unchanged before is not
    /// judged by a new worker's end); when it gave up on the new set of files as a whole
    /// without naming a plugin, every build that changed.
    static func suspects(of candidate: SimulatedWorld.Worker, comparedTo before: [Build]) -> [Build] {
        let changed = candidate.builds.filter { !before.contains($0) }
        if case .intended(nil) = candidate.death { return changed }
        return blamed(candidate).compactMap { candidate.builds.indices.contains($0) ? candidate.builds[$0] : nil }.filter(changed.contains)
    }

    // MARK: What a correct host does

    /// A failure judged as the rules say: `builds` are left out from now on. A build on trial
    /// left out is on trial no more (docs/operations.md, "A build's life": on trial -> left out).
    ///
    /// - Returns: Whether leaving them out heals it: one of them was never blamed before.
    @discardableResult
    mutating func leaveOut(_ builds: [Build], because reason: String, at now: MonotonicInstant) -> Bool {
        let heals = builds.contains { !everBlamed.contains($0) }
        for build in builds {
            everBlamed.insert(build)
            if evidence[build] == nil { evidence[build] = (reason, now) }
        }
        // A trial that ran to its end by now passed first.
        settleTrials(at: now)
        endTrials(of: builds)
        return heals
    }

    /// An upgrade of `builds` failed with nobody to blame: they are not tried again until
    /// their files change or an operator's restart.
    mutating func abandon(_ builds: [Build]) {
        abandoned.formUnion(builds)
    }

    /// An operator's restart of `names` that the host acted on at `now`. A trial that ran to
    /// its end before passed first, as things were then: a build left out when it passed does
    /// not pass in front of it once forgiven.
    mutating func forgive(_ names: [String], at now: MonotonicInstant) {
        settleTrials(at: now)
        for build in evidence.keys where names.contains(build.name) { evidence[build] = nil }
    }

    /// Whether `build` has evidence of fault in force.
    func isLeftOut(_ build: Build) -> Bool { evidence[build] != nil }

    // MARK: Trials

    /// An upgrade's generation took over from one that ran `before`: each build it runs that
    /// replaced another of its plugin is on trial until `until`.
    mutating func beginTrials(of running: [Build], replacing before: [Build], at now: MonotonicInstant, until: MonotonicInstant) {
        for build in running {
            guard let replaced = before.first(where: { $0.plugin == build.plugin }), replaced != build else { continue }
            settleTrials(at: now)
            let earlier = trials[build.plugin].flatMap { $0.build == replaced && $0.until > now ? $0 : nil }
            trials[build.plugin] = Trial(build: build, replaced: replaced, until: until, permanent: earlier?.permanent ?? replaced)
        }
    }

    /// The trial of `build` in force at `now`, if that build is on trial.
    func trial(of build: Build, at now: MonotonicInstant) -> Trial? {
        guard let trial = trials[build.plugin], trial.build == build, trial.until > now else { return nil }
        return trial
    }

    /// The trials in force at `now`.
    func trials(at now: MonotonicInstant) -> [Trial] {
        trials.values.filter { $0.until > now }.sorted { $0.build.plugin < $1.build.plugin }
    }

    /// A generation that serves runs `builds`: each not on trial, and not left out, is permanent.
    /// A plugin on trial that serves another build, not its trial's build before nor one left
    /// out (its file was written in place, or replaced, and a restart loaded it as it is now):
    /// the trial goes on with that build, replacing the same build, until the same time.
    mutating func served(_ builds: [Build], at now: MonotonicInstant) {
        settleTrials(at: now)
        for build in builds { toBringBack[build.plugin] = build }
        for build in builds {
            guard var trial = trials[build.plugin], trial.until > now, trial.build != build, trial.replaced != build, !isLeftOut(build)
            else { continue }
            trial.build = build
            trials[build.plugin] = trial
        }
        for build in builds where trial(of: build, at: now) == nil && !isLeftOut(build) { makePermanent(build) }
    }

    /// A rollback goes back to `builds`: each is what a restore brings back of its plugin.
    mutating func wentBack(to builds: [Build]) {
        for build in builds { toBringBack[build.plugin] = build }
    }

    /// An operator accepted the trials of `builds`: they are permanent.
    mutating func accept(_ builds: [Build], at now: MonotonicInstant) {
        settleTrials(at: now)
        endTrials(of: builds)
        for build in builds {
            makePermanent(build)
            if let serving = servingInstead(of: build) { makePermanent(serving) }
        }
    }

    /// The permanent builds of `plugin` kept at `now`, the newest last.
    func permanent(of plugin: Int, at now: MonotonicInstant) -> [Build] {
        var kept = permanentBuilds[plugin] ?? []
        // A trial that ran to its end since the last change passed: its build is the newest,
        // unless another build of the plugin serves (the trial's build no longer ran).
        if let passed = trials[plugin], passed.until <= now {
            Self.add(passed.build, to: &kept)
            if let serving = servingInstead(of: passed.build) { Self.add(serving, to: &kept) }
        }
        return kept
    }

    /// The build of `build`'s plugin that served last, when it is another and nothing leaves it
    /// out: the newest permanent build is the one that served last, so a trial's build that
    /// stopped running passes behind it.
    private func servingInstead(of build: Build) -> Build? {
        guard let serving = toBringBack[build.plugin], serving != build, !isLeftOut(serving) else { return nil }
        return serving
    }

    /// The trials that ran to their end by `now` passed: their builds are permanent, in the
    /// order of their ends, before anything that happens at `now`.
    private mutating func settleTrials(at now: MonotonicInstant) {
        for trial in trials.values.sorted(by: { $0.until < $1.until }) where trial.until <= now {
            trials[trial.build.plugin] = nil
            makePermanent(trial.build)
            if let serving = servingInstead(of: trial.build) { makePermanent(serving) }
        }
    }

    /// The life docs/operations.md's table gives `build` by the truth at `now`: left out with
    /// evidence of fault; on trial, or awaiting its trial again; of the permanent builds kept
    /// that are neither, the newest `permanent` and the rest `kept`; else not named.
    func life(of build: Build, at now: MonotonicInstant) -> WorldBuildLife {
        if isLeftOut(build) { return .leftOut }
        if isOnTrial(build, at: now) { return .onTrial }
        let proved = permanent(of: build.plugin, at: now).reversed().filter { !isLeftOut($0) && !isOnTrial($0, at: now) }
        if proved.first == build { return .permanent }
        return proved.contains(build) ? .kept : .unnamed
    }

    /// Whether `build` is on trial at `now`, or awaits its trial again.
    private func isOnTrial(_ build: Build, at now: MonotonicInstant) -> Bool {
        trial(of: build, at: now) != nil || awaitingTrial[build] != nil
    }

    /// What an operator's rollback of `plugin`, whose build `running` serves, brings back, by
    /// docs/operations.md: the build its trial replaced, when that is what is asked for; else
    /// the newest permanent build kept before the one that runs, of `version` when given, that
    /// has no evidence of fault. `nil`: there is none, and the rollback is refused.
    func rollbackTarget(of plugin: Int, running: Build, to version: String?, at now: MonotonicInstant) -> Build? {
        if let trial = trial(of: running, at: now), version == nil || trial.replaced.version == version { return trial.replaced }
        return permanent(of: plugin, at: now).reversed().first { build in
            build != running && !isLeftOut(build) && (version == nil || build.version == version)
        }
    }

    private mutating func makePermanent(_ build: Build) {
        var kept = permanentBuilds[build.plugin] ?? []
        Self.add(build, to: &kept)
        permanentBuilds[build.plugin] = kept
    }

    /// `build` is the newest of `kept`, of which the newest `permanentKept` are kept.
    private static func add(_ build: Build, to kept: inout [Build]) {
        guard kept.last != build else { return }
        kept.removeAll { $0 == build }
        kept.append(build)
        if kept.count > permanentKept { kept.removeFirst() }
    }

    /// The supervisor was killed at `now` and started again: what the record keeps outlives it,
    /// as docs/operations.md says, and nothing else does. A build left out stays out while its
    /// file holds it or a copy of it is kept; the permanent builds with a copy are kept; a build
    /// on trial whose file holds it awaits its trial again. What was only in the process (blames
    /// forgiven, upgrades abandoned) is forgotten. A damaged record (`torn`) keeps nothing.
    mutating func supervisorRestarted(at now: MonotonicInstant, torn: Bool, fileHolds: (Build) -> Bool, hasCopy: (Build) -> Bool) {
        guard !torn else {
            self = WorldTruth()
            return
        }
        settleTrials(at: now)
        for trial in trials.values where trial.until > now { awaitingTrial[trial.build] = trial.permanent }
        awaitingTrial = awaitingTrial.filter { build, _ in fileHolds(build) && !isLeftOut(build) }
        trials = [:]
        for plugin in permanentBuilds.keys { permanentBuilds[plugin] = permanentBuilds[plugin]?.filter(hasCopy) }
        let kept = evidence.filter { build, _ in fileHolds(build) || permanentBuilds[build.plugin]?.contains(build) == true }
        if kept.count != evidence.count { evidence = kept }
        everBlamed = Set(evidence.keys)
        abandoned = []
        failures = [:]
        lastUpgrade = nil
        healthDurations = [:]
    }

    /// The host serves: the builds awaiting their trial may be loaded again.
    mutating func hostServes() {
        if !awaitingTrial.isEmpty { awaitingTrial = [:] }
    }

    /// An operator rolled back `plugin`: its trial ends, whichever build it was of.
    mutating func endTrial(ofPlugin plugin: Int, at now: MonotonicInstant) {
        settleTrials(at: now)
        trials[plugin] = nil
    }

    /// The trials of `builds` end: they failed, or an operator ended them.
    mutating func endTrials(of builds: [Build]) {
        for build in builds where trials[build.plugin]?.build == build { trials[build.plugin] = nil }
    }
}

extension SimulatedWorld {
    /// The version the simulated manifest of a build with `stamp` says.
    static func version(stamp: Int64) -> String {
        stamp >= 0 && stamp < versions.count ? versions[Int(stamp)] : "1.0.\(stamp)"
    }

    /// The versions of the first stamps, made once: a worker tells its plugins' versions at
    /// every step, and making each string again is a measurable part of a run.
    private static let versions = (0..<1024).map { "1.0.\($0)" }
}
