/// The supervisor's one record of what runs: per plugin, the build that serves, the build
/// held open for a rollback, each of its builds the host knows with its one life (on trial,
/// permanent, kept, left out and why), and the failures blamed on it.
/// The status, `STATUS=`, the supervisor's lines and the metrics are all read from it, so
/// that they cannot tell different stories; the machine alone writes it, from the facts its
/// driver reports (what a generation runs and tells, which builds the driver could hold).
struct BuildLedger: Sendable {
    /// One plugin, as far as the host knows it.
    struct Record: Equatable, Sendable {
        let name: String
        /// Its file, as reports name it: the serving build's, or the last one seen.
        var file: String?
        /// The build the generation that speaks for the host runs, while that generation serves.
        var serving: PublishedPlugin?
        /// What that generation last told of it: its health, or why it does not run.
        var condition: PluginCondition?
        /// Why its file's build is left out, when that generation runs the build held from
        /// before in its place (it tells both).
        var fileLeftOut: String?
        /// The build the driver holds open, which a rollback can bring back.
        var held: PublishedPlugin?
        /// Why the build that ran last is not held, when the driver could not hold it.
        var notHeld: NotHeld?
        /// Its builds the host knows, each once with its one life (``BuildLife``): on trial,
        /// permanent, kept, left out. Those whose copies the record keeps (they became
        /// permanent) are in the order they did, the newest last.
        fileprivate(set) var builds: [Known] = []
        /// The ends of a generation blamed on it: how many, and the last.
        var failures = 0
        var lastFailure: FailureRecord?
        /// Whether it ran in the last generation that served: once it stops serving, it is
        /// waiting to serve again rather than gone.
        var ranLast = false
        /// The build that served last, in any generation that served.
        var lastServed: PublishedPlugin?
        /// Where its build that serves came from, as the generation that serves loaded it.
        var origin: BuildOrigin?

        /// The build an upgrade brought in, while it is on trial.
        var trial: Trial? {
            for known in builds { if case .onTrial(let trial?) = known.life { return trial } }
            return nil
        }
        /// A build that was on trial when the host last stopped, as its record says: no
        /// generation loads it until the host serves, and it is then tried again as an upgrade.
        var awaitingTrial: Known? { builds.first { $0.life == .onTrial(nil) } }
        /// The builds no generation may load, until their files change or an operator's restart
        /// names their plugin: the newest last.
        var leftOut: [Known] { builds.filter(\.isLeftOut).sorted { $0.changedAt < $1.changedAt } }
        /// The builds whose copies the record keeps (they became permanent), the newest last.
        var permanent: [PublishedPlugin] { builds.filter(\.hasCopy).map(\.build) }

        /// Whether the status has something to say of it: it runs, was told of, has a build
        /// left out or on trial, or was blamed.
        var isShown: Bool {
            // Matched, not compared with `nil`: comparing copies each optional record first.
            guard case .none = serving, case .none = condition, case .none = held else { return true }
            return failures != 0 || ranLast || builds.contains { known in
                switch known.life {
                case .onTrial, .leftOut: true
                case .permanent, .kept: false
                }
            }
        }

        /// Whether nothing of it is to be kept: the status says nothing of it, and it has no
        /// permanent build (those outlive its file's removal, should the file come back).
        var isForgettable: Bool { !isShown && builds.isEmpty }

        /// Where `build` is among its builds.
        fileprivate func position(of build: PublishedPlugin) -> Int? {
            builds.firstIndex { $0.build.isSameBuild(as: build) }
        }

        /// `build` has `life` from now on: its entry, if it has one, else a new one. `changedAt`
        /// orders it among the builds left out.
        fileprivate mutating func give(_ build: PublishedPlugin, _ life: BuildLife, changedAt: Int? = nil) {
            if let index = position(of: build) {
                builds[index].build = build
                builds[index].life = life
                if let changedAt { builds[index].changedAt = changedAt }
            } else {
                builds.append(Known(build: build, life: life, hasCopy: false, changedAt: changedAt ?? 0))
            }
            settle()
        }

        /// Of the builds that may come back, the newest to become permanent is permanent (the
        /// one a start runs), the others kept.
        fileprivate mutating func settle() {
            let newest = builds.lastIndex { $0.life == .permanent || $0.life == .kept }
            for index in builds.indices where builds[index].life == .permanent || builds[index].life == .kept {
                builds[index].life = index == newest ? .permanent : .kept
            }
        }

