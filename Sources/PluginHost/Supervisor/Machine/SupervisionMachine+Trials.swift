/// Trials: the builds an upgrade brings in are on trial for `--trial`. A failure blamed on a
/// build on trial (it crashed, exited, hung, failed to get ready, or its health check says it
/// is unhealthy) brings back the build it replaced, which the driver holds open meanwhile: a
/// rollback. Once the trial ends the build is permanent, the build before is let go, and a
/// failure is judged as any other. An operator ends a trial at once either way
/// (`plugin-host accept`, `plugin-host rollback`). Blame stays on evidence: a failure that
/// blames nobody, or another plugin, is no reason to roll back.
extension SupervisionMachine {
    /// Generation `number`, an upgrade's, serves in place of the builds `replaced`: each
    /// build it changed goes on trial.
    mutating func beginTrials(of number: Int, replacing replaced: [PublishedPlugin]) {
        guard let limit = configuration.trial, limit > .zero else { return }
        var begun: [Announcement.BuildChange] = []
        for build in generations[number]?.running ?? [] where build.identity != nil {
            guard let before = replaced.first(where: { $0.name == build.name }), before.identity != nil, !before.isSameBuild(as: build)
            else { continue }
            ledger.handle(.trialBegins(build, replacing: before, until: now + limit))
            let staysAway: Announcement.StaysAway? = ledger.isLeftOut(before) ? .leftOut : ledger.trial(of: build)?.replacedHeld == true ? nil : .notHeld
            begun.append(Announcement.BuildChange(build: build, before: before, beforeStaysAway: staysAway))
        }
        guard !begun.isEmpty else { return }
        say(.onTrial(begun, for: limit))
    }

    /// What the driver holds: the builds `running`, and those the trials replaced.
    func buildsToHold(running: [PublishedPlugin]) -> [PublishedPlugin] {
        running.filter { $0.identity != nil } + ledger.replacedOnTrial.filter { replaced in !running.contains { $0.isSameBuild(as: replaced) } }
    }

    /// When the next trial ends, if one runs.
    var nextTrialEnd: MonotonicInstant? { ledger.nextTrialEnd }

    /// The trials that ended by now pass: their builds are permanent, and the builds they
    /// replaced are let go.
    mutating func endDueTrials() {
        guard let end = nextTrialEnd, end <= now else { return }
        let due = ledger.trials.filter { $0.until <= now }
        guard !due.isEmpty else { return }
        for trial in due { ledger.handle(.trialPassed(name: trial.build.name)) }
        say(.trialPassed(due.map(\.build)))
        letGoOfEndedTrials()
    }

    /// Holds what runs and what the trials still running replaced, and lets go of the rest.
    private mutating func letGoOfEndedTrials() {
        holdWhatRuns()
    }

    /// Asks the driver to hold what the serving generation runs and what the trials replaced;
    /// while none serves, what is held now and `lost`: held builds whose files were written in
    /// place, which the driver may hold again from the record's copies (the driver opens
    /// again each build whose held file no longer reads its bytes).
    mutating func holdWhatRuns(adding lost: [PublishedPlugin] = []) {
        if let number = currentGeneration, let generation = generations[number], case .serving = generation.life {
            act(.hold(buildsToHold(running: generation.running)))
            return
        }
        let builds = ledger.held + ledger.replacedOnTrial
        act(.hold(builds + lost.filter { build in !builds.contains { $0.isSameBuild(as: build) } }))
    }

    /// The serving generation `number` told its plugins' conditions: a build on trial its health
    /// check finds unhealthy is rolled back, by a generation that loads the build before beside
    /// it and takes over as an upgrade does.
    mutating func judgeHealthOnTrial(of number: Int) {
        guard ledger.hasTrials, case .serving(let current) = state, current == number, let generation = generations[number],
            !hasDrainingGeneration
        else { return }
        let conditions = generation.conditions ?? []
        let failing = generation.running.compactMap { build -> Announcement.Unhealthy? in
            guard ledger.trial(of: build) != nil, let condition = conditions.first(where: { $0.name == build.name && $0.state == .unhealthy })
            else { return nil }
            return Announcement.Unhealthy(build: build, said: condition.reason)
        }
        guard !failing.isEmpty else { return }
        let trials = failing.flatMap { ledger.handle(.failed($0.build, because: .unhealthyOnTrial($0.said))).failedTrials }
        rollBack(trials, of: number, because: failing)
    }

    /// Rolls back `trials` while generation `serving` serves: a generation with the builds they
    /// replaced loads beside it and takes over, as an upgrade does.
    mutating func rollBack(_ trials: [BuildLedger.Trial], of serving: Int, because why: [Announcement.Unhealthy]) {
        say(.rollingBack(trials: trials.map(Announcement.Rollback.init), because: why))
        records.upgradeEnded(at: now, .rolledBack(trials: trials.map(Announcement.Rollback.init), because: .unhealthyOnTrial(why), broughtBack: nil))
        startUpgrade(of: serving, rollingBack: trials)
    }

    // MARK: Operators

    /// `plugin-host accept [PLUGIN...]`: the trials of the plugins named (every trial, when none
    /// is) end now, their builds permanent.
    mutating func accept(_ names: [String], for client: Int) {
        guard let trials = trialsNamed(names, for: client) else { return }
        for trial in trials { ledger.handle(.trialPassed(name: trial.build.name)) }
        say(.accepted(trials.map(\.build)))
        letGoOfEndedTrials()
        act(.answer(client: client, .restart(.permanent(trials.map(\.build)))))
    }