        /// The build at `index` has no life but its copy: kept, if the record keeps one, else
        /// forgotten.
        fileprivate mutating func release(at index: Int) {
            if builds[index].hasCopy { builds[index].life = .kept } else { builds.remove(at: index) }
            settle()
        }

        /// Where its build on trial is, while one is.
        fileprivate var trialPosition: Int? {
            builds.firstIndex { if case .onTrial(.some) = $0.life { true } else { false } }
        }

        /// Whether the driver holds the build its trial replaced.
        fileprivate mutating func setReplacedHeld(_ held: Bool) {
            guard let index = trialPosition, case .onTrial(var trial?) = builds[index].life else { return }
            trial.replacedHeld = held
            builds[index].life = .onTrial(trial)
        }

        /// Its trial goes on with `build`, which serves in place of the build on trial (whose
        /// file was written in place, or replaced): that one keeps only its copy.
        fileprivate mutating func carryTrial(to build: PublishedPlugin) {
            guard let index = trialPosition, case .onTrial(var trial?) = builds[index].life else { return }
            trial.build = build
            release(at: index)
            give(build, .onTrial(trial))
        }

        /// `build` became permanent: the newest whose copy the record keeps, of which it keeps
        /// the newest few (``BuildRecord/permanentPerPlugin``). A build left out or on trial
        /// stays so, with its copy kept.
        fileprivate mutating func keepCopy(of build: PublishedPlugin) {
            var known = position(of: build).map { builds.remove(at: $0) } ?? Known(build: build, life: .kept, hasCopy: true, changedAt: 0)
            known.hasCopy = true
            switch known.life {
            case .permanent, .kept:
                known.life = .kept
                known.build = build
            case .onTrial, .leftOut:
                break
            }
            builds.append(known)
            while builds.count(where: \.hasCopy) > BuildRecord.permanentPerPlugin, let oldest = builds.firstIndex(where: \.hasCopy) {
                switch builds[oldest].life {
                case .permanent, .kept: builds.remove(at: oldest)
                case .onTrial, .leftOut: builds[oldest].hasCopy = false
                }
            }
            settle()
        }
    }

    /// One build of a plugin, with its one life.
    struct Known: Equatable, Sendable {
        var build: PublishedPlugin
        var life: BuildLife
        /// Whether the record keeps a copy of its bytes: it became permanent, and is among the
        /// newest few of its plugin that did.
        var hasCopy: Bool
        /// When it was left out, by the ledger's count: the builds left out are told newest first.
        var changedAt: Int

        var isLeftOut: Bool { life.reason != nil }
        /// Why it is left out, when it is.
        var reason: LeaveOutReason? { life.reason }
    }

    /// A build an upgrade brought in, on trial until an instant: a failure blamed on it
    /// brings back the build it replaced, which the driver holds open until the trial ends.
    struct Trial: Equatable, Sendable {
        var build: PublishedPlugin
        let replaced: PublishedPlugin
        let until: MonotonicInstant
        /// Whether the driver holds the replaced build, so that it can come back.
        var replacedHeld = true
    }

    /// Why the driver does not hold the build of a plugin that ran last.
    enum NotHeld: Equatable, Sendable {
        /// Its file no longer holds that build (replaced, or written in place) when the driver
        /// came to hold it, and no copy of it is kept.
        case fileChanged
        /// Its held file was written in place: the copy held reads other bytes now, and the
        /// file is loaded as it is.
        case writtenInPlace
    }

    /// The plugins, in the order the host first heard of them.
    private(set) var records: [Record] = [] {
        didSet {
            followed = nil
            told = nil
        }
    }
    /// Where each plugin's record is in ``records``, by name.
    private var positions: [String: Int] = [:]
    /// The builds the driver said it holds at its last answer, less those whose held files
    /// were written in place since: a build it holds can come back, whatever the ledger holds
    /// it as (a rollback that failed leaves the build it went back to as the plugin's).
    private var heldByDriver: [PublishedPlugin] = []
    /// The plugins with a build on trial: an event reads their trials, not every record.
    private var namesOnTrial: Set<String> = []
    /// What ``takeSummary()`` said last, while nothing changed the records since.
    private var told: PluginSummary?
    /// What ``follow(_:)`` took last, while nothing else changed the records since: taking the
    /// same again changes nothing, so an event that changed neither costs nothing here.
    private var followed: Followed?

    private struct Followed: Equatable {
        let number: Int?
        let serves: Bool
        let plugins: [PublishedPlugin]?
        let conditions: [PluginCondition]?
        let substitutes: [BuildSubstitute]?
    }
    /// Whether the generation that speaks for the host serves, as ``follow(_:)`` took it last.
    private var speakingServes = false
    /// Counts the builds left out, to order them.
    private var leftOutCount = 0
    /// Counts the changes to what the record on disk keeps (what is left out, permanent, on
    /// trial): it is written again only when it moved.
    private(set) var recordChanges = 0
    /// Every build blamed so far, by name and contents: a failure that blames a build for the
    /// first time is healed by leaving it out, one that blames none anew is not.
    private var blamedEver: [(name: String, identity: FileIdentity)] = []

    // MARK: Reading

    /// The record of `name`, if the host knows the plugin.
    subscript(name: String) -> Record? {
        positions[name].map { records[$0] }
    }

    /// Whether `build` is left out: the same plugin, the same contents (a copy held open for a
    /// rollback is that build too).
    func isLeftOut(_ build: PublishedPlugin) -> Bool {
        guard let identity = build.identity else { return false }
        return self[build.name]?.builds.contains { $0.isLeftOut && $0.build.identity.map(identity.hasSameContents) == true } == true
    }

    /// The builds left out, and those awaiting their trial, as a generation's plan names them.
    var excluded: [BuildSelection<LeaveOutReason>.Excluded] {
        records.flatMap { record in
            record.leftOut.compactMap { known in
                guard let identity = known.build.identity, let reason = known.reason else { return nil }
                return BuildSelection<LeaveOutReason>.Excluded(name: record.name, file: known.build.file, identity: identity, reason: reason)
            }
                + (record.awaitingTrial.flatMap { known in
                    known.build.identity.map {
                        [BuildSelection<LeaveOutReason>.Excluded(name: record.name, file: known.build.file, identity: $0, reason: .onTrialWhenTheHostStopped, awaitsTrial: true)]
                    }
                } ?? [])
        }
    }

    /// What the next generation must leave out, and the builds held to load in their place:
    /// of each plugin, the newest build held that is not left out (the build a trial
    /// replaced, once the build on trial is left out).
    var selection: BuildSelection<LeaveOutReason> {
        BuildSelection(
            excluded: excluded,
            substitutes: records.compactMap { record in
                let candidates = [record.held, record.trial.flatMap { $0.replacedHeld ? $0.replaced : nil }].compactMap { $0 }
                guard let held = candidates.first(where: { !isLeftOut($0) }), let identity = held.identity else { return nil }
                return BuildSubstitute(name: held.name, file: held.file, identity: identity)
            })
    }

    /// The builds held now.
    var held: [PublishedPlugin] { records.compactMap(\.held) }

    /// The positions of the records with a trial, in the records' order.
    private var trialPositions: [Int] { namesOnTrial.compactMap { positions[$0] }.sorted() }

    /// Whether a build is on trial now.
    var hasTrials: Bool { !namesOnTrial.isEmpty }

    /// The builds on trial now, earliest end first.
    var trials: [Trial] { trialPositions.compactMap { records[$0].trial }.sorted { $0.until < $1.until } }

    /// When the first trial ends, while a build is on trial; read after every event, so it
    /// reads only the records with a trial.
    var nextTrialEnd: MonotonicInstant? {
        var next: MonotonicInstant?
        for name in namesOnTrial {
            guard let index = positions[name], let until = records[index].trial?.until else { continue }
            if next.map({ until < $0 }) ?? true { next = until }
        }
        return next
    }

    /// What the driver must hold besides the builds that run: the builds trials replaced.
    var replacedOnTrial: [PublishedPlugin] { trialPositions.compactMap { records[$0].trial?.replaced } }

    /// The trial of `build`, when that build of its plugin is on trial.
    func trial(of build: PublishedPlugin) -> Trial? {
        guard let trial = self[build.name]?.trial, trial.build.isSameBuild(as: build) else { return nil }
        return trial
    }

    /// Whether leaving out `builds` would heal a failure: one of them was never blamed before.
    /// A failure that blames nobody, or only builds blamed before (forgiven by an operator's
    /// restart, and failing again), is one that leaving out does not heal.
    func healsByLeavingOut(_ builds: [PublishedPlugin]) -> Bool {
        builds.contains { build in build.identity.map { !wasBlamed(build.name, $0) } ?? false }
    }

    /// Whether this build of `name` was ever blamed.
    private func wasBlamed(_ name: String, _ identity: FileIdentity) -> Bool {
        blamedEver.contains { $0.name == name && $0.identity.hasSameContents(as: identity) }
    }