    /// `plugin-host rollback [PLUGIN...] [--to VERSION]`: the builds that run of the plugins
    /// named are left out now, and the builds before come back: of a plugin on trial, the
    /// build its trial replaced; else the newest permanent build kept before the one that runs;
    /// with `--to`, the kept build of that version. With no plugin named, every trial is rolled
    /// back. A build not held now (kept only as the record's copy) is held first
    /// (``rollbackHeld(_:for:)``); the client is answered once the generation that brings the
    /// builds back serves.
    mutating func rollBack(_ names: [String], to version: String?, for client: Int) {
        guard let serving = servingForRollback(client) else { return }
        var rollbacks: [BuildLedger.Trial] = []
        if names.isEmpty {
            guard let trials = trialsNamed([], for: client) else { return }
            rollbacks = trials
        } else {
            var problems: [RollbackRefusal] = []
            for name in names {
                switch rollback(of: name, to: version) {
                case .success(let rollback): rollbacks.append(rollback)
                case .failure(let problem): problems.append(problem)
                }
            }
            guard problems.isEmpty else {
                act(.answer(client: client, .refused(.cannotRollBack(problems))))
                return
            }
        }
        let unheld = rollbacks.filter { !isHeld($0.replaced) }
        guard unheld.isEmpty else {
            act(operators.handle(.rollbackAwaitsHold(rollbacks, client: client)))
            act(.hold(buildsToHold(running: generations[serving]?.running ?? []) + unheld.map(\.replaced)))
            return
        }
        rollBack(rollbacks, of: serving, for: client)
    }

    /// The driver answered the hold an operator's rollback waited for: it goes on when each
    /// build it brings back is held, and is refused, changing nothing, when one is not.
    mutating func rollbackHeld(_ rollbacks: [BuildLedger.Trial], for client: Int) {
        guard let serving = servingForRollback(client) else { return }
        let unheld = rollbacks.filter { !isHeld($0.replaced) }
        guard unheld.isEmpty else {
            act(.answer(client: client, .refused(.cannotOpen(unheld.map(\.replaced)))))
            act(.hold(buildsToHold(running: generations[serving]?.running ?? [])))
            return
        }
        rollBack(rollbacks, of: serving, for: client)
    }

    /// Rolls back `rollbacks`, whose builds before are held: the builds that run are left out,
    /// and a generation with the builds before takes over as an upgrade does.
    private mutating func rollBack(_ rollbacks: [BuildLedger.Trial], of serving: Int, for client: Int) {
        for rollback in rollbacks {
            ledger.handle(.rolledBack(rollback, because: .rolledBackByOperator))
        }
        let told = rollbacks.map(Announcement.Rollback.init)
        say(.rollingBackAsAsked(told))
        records.upgradeEnded(at: now, .rolledBack(trials: told, because: .asked, broughtBack: nil))
        let candidate = startUpgrade(of: serving, rollingBack: rollbacks)
        act(operators.handle(.restartStarted(generation: candidate, client: client)))
    }

    /// The generation that serves, while an operator's rollback can begin; `nil`, having
    /// answered `client`, while it cannot.
    private mutating func servingForRollback(_ client: Int) -> Int? {
        guard case .serving(let serving) = state, !hasDrainingGeneration else {
            act(.answer(client: client, .refused(isStopping ? .hostStopping : .generationStarting)))
            return nil
        }
        return serving
    }

    /// What rolling back `name` brings back: the build its trial replaced, when that is what
    /// is asked for; else, of the builds whose life lets them come back (permanent or kept,
    /// ``BuildLife/canComeBack``) other than the one that runs, the newest (of `version`, when
    /// given). Told as the trial it ends: the build that runs, and the build that replaces it.
    private func rollback(of name: String, to version: String?) -> Result<BuildLedger.Trial, RollbackRefusal> {
        guard let record = ledger[name] else { return .failure(.unknown(name)) }
        guard let running = record.serving else { return .failure(.notServing(name)) }
        if let trial = ledger.trial(of: running), version == nil || trial.replaced.version == version { return .success(trial) }
        let lives = ledger.lives(of: name)
        let kept = lives.filter { $0.life.canComeBack && !$0.build.isSameBuild(as: running) }.map(\.build)
        guard let target = kept.first(where: { version == nil || $0.version == version }) else {
            if let version, version != running.version, let reason = lives.lazy.compactMap({ $0.build.version == version ? $0.life.reason : nil }).first {
                return .failure(.leftOut(name, version: version, because: reason, kept: kept.map(\.version)))
            }
            return .failure(.noKeptBuild(name, version: version, running: running.version, kept: kept.map(\.version)))
        }
        return .success(BuildLedger.Trial(build: running, replaced: target, until: now, replacedHeld: isHeld(target)))
    }

    /// Whether the driver holds `build`: as its plugin's build, or as the build a trial replaced.
    private func isHeld(_ build: PublishedPlugin) -> Bool {
        guard let record = ledger[build.name] else { return false }
        if record.held?.isSameBuild(as: build) == true { return true }
        return record.trial.map { $0.replacedHeld && $0.replaced.isSameBuild(as: build) } ?? false
    }

    /// The trials of `names` (every one, when `names` is empty); `nil`, having answered
    /// `client`, when one of them has none.
    private mutating func trialsNamed(_ names: [String], for client: Int) -> [BuildLedger.Trial]? {
        let trials = ledger.trials
        if names.isEmpty, !trials.isEmpty { return trials }
        let missing = names.isEmpty ? ["any"] : names.filter { name in !trials.contains { $0.build.name == name } }
        guard missing.isEmpty else {
            act(.answer(client: client, .refused(.noTrial(names.isEmpty ? [] : missing))))
            return nil
        }
        return trials.filter { names.contains($0.build.name) }
    }

    /// Whether the host is stopping or has ended.
    var isStopping: Bool {
        switch state {
        case .stopping, .finished: true
        case .starting, .serving, .recovering, .backingOff, .upgrading, .upgradingHost: false
        }
    }
}