    // MARK: Facts

    /// What the machine tells the ledger: what happened to builds.
    enum Fact {
        /// What a record on disk keeps, as proved by the process that wrote it: the host starts.
        case recorded(BuildRecord)
        /// The generation that speaks for the host runs and tells this; `nil` when none speaks.
        case speaks(Generation?)
        /// `build` failed: it is left out for `reason`.
        case failed(PublishedPlugin, because: LeaveOutReason)
        /// The end of a generation is blamed on plugin `name`.
        case blamed(name: String, FailureRecord)
        /// An operator's restart names these plugins: their builds left out may come back.
        case forgiven([String])
        /// The driver holds `held` of the builds it was asked to hold, `asked`.
        case holding([PublishedPlugin], asked: [PublishedPlugin])
        /// `build` goes on trial until `until`, replacing `replaced`.
        case trialBegins(PublishedPlugin, replacing: PublishedPlugin, until: MonotonicInstant)
        /// The trial of plugin `name` passed its time, or an operator accepted it.
        case trialPassed(name: String)
        /// An operator rolls back: the build that runs is left out for `reason`.
        case rolledBack(Trial, because: LeaveOutReason)
        /// The files of these builds were written in place, as `reason` says.
        case rewritten([PublishedPlugin], because: NotHeld)
        /// The host serves: the builds awaiting their trial since it started may be loaded now.
        case serves
    }

    /// What follows from a fact, for the machine to act on.
    enum Consequence: Equatable, Sendable {
        /// A build on trial failed (left out, or rolled back): the build it replaced comes back.
        case trialFailed(Trial)
        /// A trial passed: its build is permanent.
        case trialPassed(Trial)
        /// Held builds that can no longer come back from their files (written in place): the
        /// driver may hold them again from elsewhere (the record's copy).
        case lost([PublishedPlugin])
        /// Builds awaited their trial since the host started: an upgrade is to load them.
        case awaitedTrialsDue
    }

    /// Takes `fact` in: each build moves in its life as docs/operations.md's table says.
    ///
    /// - Returns: What follows from it.
    @discardableResult
    mutating func handle(_ fact: Fact) -> [Consequence] {
        switch fact {
        case .recorded(let record):
            remember(record)
        case .speaks(let generation):
            follow(generation)
        case .failed(let build, let reason):
            return leaveOut(build, because: reason).map { [.trialFailed($0)] } ?? []
        case .blamed(let name, let failure):
            recordFailure(of: name, failure)
        case .forgiven(let names):
            forgive(names)
        case .holding(let held, let asked):
            holding(held, of: asked)
        case .trialBegins(let build, let replaced, let until):
            beginTrial(of: build, replacing: replaced, until: until)
        case .trialPassed(let name):
            return passTrial(of: name).map { [.trialPassed($0)] } ?? []
        case .rolledBack(let rollback, let reason):
            rollBack(rollback, because: reason)
        case .rewritten(let builds, let reason):
            let lost = lose(heldIn: builds, because: reason)
            return lost.isEmpty ? [] : [.lost(lost)]
        case .serves:
            return endAwaitingTrials() ? [.awaitedTrialsDue] : []
        }
        return []
    }

    // MARK: Writing

    /// Leaves `build` out of every generation from now on, until its file changes or an
    /// operator's restart names its plugin. A build on trial is so no more: its trial fails,
    /// and the build it replaced, when the driver holds it, is held as the plugin's.
    ///
    /// - Returns: The trial that failed, when the build was on trial.
    @discardableResult
    private mutating func leaveOut(_ build: PublishedPlugin, because reason: LeaveOutReason) -> Trial? {
        guard let identity = build.identity else { return nil }
        if !wasBlamed(build.name, identity) { blamedEver.append((build.name, identity)) }
        guard !isLeftOut(build) else { return nil }
        leftOutCount += 1
        let order = leftOutCount
        var failed: Trial?
        update(build.name) { record in
            if let index = record.position(of: build), case .onTrial(let trial?) = record.builds[index].life {
                failed = trial
                if trial.replacedHeld { record.held = trial.replaced }
            }
            record.give(build, .leftOut(reason), changedAt: order)
            record.file = record.file ?? build.file
        }
        recordChanges += 1
        return failed
    }

    /// Leaves out the builds a record on disk kept, as proved by the process that wrote it.
    /// Its permanent builds are known, each build it has on trial awaits its trial again, and
    /// the permanent one (by its life) is held: the driver holds its copy.
    private mutating func remember(_ record: BuildRecord) {
        for entry in record.leftOut {
            let build = PublishedPlugin(name: entry.name, file: entry.file, version: entry.version, identity: entry.identity, state: .running)
            leaveOut(build, because: entry.reason)
        }
        for entry in record.permanent {
            update(entry.name) { $0.keepCopy(of: entry.published) }
        }
        for entry in record.onTrial where !isLeftOut(entry.published) {
            update(entry.name) { $0.give(entry.published, .onTrial(nil)) }
        }
        for index in records.indices {
            if let permanent = lives(of: records[index].name).first(where: { $0.life == .permanent }) {
                records[index].held = permanent.build
            }
        }
    }

    /// The builds of `name` the host knows, each once with its life: the same rule the record
    /// on disk is read by (``BuildLife/lives(onTrial:permanent:leftOut:isSame:)``).
    func lives(of name: String) -> [(build: PublishedPlugin, life: BuildLife)] {
        guard let builds = self[name]?.builds else { return [] }
        func rank(_ life: BuildLife) -> Int {
            switch life {
            case .onTrial: 0
            case .permanent: 1
            case .kept: 2
            case .leftOut: 3
            }
        }
        // Kept newest first (the newest to become permanent last among them), left out newest first.
        return builds.indices.sorted { first, second in
            let (a, b) = (builds[first], builds[second])
            if rank(a.life) != rank(b.life) { return rank(a.life) < rank(b.life) }
            return a.isLeftOut ? a.changedAt > b.changedAt : first > second
        }.map { (builds[$0].build, builds[$0].life) }
    }

    /// The builds awaiting their trial since the start may be loaded now: the host serves.
    ///
    /// - Returns: Whether there were any, so that an upgrade loads them.
    private mutating func endAwaitingTrials() -> Bool {
        var any = false
        for index in records.indices {
            while let awaiting = records[index].builds.firstIndex(where: { $0.life == .onTrial(nil) }) {
                records[index].release(at: awaiting)
                any = true
            }
        }
        if any { recordChanges += 1 }
        return any
    }

    /// Where `build` came from, as `generation` loaded it: a held file or the record's copy,
    /// in place of its plugin's file, or the file.
    private func origin(of build: PublishedPlugin, loadedBy generation: Generation?) -> BuildOrigin {
        let substitute = generation?.substitutes.first { substitute in
            substitute.name == build.name && build.identity.map(substitute.identity.hasSameContents) == true
        }
        return substitute.map { $0.fromCopy ? .record : .held } ?? .file
    }

    /// `build` is permanent: the newest of its plugin's permanent builds.
    private mutating func makePermanent(_ build: PublishedPlugin, at index: Int) {
        guard build.identity != nil, records[index].permanent.last?.isSameBuild(as: build) != true else { return }
        records[index].keepCopy(of: build)
        recordChanges += 1
    }

    /// What the record on disk keeps: the builds left out and the permanent builds, the newest
    /// few of each plugin, and the builds on trial (those awaiting it included).
    var record: BuildRecord {
        BuildRecord(
            leftOut: records.flatMap { record in
                record.leftOut.suffix(BuildRecord.leftOutPerPlugin).compactMap { known in
                    guard let identity = known.build.identity, let reason = known.reason else { return nil }
                    return BuildRecord.LeftOut(name: record.name, file: known.build.file, version: known.build.version, identity: identity, reason: reason)
                }
            },
            permanent: records.flatMap { record in
                record.permanent.compactMap { build in build.identity.map { BuildRecord.Build(build, identity: $0) } }
            },
            onTrial: records.compactMap { record in
                guard let known = record.builds.first(where: { if case .onTrial = $0.life { true } else { false } }),
                    let identity = known.build.identity
                else { return nil }
                return BuildRecord.Build(known.build, identity: identity)
            })
    }

    /// `plugin-host restart NAME...`: the builds of these plugins left out may come back.
    private mutating func forgive(_ names: [String]) {
        for index in records.indices where names.contains(records[index].name) && !records[index].leftOut.isEmpty {
            while let leftOut = records[index].builds.firstIndex(where: \.isLeftOut) { records[index].release(at: leftOut) }
            recordChanges += 1
        }
        prune()
    }

    /// A failure of generation that ended is blamed on `name`.
    private mutating func recordFailure(of name: String, _ failure: FailureRecord) {
        update(name) { record in
            record.failures += 1
            record.lastFailure = failure
        }
    }

    /// The driver holds `held` now, of the builds it was asked to hold, `asked`: the others it
    /// could not open as they were (their files changed before it could), and none is held.
    private mutating func holding(_ held: [PublishedPlugin], of asked: [PublishedPlugin]) {
        heldByDriver = held
        for index in records.indices {
            records[index].held = nil
            records[index].notHeld = nil
            records[index].setReplacedHeld(false)
        }
        for build in asked {
            let kept = held.first { $0.isSameBuild(as: build) }
            if let trial = self[build.name]?.trial, trial.replaced.isSameBuild(as: build) {
                update(build.name) { $0.setReplacedHeld(kept != nil) }
                continue
            }
            update(build.name) { record in
                record.held = kept
                record.notHeld = kept == nil ? .fileChanged : nil
            }
        }
    }

    /// `build` goes on trial until `until`, replacing `replaced`, which stays held meanwhile.
    private mutating func beginTrial(of build: PublishedPlugin, replacing replaced: PublishedPlugin, until: MonotonicInstant) {
        // Held as the plugin's build, or as the build an earlier trial replaced (which a
        // generation may run again, after that trial's build failed).
        let record = self[build.name]
        let heldBefore = record?.held.map { $0.isSameBuild(as: replaced) } == true
            || record?.trial.map { $0.replacedHeld && $0.replaced.isSameBuild(as: replaced) } == true
            || heldByDriver.contains { $0.isSameBuild(as: replaced) }
        let trial = Trial(build: build, replaced: replaced, until: until, replacedHeld: heldBefore)
        update(build.name) { record in
            // The plugin's trial before, if it had one, ends: its build keeps only its copy.
            while let before = record.builds.firstIndex(where: { known in
                if case .onTrial = known.life { !known.build.isSameBuild(as: build) } else { false }
            }) {
                record.release(at: before)
            }
            record.give(build, .onTrial(trial))
        }
        namesOnTrial.insert(build.name)
        recordChanges += 1
    }

    /// The trial of `name` passed, or an operator accepted it: its build is permanent. When
    /// another build of the plugin served last (its trial's build stopped running), that one
    /// stays the newest: the newest permanent build is the one that served last.
    ///
    /// - Returns: The trial that ended, if there was one.
    @discardableResult
    private mutating func passTrial(of name: String) -> Trial? {
        guard let trial = endTrial(of: name), let index = positions[name] else { return nil }
        makePermanent(trial.build, at: index)
        if let last = records[index].lastServed, !last.isSameBuild(as: trial.build), !isLeftOut(last) { makePermanent(last, at: index) }
        return trial
    }

    /// The trial of `name` ends, either way.
    ///
    /// - Returns: The trial that ended, if there was one.
    @discardableResult
    private mutating func endTrial(of name: String) -> Trial? {
        guard let trial = self[name]?.trial else { return nil }
        update(name) { record in
            if let index = record.trialPosition { record.release(at: index) }
        }
        namesOnTrial.remove(name)
        recordChanges += 1
        return trial
    }

    /// An operator rolls back `rollback`: the build that runs is left out, its trial (if any)
    /// ends, and the build before, which the driver holds, is held as the plugin's for the
    /// next generation to load in its place.
    private mutating func rollBack(_ rollback: Trial, because reason: LeaveOutReason) {
        let name = rollback.build.name
        endTrial(of: name)
        leaveOut(rollback.build, because: reason)
        update(name) { $0.held = rollback.replaced }
    }

    /// The files of `rewritten` were written in place: a held build that is one of those builds
    /// (the same file with the same contents as it had) reads other bytes now, and can no
    /// longer be brought back from that file. A build held from the same file after it was
    /// written is intact.
    ///
    /// - Returns: The held builds lost, which the driver may hold again from elsewhere (the
    ///   record's copy).
    @discardableResult
    private mutating func lose(heldIn rewritten: [PublishedPlugin], because reason: NotHeld) -> [PublishedPlugin] {
        func isRewritten(_ build: PublishedPlugin) -> Bool { rewritten.contains { $0.isSameBuild(as: build) } }
        heldByDriver.removeAll(where: isRewritten)
        var lost: [PublishedPlugin] = []
        for index in records.indices {
            guard let held = records[index].held, isRewritten(held) else { continue }
            records[index].held = nil
            records[index].notHeld = reason
            lost.append(held)
        }
        for index in records.indices {
            guard let trial = records[index].trial, trial.replacedHeld, isRewritten(trial.replaced) else { continue }
            records[index].setReplacedHeld(false)
            lost.append(trial.replaced)
        }
        return lost
    }

    /// Takes what the generation that speaks for the host runs and tells: its running builds
    /// serve while it serves; its conditions say how each plugin does. `nil` when none speaks.
    private mutating func follow(_ speaking: Generation?) {
        let serves = speaking.map { if case .serving = $0.life { true } else { false } } ?? false
        if serves != speakingServes { told = nil }
        speakingServes = serves
        let conditions = speaking?.conditions
        // The same generation telling the same: nothing to take. Arrays compare by their storage
        // first, so the lists just compared are kept, and the next event compares them at once.
        let taking = Followed(
            number: speaking?.number, serves: serves, plugins: speaking?.plugins, conditions: conditions, substitutes: speaking?.substitutes)
        guard taking != followed else {
            followed = taking
            return
        }
        let running = speaking?.running ?? []
        let told = conditions ?? []
        // Every plugin it runs or told of has a record; each build and condition is matched
        // with its record by one lookup of its name, and nothing is copied.
        let runningAt = running.indices.map { recordPosition(of: running[$0].name) }
        let toldAt = told.indices.map { recordPosition(of: told[$0].name) }
        // Each record's running build (the last of its name) and what was told of it.
        var of = [(build: Int?, condition: Int?, leftOut: String?)](repeating: (nil, nil, nil), count: records.count)
        for index in running.indices { of[runningAt[index]].build = index }
        for index in told.indices {
            let position = toldAt[index]
            if told[index].state == .leftOut, of[position].leftOut == nil { of[position].leftOut = told[index].reason }
            // A worker that runs a held build in place of a left-out file tells both; the running one is the plugin's.
            if let before = of[position].condition, told[before].state.runs || !told[index].state.runs { continue }
            of[position].condition = index
        }
        for index in records.indices {
            let build = of[index].build.map { running[$0] }
            records[index].serving = serves ? build : nil
            records[index].origin = serves ? build.map { origin(of: $0, loadedBy: speaking) } : nil
            if serves, let build {
                records[index].ranLast = true
                records[index].lastServed = build
                // Its trial's build was written in place, or replaced, and a restart loaded the
                // file as it is now: the trial goes on with the build that serves.
                if let trial = records[index].trial, !trial.build.isSameBuild(as: build), !trial.replaced.isSameBuild(as: build), !isLeftOut(build) {
                    records[index].carryTrial(to: build)
                    recordChanges += 1
                }
                // A build that serves and is not on trial is permanent; one left out (its trial
                // failed or was rolled back, and it serves until the generation that replaces it
                // takes over) is not.
                if records[index].trial?.build.isSameBuild(as: build) != true, !isLeftOut(build) { makePermanent(build, at: index) }
            }
            if conditions != nil {
                records[index].condition = of[index].condition.map { told[$0] }
                records[index].fileLeftOut = build == nil ? nil : of[index].leftOut
            }
            if let file = build?.file {
                records[index].file = file
            } else if records[index].file == nil {
                records[index].file = records[index].condition?.file
            }
        }
        if serves {
            // What did not run in the generation that serves now did not run last.
            for index in records.indices where records[index].serving == nil { records[index].ranLast = false }
        }
        prune()
        followed = taking
    }

    private mutating func update(_ name: String, _ change: (inout Record) -> Void) {
        if let index = positions[name] {
            change(&records[index])
        } else {
            var record = Record(name: name)
            change(&record)
            append(record)
        }
        // A build left out while on trial is on trial no more.
        if namesOnTrial.contains(name), self[name]?.trial == nil { namesOnTrial.remove(name) }
    }

    /// Where the record of `name` is, once made if the host did not know the plugin.
    private mutating func recordPosition(of name: String) -> Int {
        if let position = positions[name] { return position }
        append(Record(name: name))
        return records.count - 1
    }

    private mutating func append(_ record: Record) {
        positions[record.name] = records.count
        records.append(record)
    }

    /// Forgets the plugins there is nothing to say of: not running, not told of, nothing left
    /// out, never blamed.
    private mutating func prune() {
        guard records.indices.contains(where: { records[$0].isForgettable }) else { return }
        records.removeAll { $0.isForgettable }
        positions = Dictionary(uniqueKeysWithValues: records.enumerated().map { ($0.element.name, $0.offset) })
    }

    // MARK: Status

    /// Each plugin once, as the status and the metrics tell it.
    var statuses: [PluginStatus] {
        records.filter(\.isShown).map { record in
            var status = PluginStatus(
                name: record.name, state: .notServing, reason: nil, version: record.condition?.version, file: record.file,
                failures: record.failures, lastFailure: record.lastFailure)
            status.held = record.held.map(\.version)
            if let trial = record.trial {
                status.trial = TrialStatus(version: trial.build.version, replaces: trial.replaced.version, until: trial.until,
                                           canRollBack: trial.replacedHeld)
            }
            if let serving = record.serving {
                let told = record.condition.map(\.state)
                status.state = told.flatMap { $0.runs ? $0 : nil } ?? .serving
                // What it told, and why its file's build is left out when the build held from
                // before runs in its place.
                let said = [told == .serving ? nil : record.condition?.reason, record.fileLeftOut].compactMap { $0 }
                status.reason = said.isEmpty ? nil : .told(said.joined(separator: "; "))
                status.version = serving.version
                status.file = serving.file
                status.build = serving.identity
                status.requires = serving.requires
                status.origin = record.origin
            } else if let condition = record.condition, condition.state == .notAdded {
                // Its file holds a build the generation could not add (a new one, since the
                // build left out was): what the file holds now is what the operator must fix.
                status.state = condition.state
                status.reason = condition.reason.map(PluginStatus.Reason.told)
                status.file = condition.file ?? record.file
            } else if let leftOut = record.leftOut.last, !(speakingServes && record.condition == nil) {
                status.state = .leftOut
                status.reason = leftOut.reason.map(PluginStatus.Reason.leftOut)
                status.version = leftOut.build.version
                status.file = leftOut.build.file
            } else if let condition = record.condition, !condition.state.runs {
                status.state = condition.state
                status.reason = condition.reason.map(PluginStatus.Reason.told)
                status.file = condition.file ?? record.file
            } else if speakingServes {
                // A generation serves, and neither runs it nor told of it: its file was removed
                // (a build left out included: the generation tells of one whose file it found).
                status.state = .removed
                status.reason = .fileGone
            } else {
                // It ran in the generation that served last, and waits for the next.
                status.state = .notServing
                status.reason = nil
            }
            return status
        }
    }

    /// What `STATUS=` says, as ``summary`` tells it; taken again while nothing changed, it is
    /// the summary told last, so that a notification that changes no plugin costs nothing here.
    mutating func takeSummary() -> PluginSummary {
        if let told { return told }
        let summary = self.summary
        told = summary
        return summary
    }

    /// What `STATUS=` says: how many plugins run, which are unwell, which run the build held
    /// from before in place of their file's, which are left out, which files were not added.
    private var summary: PluginSummary {
        let statuses = self.statuses
        let records = self.records.filter(\.isShown)
        var summary = PluginSummary()
        var notAdded: Set<String> = []
        // The statuses are in the shown records' order: each is read beside its record, by index.
        for index in statuses.indices {
            let status = statuses[index]
            if status.state.runs {
                summary.running += 1
                if status.state != .serving {
                    summary.unwell.append(PluginSummary.Entry(name: status.name, why: records[index].condition?.reason.map(PluginStatus.Reason.told)))
                    if status.state == .unhealthy { summary.unhealthy = true }
                }
                if let fileLeftOut = records[index].fileLeftOut {
                    summary.runningTheBuildBefore.append(PluginSummary.Entry(name: status.name, version: status.version ?? "?", why: .told(fileLeftOut)))
                }
            } else if status.state == .leftOut {
                summary.leftOut.append(PluginSummary.Entry(name: status.name, why: status.reason))
            } else if status.state == .notAdded, let file = status.file?.split(separator: "/").last {
                notAdded.insert(String(file))
            }
        }
        summary.notAdded = notAdded.sorted()
        return summary
    }
}

extension [BuildLedger.Consequence] {
    /// The trials that failed.
    var failedTrials: [BuildLedger.Trial] {
        compactMap { if case .trialFailed(let trial) = $0 { trial } else { nil } }
    }

    /// The held builds lost.
    var lost: [PublishedPlugin] {
        flatMap { consequence -> [PublishedPlugin] in
            if case .lost(let builds) = consequence { builds } else { [] }
        }
    }

    /// Whether builds awaited their trial since the host started.
    var awaitedTrialsDue: Bool {
        contains(.awaitedTrialsDue)
    }
}
