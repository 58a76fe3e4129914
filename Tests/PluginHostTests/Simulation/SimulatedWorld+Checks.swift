#if !STANDALONE_SIMULATOR
@testable import PluginHost
#endif

/// The invariants, checked against the world's truth (``WorldTruth``), never against the
/// machine's own bookkeeping: what it decides (who is blamed, what is left out, when a
/// restart starts, which reload is asked), what it says (lines, `STATUS=`, the status, the
/// metrics, what followers are shown), and where it comes to rest once faults stop.
extension SimulatedWorld {
    // MARK: Judging, as a correct host would

    /// Before the machine hears of an event that asks for a judgement (a worker's end, a
    /// worker that could not start), the world works out what a correct host does about it:
    /// the builds it leaves out, and when the restart that follows may start.
    mutating func judgeBefore(_ event: SupervisionEvent) {
        switch event {
        case .news(let number, .reload):
            if reloads.underWay == number { reloads.underWay = nil }
        case .started(let number, _, _):
            checkRollback(of: number)
        case .control(let client, .rollBack(let names, let version)):
            rollbackExpected = (client, expectedRollback(of: names, to: version))
        case .couldNotStart(let number, _):
            // An upgrade that could not start is not tried again until the files change.
            guard !signals.stopAsked, let serving = servingWorker, serving != number, let running = workers[serving]?.told else { return }
            truth.abandon(Self.plugins.indices.compactMap { files.buildOnDisk($0)?.build }.filter { !running.contains($0) })
        case .ended(let number, _):
            if reloads.underWay == number { reloads.underWay = nil }
            if let worker = workers[number] { truth.ended(worker, at: now) }
            judgeEnd(of: number)
        case .ready(let number, _):
            beginTrials(of: number)
            servedBy(number)
            if number == servingWorker { truth.hostServes() }
        case .news(let number, .plugins):
            servedBy(number)
        default:
            break
        }
    }

    /// An operator's restart of `names` that the host acted on: their builds have no evidence
    /// of fault from now on, so one that serves and is not on trial is permanent at once.
    private mutating func forgive(_ names: [String]) {
        truth.forgive(names, at: now)
        if let serving = servingWorker { servedBy(serving) }
    }

    /// An upgrade's generation that says it is ready takes over: the builds it changed are on
    /// trial from now on (a rollback's generation begins none).
    private mutating func beginTrials(of number: Int) {
        guard let worker = workers[number], WorldRules.loadsBeside(worker.cause), !worker.tookOver, !signals.stopAsked, exit == nil,
            let replaced = worker.replaces.flatMap({ workers[$0] })
        else { return }
        workers[number]?.tookOver = true
        // An operator's restart that changed no build upgraded nothing; a rollback's generation
        // ends nothing new.
        if !rollbackGenerations.contains(number), worker.cause == .upgrade || worker.told.contains(where: { !replaced.told.contains($0) }) {
            truth.upgradeEnded(.upgraded, at: now)
        }
        guard !rollbackGenerations.contains(number), let limit = setup.machine.trial else { return }
        truth.beginTrials(of: worker.told, replacing: replaced.told, at: now, until: now + limit)
    }

    /// The builds generation `number` runs while it serves are permanent, but those on trial.
    private mutating func servedBy(_ number: Int) {
        guard number == servingWorker, let worker = workers[number], !signals.stopAsked, exit == nil else { return }
        truth.served(worker.told, at: now)
        servedServices.formUnion(worker.told.map(\.plugin))
    }

    private mutating func judgeEnd(of number: Int) {
        guard let worker = workers[number], !signals.stopAsked, exit == nil else { return }
        if case .killedBySupervisor(.notNeeded) = worker.death { return }
        if WorldRules.loadsBeside(worker.cause), !worker.saidReady {
            guard let replaced = worker.replaces.flatMap({ workers[$0] }) else { return }
            if !worker.proceeded {
                // Before the generation before was disturbed, the upgrade fails and it serves
                // on; during the handover, the end is judged once the generation before ends.
                if !replaced.endSeen, !replaced.askedToStop {
                    upgradeFailed(worker, replacing: replaced)
                } else if replaced.endSeen, replaced.askedToStop {
                    // The generation before stopped for it, and then the candidate ended before
                    // it was told to bootstrap: the builds before are restored.
                    restoreJudged(worker, replacing: replaced)
                }
                return
            }
            restoreJudged(worker, replacing: replaced)
            return
        }
        if worker.askedToStop {
            // The generation before of a handover: a candidate that ended meanwhile is replaced
            // by the builds that ran before.
            if let candidate = workers.values.filter({ WorldRules.loadsBeside($0.cause) && $0.replaces == number }).max(by: { $0.number < $1.number }),
                !candidate.proceeded, candidate.endSeen, !candidate.saidReady {
                restoreJudged(candidate, replacing: worker)
            }
            return
        }
        // The first generation failing, or one that ended by itself, ends the host; once its
        // report is out and its services run, it serves (its word that it is ready may not
        // have come), and its services count.
        if worker.cause == .start && !worker.saidReady { return }
        if worker.cause == .start, !worker.readySeen { servedServices.formUnion(worker.told.map(\.plugin)) }
        if worker.stoppingByItself { return }
        if case .intended = worker.death { return }
        let builds = WorldTruth.blamed(worker).compactMap { worker.builds.indices.contains($0) ? worker.builds[$0] : nil }
        if let readyAt = worker.readiness.saidAt, now - readyAt >= setup.machine.restart.maximumDelay { restarts.servedSteadily() }
        // A build on trial blamed: the build it replaced comes back.
        trialsFailed = builds.compactMap { truth.trial(of: $0, at: now) }
        if !trialsFailed.isEmpty { truth.upgradeEnded(.rolledBack, at: now) }
        let healed = truth.leaveOut(builds, because: "failed in generation \(number)", at: now)
        // A generation an upgrade's took over from before it was asked to drain: the one that
        // serves goes on, and no restart follows.
        let replaced = workers.values.contains { $0.number > number && $0.readySeen && !$0.endSeen }
        if !replaced { restarts.failed(at: now, heals: healed, policy: setup.machine.restart) }
        lastJudged = (number, builds)
    }

    private mutating func upgradeFailed(_ candidate: Worker, replacing replaced: Worker) {
        let suspects = WorldTruth.suspects(of: candidate, comparedTo: replaced.running)
        truth.leaveOut(suspects, because: "failed in the upgrade's generation \(candidate.number)", at: now)
        truth.upgradeEnded(.failed, at: now)
        // Nobody to blame: what the upgrade was to bring (the builds on disk now that do not
        // run) is not tried again until the files change or an operator's restart.
        let changed = candidate.builds.filter { !replaced.running.contains($0) }
            + Self.plugins.indices.compactMap { files.buildOnDisk($0)?.build }.filter { !replaced.running.contains($0) }
        if suspects.isEmpty { truth.abandon(changed) }
        // What the new worker did not load at all (it requires a plugin whose file is no
        // plugin now) is no build the upgrade changed: nothing takes it up again until the
        // files change or an operator's restart.
        truth.abandon(changed.filter { !candidate.builds.contains($0) })
        lastJudged = (candidate.number, suspects)
        trialsFailed = []
    }

    private mutating func restoreJudged(_ candidate: Worker, replacing replaced: Worker) {
        let suspects = WorldTruth.suspects(of: candidate, comparedTo: replaced.running)
        let healed = truth.leaveOut(suspects, because: "failed in the upgrade's generation \(candidate.number)", at: now)
        restarts.failed(at: now, heals: healed, policy: setup.machine.restart)
        truth.upgradeEnded(.rolledBack, at: now)
        lastJudged = (candidate.number, suspects)
        restoreJudged = candidate.number
        trialsFailed = []
    }

    /// A rollback's generation brings back the build held from before of each plugin whose new
    /// build failed, when the world holds it as it was and nothing leaves it out: "the builds
    /// that ran before", so of the builds of that plugin held as they were, the one that served
    /// last, or the one a rollback went back to since (another may be held for a trial's rollback).
    private mutating func checkRollback(of number: Int) {
        checkTrialsBroughtBack(in: number)
        guard let worker = workers[number], worker.cause == .restore, let judged = lastJudged else { return }
        for failed in judged.blamed where truth.isLeftOut(failed) {
            let intact = heldAsTheyWere(of: failed.plugin)
            guard let disk = files.buildOnDisk(failed.plugin), truth.isLeftOut(disk.build),
                let build = intact.first(where: { $0 == truth.toBringBack[failed.plugin] }) ?? intact.first
            else { continue }
            if !truth.isLeftOut(build), !worker.broughtBack.contains(build) {
                violate("the rollback's generation \(number) does not bring back \(build), which ran before and is held, in place of \(disk.build)")
            }
        }
    }

    /// The builds of `plugin` the world holds whose held files still read their bytes.
    private func heldAsTheyWere(of plugin: Int) -> [WorldTruth.Build] {
        held.compactMap { entry in
            guard entry.build.name == Self.plugins[plugin].name, let identity = entry.build.identity,
                files.inodes[entry.inode]?.identity.hasSameContents(as: identity) == true
            else { return nil }
            return WorldTruth.Build(plugin: plugin, identity: identity)
        }
    }

    /// A build on trial that failed is replaced by the build before, which the world holds as
    /// it was, never by nothing: the generation that starts next loads it in place of the file
    /// whose build is left out.
    private mutating func checkTrialsBroughtBack(in number: Int) {
        guard let worker = workers[number], worker.cause != .start, !trialsFailed.isEmpty else { return }
        defer { trialsFailed = [] }
        // A worker that gave up on the files as a whole at its start loads nothing.
        if worker.life.hasEnded, worker.published.isEmpty { return }
        for trial in trialsFailed {
            guard let disk = files.buildOnDisk(trial.build.plugin), disk.build == trial.build, truth.isLeftOut(disk.build),
                !truth.isLeftOut(trial.replaced),
                heldAsTheyWere(of: trial.replaced.plugin).contains(trial.replaced)
            else { continue }
            if !worker.broughtBack.contains(trial.replaced) {
                violate("\(trial.build), on trial, failed, and generation \(number) does not bring back \(trial.replaced), the build it replaced, held as it was"
                    + " (it loads \(worker.broughtBack.isEmpty ? "no held build" : worker.broughtBack.description))")
            }
        }
    }

    // MARK: Decisions

    /// What an event must and must not lead to, by what the world knows of it.
    mutating func checkDecision(on event: SupervisionEvent, in stateBefore: SupervisionMachine.State, actions: [SupervisionAction]) {
        let starts = actions.contains { if case .start = $0 { true } else { false } }
        // "Plugins added and removed while running": the serving worker removes in place, as
        // the supervisor says at once, the plugins whose files it told are gone; no other.
        let removing = actions.compactMap { action -> Int? in if case .ask(let number, .removeGone) = action { number } else { nil } }
        if case .news(let number, .filesGone) = event, number == servingWorker, !signals.stopAsked, exit == nil, removing != [number] {
            violate("generation \(number) serves and told that files of its plugins are gone; the supervisor asked \(removing.isEmpty ? "nothing" : "generations \(removing)") to remove them")
        }
        for number in removing {
            guard case .news(number, .filesGone) = event else {
                violate("the supervisor asked generation \(number) to remove plugins whose files it did not tell are gone")
                continue
            }
        }
        switch event {
        case .started(let number, _, _):
            // A failed upgrade's restore, meant to bring back a held build whose file was written
            // in place since: it says it cannot, and never that it does. (A trial's rollback
            // brings back the builds trials replaced, checked by checkTrialsBroughtBack.)
            guard let worker = workers[number], worker.cause == .restore, let judged = lastJudged, judged.worker == restoreJudged else { break }
            for failed in judged.blamed {
                // A build held from before of the failed build's plugin (not the failed build's own copy).
                // Held still, or let go at a hold since, because its file read other bytes.
                let rewritten = held.contains { entry in
                    guard entry.build.name == failed.name, let identity = entry.build.identity,
                        WorldTruth.Build(plugin: failed.plugin, identity: identity) != failed else { return false }
                    return files.inodes[entry.inode]?.identity.hasSameContents(as: identity) == false
                } || lostToRewrite.contains { $0.plugin == failed.plugin && $0 != failed }
                guard rewritten, !worker.broughtBack.contains(where: { $0.name == failed.name }) else { continue }
                let said = actions.contains { if case .say(.cannotBringBack(failed.name, _)) = $0 { true } else { false } }
                if !said { violate("generation \(number) cannot bring back \(failed.name), whose held file was written in place, and the host does not say so") }
            }
        case .restartChecked(let client, let problems):
            // A restart whose files on disk break a running plugin is refused at once, and
            // disturbs nothing.
            if !problems.isEmpty {
                if starts { violate("a restart whose files on disk break a running plugin started a generation while one served") }
                if !actions.contains(where: { if case .answer(client, .refused) = $0 { true } else { false } }) {
                    violate("a restart whose files on disk break a running plugin was not refused at once")
                }
            } else if starts, let names = clients.names(restartedBy: client) {
                forgive(names)
            }
        case .control(let client, .restart):
            if starts, let names = clients.names(restartedBy: client) { forgive(names) }
        case .control(let client, .accept(let names)):
            // Every trial, or those of the plugins named: all of them on trial, or it is refused.
            let trials = Self.trials(truth.trials(at: now), named: names)
            let accepted = actions.contains { if case .answer(client, .restart(let outcome)) = $0 { outcome.ok } else { false } }
            if accepted, trials == nil { violate("an accept of \(names.isEmpty ? "every build" : "\(names)") was answered as done, but \(names.isEmpty ? "no build is" : "not each is") on trial") }
            if !accepted, let trials { violate("an accept of \(names.isEmpty ? "every build" : "\(names)") was refused, but \(trials.map(\.build)) are on trial") }
            if accepted, let trials { truth.accept(trials.map(\.build), at: now) }
        case .control(_, .rollBack(let names, let version)):
            if starts, !actions.contains(where: { if case .say(.rollingBackAsAsked) = $0 { true } else { false } }) {
                violate("an operator's rollback of \(names.isEmpty ? "every build" : "\(names)")\(version.map { " to \($0)" } ?? "") started a generation and does not say what it rolls back")
            }
        case .news(let number, .plugins(let conditions)):
            let unhealthy = conditions.filter { $0.state == .unhealthy }.compactMap { condition in
                Self.plugin(named: condition.name).flatMap { plugin in condition.build.map { WorldTruth.Build(plugin: plugin, identity: $0) } }
            }
            let onTrial = unhealthy.compactMap { truth.trial(of: $0, at: now) }
            if starts {
                if onTrial.isEmpty { violate("generation \(number) told unhealthy plugins \(unhealthy), none on trial, and a generation started") }
                rollingBack(onTrial, because: "unhealthy on trial", actions: actions)
            } else if !onTrial.isEmpty, number == servingWorker, workers.values.filter(\.isAlive).count == 1, case .serving = stateBefore {
                violate("\(onTrial.map(\.build)) on trial turned unhealthy in generation \(number), which serves alone, and nothing rolls it back")
            }
        case .ended(let number, _):
            // The judgement's words: a plugin named as having failed is one the rules blame;
            // "no plugin is blamed" only when they blame none.
            guard let worker = workers[number] else { break }
            let blamed = Set(WorldTruth.blamedForItsEnd(worker).compactMap { worker.published.indices.contains($0) ? Self.plugins[worker.published[$0].plugin].name : nil })
            for case .say(.workerFailed(let account)) in actions {
                let line = Announcement.workerFailed(account).line
                let (clears, named) = Self.judgement(in: account.cause)
                if clears, !blamed.isEmpty {
                    violate("the host says no plugin is blamed for generation \(number)'s end, but the truth blames \(blamed.sorted()): \(line)")
                }
                if !clears, let named, let name = account.evidence.plugins[number: named]?.name, !blamed.contains(name) {
                    violate("the host names plugin \(name) for generation \(number)'s end, which the truth does not blame (\(blamed.sorted())): \(line)")
                }
            }
        default:
            break
        }
        for case .say(.rollingBackAsAsked(let rollbacks)) in actions { checkOperatorsRollback(rollbacks, actions: actions) }
        _ = stateBefore
    }

    /// What the truth says an operator's rollback of `names` brings back, by docs/operations.md:
    /// with no plugin named, the build each trial replaced; else of each plugin named that
    /// serves, ``WorldTruth/rollbackTarget(of:running:to:at:)``. `nil` when one of them has
    /// nothing to go back to: the rollback is refused.
    private func expectedRollback(of names: [String], to version: String?) -> [Int: (running: WorldTruth.Build, target: WorldTruth.Build)]? {
        if names.isEmpty {
            let trials = truth.trials(at: now)
            guard !trials.isEmpty else { return nil }
            return Dictionary(uniqueKeysWithValues: trials.map { ($0.build.plugin, (running: $0.build, target: $0.replaced)) })
        }
        guard let serving = servingWorker, let worker = workers[serving] else { return nil }
        var targets: [Int: (running: WorldTruth.Build, target: WorldTruth.Build)] = [:]
        for name in names {
            guard let plugin = Self.plugin(named: name), let running = worker.told.first(where: { $0.plugin == plugin }),
                let target = truth.rollbackTarget(of: plugin, running: running, to: version, at: now)
            else { return nil }
            targets[plugin] = (running, target)
        }
        return targets
    }

    /// The host rolls back `rollbacks` as an operator asked: each is the build that runs and
    /// the build the truth says comes back, for the request the machine heard last; the builds
    /// that ran are left out, and the generation started brings back the builds before.
    private mutating func checkOperatorsRollback(_ rollbacks: [Announcement.Rollback], actions: [SupervisionAction]) {
        guard let expected = rollbackExpected else {
            violate("the host rolls back \(Announcement.list(rollbacks)), which no operator asked for")
            return
        }
        guard let targets = expected.targets else {
            violate("the host rolls back \(Announcement.list(rollbacks)) as client \(expected.client) asked, but by the truth there is nothing to roll back to: it must refuse")
            return
        }
        var trials: [WorldTruth.Trial] = []
        for rollback in rollbacks {
            guard let plugin = Self.plugin(named: rollback.onTrial.name), let from = rollback.onTrial.identity, let to = rollback.replaced.identity,
                let truly = targets[plugin]
            else {
                violate("the host rolls back \(rollback.onTrial.nameAndVersion), which client \(expected.client)'s rollback does not name")
                continue
            }
            let running = WorldTruth.Build(plugin: plugin, identity: from), target = WorldTruth.Build(plugin: plugin, identity: to)
            if running != truly.running || target != truly.target {
                violate("the host rolls back \(running) to \(target); by the truth, \(truly.running) runs and \(truly.target) comes back")
            }
            trials.append(WorldTruth.Trial(build: truly.running, replaced: truly.target, until: now, permanent: truly.target))
        }
        if Set(rollbacks.compactMap { Self.plugin(named: $0.onTrial.name) }) != Set(targets.keys) {
            violate("the host rolls back \(Announcement.list(rollbacks)); client \(expected.client) asked for \(targets.keys.sorted().map { Self.plugins[$0].name })")
        }
        rollbackExpected = nil
        for plugin in targets.keys { truth.endTrial(ofPlugin: plugin, at: now) }
        rollingBack(trials, because: "rolled back by an operator", actions: actions)
    }

    /// A rollback of `trials` began in `actions`: their builds are left out, and the
    /// generation started brings back the builds before and begins no trial.
    /// The trials an operator's request names, as docs/operations.md says: every trial when it
    /// names no plugin, else those of the plugins named; `nil` when it names what is not on
    /// trial, or names nothing and nothing is.
    private static func trials(_ trials: [WorldTruth.Trial], named names: [String]) -> [WorldTruth.Trial]? {
        if names.isEmpty { return trials.isEmpty ? nil : trials }
        guard names.allSatisfy({ name in trials.contains { $0.build.name == name } }) else { return nil }
        return trials.filter { names.contains($0.build.name) }
    }

    private mutating func rollingBack(_ trials: [WorldTruth.Trial], because reason: String, actions: [SupervisionAction]) {
        truth.leaveOut(trials.map(\.build), because: reason, at: now)
        truth.wentBack(to: trials.map(\.replaced))
        truth.upgradeEnded(.rolledBack, at: now)
        trialsFailed = trials
        for case .start(let plan) in actions { rollbackGenerations.insert(plan.number) }
    }

    /// Checks one action of the machine against the truth, before the world performs it.
    mutating func check(_ action: SupervisionAction) {
        switch action {
        case .checkHostBinary, .startNewHost, .handOverToNewHost, .endNewHost, .tellHostBefore, .answerOperators, .leaveSocketsInPlace:
            // No operator of this world asks for a host upgrade (`upgrade-host`): nothing of one happens.
            violate("the host acts for a host upgrade nobody asked for: \(action)")
        case .start(let plan):
            checkStart(plan)
        case .ask(let number, .reload):
            if let underWay = reloads.underWay {
                violate("generation \(number) was asked for a reload while generation \(underWay)'s was under way")
            }
            if reloads.asked.isEmpty {
                violate("generation \(number) was asked for a reload that no request waits for: the requests made so far were answered by reloads that began after them (they coalesce)")
            }
            reloads.begin(on: number)
        case .say(let announcement):
            checkAnnouncement(announcement)
        case .notify(.ready(let summary)):
            guard let serving = servingWorker else {
                violate("READY=1 sent while no generation serves (\(machine.state.hostState))")
                return
            }
            checkSummary(summary, of: serving)
        case .notify(.status(let activity, let summary)):
            checkWords(of: activity, summary)
            if let serving = servingWorker, let summary { checkSummary(summary, of: serving) }
            if case .restarting(_, _, let leftOut) = activity, let judged = lastJudged, let worker = workers[judged.worker] {
                let leaving = Set(judged.blamed.map(\.name)).union(dependents(of: Set(judged.blamed.map(\.name)), in: worker))
                if Set(leftOut) != leaving {
                    violate("STATUS= says the restart leaves out \(leftOut.sorted()), the truth \(leaving.sorted()): \(HostNotice.status(activity, summary).notification?.datagram ?? "")")
                }
            }
        case .hold(let builds):
            guard let serving = servingWorker, let worker = workers[serving] else { break }
            let asked = Set(builds.compactMap { build in Self.plugin(named: build.name).flatMap { plugin in build.identity.map { WorldTruth.Build(plugin: plugin, identity: $0) } } })
            let replaced = truth.trials(at: now).map(\.replaced)
            // Besides, what an operator's rollback brings back, while it waits for the hold.
            let rollingBackTo = Set(rollbackExpected?.targets?.values.map(\.target) ?? [])
            let needed = Set(worker.told).union(replaced)
            if !needed.isSubset(of: asked) || !asked.subtracting(needed).isSubset(of: rollingBackTo) {
                violate("the host asked to hold \(asked.sorted(by: { $0.plugin < $1.plugin })), but generation \(serving), which serves, runs \(worker.told)"
                    + (replaced.isEmpty ? "" : " and the trials replaced \(replaced)"))
            }
        case .answer(let client, let answer):
            if let status = answer.carriedStatus { checkStatus(status) }
            // docs/cli.md: `wait` is answered once a generation serves and none is on its way in.
            if case .status = answer, clients.request(of: client) == .wait {
                let serving = servingWorker
                let comingIn = workers.values.filter { $0.isAlive && !$0.askedToStop && !$0.killed && $0.number != serving }.map(\.number)
                if serving == nil || !comingIn.isEmpty {
                    violate("client \(client)'s wait was answered, but " + (serving == nil
                        ? "no generation serves" : "generation \(comingIn.sorted()) is on its way in beside generation \(serving ?? 0), which serves"))
                }
            }
            // What a follower is shown is the same document; its figures are rendered when asked.
            switch answer {
            case .status(let status), .metrics(let status): checkMetrics(of: status)
            case .change, .reload, .reloadEnded, .restart, .stopped, .refused, .hostUpgrade: break
            }
        case .discardHandOff(let from):
            // Closed only when no generation will take it: none replaces `from` now.
            if let heir = workers.values.filter({ $0.isAlive && !$0.receivedHandOff && $0.number > from && $0.replaces == from }).first,
                WorldRules.loadsBeside(heir.cause), heir.bootstrapsBeside != true, !heir.killed, !signals.stopAsked, exit == nil {
                violate("what generation \(from) handed over was closed, though generation \(heir.number) is to take over from it")
            }
            // A generation that stopped for a candidate that then gave up before it was told to
            // bootstrap was replaced all the same: what it handed over goes to the generation
            // that restores the builds before.
            if let gaveUp = workers.values.filter({ $0.replaces == from && WorldRules.loadsBeside($0.cause) }).max(by: { $0.number < $1.number }),
                !gaveUp.proceeded, gaveUp.endSeen, gaveUp.bootstrapsBeside != true, workers[from]?.askedToStop == true, workers[from]?.endSeen == true, !signals.stopAsked, exit == nil {
                violate("what generation \(from) handed over was closed when generation \(gaveUp.number), which never bootstrapped, ended; the generation that restores the builds before is to receive it")
            }
        case .keepRecord(let record, _):
            checkHistory(of: record)
        case .ask, .kill, .endProcesses, .notify, .pingWatchdog, .checkRestart, .exit, .handOver:
            break
        }
    }

    /// `plugin-host history`'s reading of the record the host asks to keep moves each build only
    /// as docs/operations.md's table ("A build's life") says, from the record it kept before,
    /// and tells each build's life as the truth has it: `permanent` is the build a start would
    /// run (the newest permanent build with no evidence of fault, not on trial), `kept` exactly
    /// the other permanent builds with no evidence of fault (what `rollback --to` accepts),
    /// `left out` the builds with evidence, `on trial` those on trial or awaiting it.
    private mutating func checkHistory(of record: BuildRecord) {
        let before = Self.lives(in: recordDecided), after = Self.lives(in: record)
        for build in Set(before.keys).union(after.keys).sorted(by: { ($0.plugin, $0.stamp, $0.inode) < ($1.plugin, $1.stamp, $1.inode) }) {
            let from = before[build] ?? .unnamed, to = after[build] ?? .unnamed
            if !from.mayMove(to: to) {
                violate("history moves \(build) from \(from) to \(to), a move docs/operations.md's table of a build's life does not have")
            }
        }
        guard exit == nil, !signals.stopAsked else { return }
        for plugin in Self.plugins.indices {
            // The record keeps the newest few left out of a plugin: an older one may read otherwise.
            let leftOut = truth.evidence.keys.filter { $0.plugin == plugin }
            guard leftOut.count <= BuildRecord.leftOutPerPlugin else { continue }
            let known = after.keys.filter { $0.plugin == plugin } + truth.permanent(of: plugin, at: now) + leftOut
                + truth.trials(at: now).map(\.build).filter { $0.plugin == plugin } + truth.awaitingTrial.keys.filter { $0.plugin == plugin }
            for build in Set(known).sorted(by: { ($0.stamp, $0.inode) < ($1.stamp, $1.inode) }) {
                let shown = after[build] ?? .unnamed, truly = truth.life(of: build, at: now)
                if shown != truly { violate("history names \(build) \(shown); by the truth it is \(truly)") }
            }
        }
    }

    /// Each build a record names, with its life as `history` names it.
    private static func lives(in record: BuildRecord) -> [WorldTruth.Build: WorldBuildLife] {
        var lives: [WorldTruth.Build: WorldBuildLife] = [:]
        // The entries `history` lists, each with the verdict it prints (its reasons' words are
        // not read here: rendering them is most of what reading the record would cost).
        for entry in record.entries {
            guard let plugin = plugin(named: entry.name), let life = WorldBuildLife(verdict: entry.life.verdict) else { continue }
            lives[WorldTruth.Build(plugin: plugin, identity: entry.identity)] = life
        }
        return lives
    }

    /// The record the machine last asked to keep holds exactly the builds the truth leaves out (at most
    /// `BuildRecord.leftOutPerPlugin` of a plugin, the newest), so that a start after any end
    /// of the host leaves out what this one proved bad, and nothing else. A host that ends at
    /// its first failure without going on (a batch run, `--restart=no`, a failure before it
    /// was first ready) is a run, not a service: it leaves nothing out (docs/operations.md).
    private mutating func checkRecord() {
        if let reason = exit?.reason, [.notRestartable, .failedBeforeReady].contains(reason) { return }
        guard setup.keepsRecord, recordCheckedAt != truth.evidenceChanges else { return }
        recordCheckedAt = truth.evidenceChanges
        var kept: Set<WorldTruth.Build> = []
        for entry in recordDecided.leftOut {
            guard let plugin = Self.plugin(named: entry.name) else {
                violate("the record the host asked to keep leaves out \(entry.name), a plugin the world does not have")
                continue
            }
            kept.insert(WorldTruth.Build(plugin: plugin, identity: entry.identity))
        }
        let truly = Set(truth.evidence.keys)
        for build in kept.subtracting(truly).sorted(by: { $0.stamp < $1.stamp }) {
            violate("the record the host asked to keep leaves out \(build), a build with no evidence of fault: the next start would leave it out")
        }
        // Within its documented bound: the newest 8 builds left out and 3 permanent builds of a plugin.
        for (name, entries) in Dictionary(grouping: recordDecided.leftOut.map(\.name), by: { $0 }) where entries.count > 8 {
            violate("the record the host asked to keep leaves out \(entries.count) builds of \(name); docs/operations.md bounds it to the newest 8")
        }
        for (name, entries) in Dictionary(grouping: recordDecided.permanent.map(\.name), by: { $0 }) where entries.count > WorldTruth.permanentKept {
            violate("the record the host asked to keep keeps \(entries.count) permanent builds of \(name); docs/operations.md bounds it to the newest \(WorldTruth.permanentKept)")
        }
        for build in truly.subtracting(kept).sorted(by: { $0.stamp < $1.stamp }) {
            let ofPlugin = kept.filter { $0.plugin == build.plugin }.count
            if ofPlugin < BuildRecord.leftOutPerPlugin {
                violate("the record the host asked to keep does not leave out \(build), which \(truth.evidence[build]!.reason): the next start would run it")
            }
        }
    }

    /// A generation starts: it leaves out exactly the builds with evidence of fault, and a
    /// restart starts when the backoff says, within the limit.
    private mutating func checkStart(_ plan: GenerationPlan) {
        let excluded = Set(plan.builds.excluded.compactMap { excluded in
            Self.plugin(named: excluded.name).map { WorldTruth.Build(plugin: $0, identity: excluded.identity) }
        })
        let evidence = Set(truth.evidence.keys)
        // Besides, until the host serves after a start, the builds on trial when it ended.
        for build in excluded.subtracting(evidence).subtracting(truth.awaitingTrial.keys).sorted(by: { $0.stamp < $1.stamp }) {
            violate("generation \(plan.number) leaves out \(build), a build with no evidence of fault")
        }
        for build in evidence.subtracting(excluded).sorted(by: { $0.stamp < $1.stamp }) {
            violate("generation \(plan.number) does not leave out \(build), which \(truth.evidence[build]!.reason)")
        }
        guard plan.cause == .restart || plan.cause == .restore else { return }
        let policy = setup.machine.restart
        let byOperator = restartAskedAt == now
        // A restart counts when it starts; an operator's is started at once (counted against
        // the limit if it cut a backoff short), whatever the limit and the backoff say. "The
        // limit" counts only the restarts whose failure leaving out did not heal.
        let answered = restarts.start(at: now)
        if let failure = answered {
            if !byOperator, now - failure.at != failure.wait {
                violate("restart of generation \(plan.number) started \(TextFormat.seconds(now - failure.at)) after the failure; "
                    + (failure.healed ? "leaving the culprit out healed it, so it starts at once" : "the backoff asks for \(TextFormat.seconds(failure.wait)) (\(restarts.unhealedInARow) in a row that leaving out did not heal)"))
            }
        } else if !byOperator {
            violate("generation \(plan.number) restarts, but no failure called for it")
        }
        guard !byOperator, answered?.healed == false else { return }
        let counted = restarts.unhealed(within: policy.window, before: now)
        if counted > policy.limit {
            violate("\(counted) restarts that leaving out did not heal within \(TextFormat.seconds(policy.window)), more than the limit \(policy.limit)")
        }
    }

    // MARK: Words

    /// What the host says agrees with the truth, and its line names what the value holds.
    private mutating func checkAnnouncement(_ announcement: Announcement) {
        checkWords(of: announcement)
        switch announcement {
        case .hostUpgrade:
            violate("the host speaks of a host upgrade nobody asked for: \(announcement.line)")
        case .rollingBackAfterFailure(let trials, _, _, _), .rollingBack(let trials, _), .rollingBackAsAsked(let trials):
            let said = Set(trials.map(\.onTrial.name))
            let truly = Set(trialsFailed.map(\.build.name))
            if said != truly { violate("the host rolls back \(said.sorted()), the truth \(truly.sorted()) (builds on trial that failed): \(announcement.line)") }
        case .restarting(let blame, _, _):
            if !trialsFailed.isEmpty {
                violate("the host restarts where \(trialsFailed.map(\.build)), on trial, failed and the build before comes back: \(announcement.line)")
            }
            guard let judged = lastJudged else { break }
            let blamed = Set(judged.blamed.map(\.name))
            if case .culprits(let builds) = blame {
                let named = Set(builds.map(\.name))
                if named != blamed { violate("the host restarts without \(named.sorted()), the truth blames \(blamed.sorted()): \(announcement.line)") }
            } else if !blamed.isEmpty {
                violate("the host restarts blaming nobody, the truth blames \(blamed.sorted()): \(announcement.line)")
            }
        case .onTrial(let changes, _):
            let trials = truth.trials(at: now)
            for trial in trials where trial.until > now && workers[servingWorker ?? -1]?.told.contains(trial.build) == true
                && trial.until == now + (setup.machine.trial ?? .zero)
                && !changes.contains(where: { Self.names($0.build, as: trial.build) && $0.before.map { Self.names($0, as: trial.replaced) } == true }) {
                violate("the host says what is on trial without \(trial.build) (replacing \(trial.replaced)): \(announcement.line)")
            }
            for change in changes where !trials.contains(where: { $0.build.name == change.build.name }) {
                violate("the host says \(change.build.name) is on trial, which the truth does not: \(announcement.line)")
            }
        case .upgradeFailed(let leftOut), .upgradeFailedAfterStop(let leftOut, _):
            guard let judged = lastJudged else { break }
            let said = Set(leftOut.map(\.nameAndVersion))
            let truly = Set(judged.blamed.map { "\($0.name) \($0.version)" })
            if said != truly { violate("the host says of a failed upgrade that it leaves out \(said.sorted()); the truth blames \(judged.blamed): \(announcement.line)") }
        case .upgradeFailedBlamingNobody:
            if let judged = lastJudged, !judged.blamed.isEmpty {
                violate("the host says no plugin is to blame for a failed upgrade; the truth blames \(judged.blamed): \(announcement.line)")
            }
        case .bringingBack(let builds):
            let restoring = workers.values.filter { $0.cause == .restore }.max { $0.number < $1.number }
            let brought = (restoring?.broughtBack ?? []).map { "\($0.name) \($0.version)" }
            for build in builds where !brought.contains(build.nameAndVersion) {
                violate("the host says it brings back \(build.nameAndVersion), but generation \(restoring?.number ?? 0) loads \(brought)")
            }
        case .awaitingTrialByRecord(let trials):
            // What a start says was on trial is what the record it was given has on trial.
            let said = trials.map(\.build)
            if said.contains(where: { !recordAtStart.onTrial.contains($0) }) {
                violate("the host says \(said.map { "\($0.name) \($0.version)" }) were on trial; the record it started with has \(recordAtStart.onTrial.map { "\($0.name) \($0.version)" }) on trial: \(announcement.line)")
            }
        case .leftOutByRecord(let builds):
            // What a start says the record leaves out is the record it was given.
            if builds != recordAtStart.leftOut.filter(\.inDirectory) {
                violate("the host says the record leaves out \(builds.map { "\($0.name) \($0.version)" }); the record it started with holds \(recordAtStart.leftOut.map { "\($0.name) \($0.version)" }): \(announcement.line)")
            }
        case .cannotBringBack(let plugin, _):
            let restoring = workers.values.filter { $0.cause == .restore }.max { $0.number < $1.number }
            for build in restoring?.broughtBack ?? [] where build.name == plugin {
                violate("the host says it cannot bring back \(plugin), but generation \(restoring?.number ?? 0) loads \(build)")
            }
        case .upgraded(let changes), .restartedAsAsked(let changes):
            // Said of the generation an operator's restart started, and of no other.
            if case .restartedAsAsked = announcement, servingWorker.flatMap({ workers[$0] })?.cause != .operatorRestart {
                violate("the host says an operator's restart serves, but the generation that serves is no restart an operator asked for: \(announcement.line)")
            }
            guard let serving = servingWorker, let worker = workers[serving] else { break }
            let before = worker.replaces.flatMap { workers[$0] }?.told ?? []
            for change in changes {
                guard let said = change.before, let plugin = Self.plugin(named: change.build.name) else { continue }
                let now = worker.told.first { $0.plugin == plugin }
                let then = before.first { $0.plugin == plugin }
                if now?.version != change.build.version || then?.version != said.version {
                    violate("the host says \(change.build.name) \(said.version) -> \(change.build.version), but generation \(serving) runs \(now?.description ?? "nothing") where \(then?.description ?? "nothing") ran")
                }
            }
        case .candidateCannotRun(let plugin, let bootstrapped):
            // The candidate that waits for its word cannot run that plugin, by the truth.
            let waiting = workers.values.filter { WorldRules.loadsBeside($0.cause) && $0.life.awaitedWord != nil }
            let lost = waiting.compactMap { worker in worker.life.awaitedWord.flatMap { lostPlugin(in: worker, at: $0)?.name } }
            if !lost.contains(plugin) {
                violate("the host says the new worker cannot run \(plugin); by the truth it cannot run \(lost.isEmpty ? "nothing it must" : lost.joined(separator: ", ")): \(announcement.line)")
            }
            if bootstrapped != waiting.contains(where: { $0.life == .bootstrapped }) {
                violate("the host says the new worker \(bootstrapped ? "bootstrapped" : "loaded") its plugins, which it did not: \(announcement.line)")
            }
        case .candidateChangesNothing(let failed, let bootstrapped):
            // The candidate that waits for its word would run only what runs now, by the truth.
            let waiting = workers.values.filter { $0.cause == .upgrade && $0.life.awaitedWord != nil }
            let verdicts = waiting.compactMap { worker in worker.life.awaitedWord.flatMap { stage in changesNothing(worker, at: stage).map { (worker, $0.failed) } } }
            if verdicts.isEmpty {
                violate("the host says the new worker would run only what runs now, which by the truth no candidate that waits would: \(announcement.line)")
            } else if !verdicts.contains(where: { $0.1?.name == failed }) {
                violate("the host blames \(failed ?? "nothing") for the new worker that changes nothing; by the truth \(verdicts.map { $0.1?.name ?? "nothing" }.joined(separator: ", ")) did not come: \(announcement.line)")
            }
            if bootstrapped != verdicts.contains(where: { $0.0.life == .bootstrapped }) {
                violate("the host says the new worker \(bootstrapped ? "bootstrapped" : "loaded") its plugins, which it did not: \(announcement.line)")
            }
        case .record(let news, _):
            checkRecordNews(news)
        case .nothingLeftToServe, .restartLimitReached, .upgradingAgain, .upgradeCouldNotStart, .notRestoring, .trialPassed, .accepted,
             .rolledBack, .rollbackFailed, .workerSuspended, .workerResumed, .cannotStartWorker, .workerFailed, .warning, .handingOver,
             .stopping, .stoppingAtOnce, .workersDidNotEnd:
            break
        }
    }

    /// Whether `build`, as the host names it, is the truth's `truly`.
    private static func names(_ build: PublishedPlugin, as truly: WorldTruth.Build) -> Bool {
        build.name == truly.name && build.version == truly.version
    }

    /// The line says what its value holds, as docs/operations.md promises an operator reads it:
    /// each plugin by name with its version (or its file, where the line names a culprit), how
    /// many and how long where it counts, and what happens next.
    private mutating func checkWords(of announcement: Announcement) {
        let line = announcement.line
        var must: [String] = ["plugin-host: "]
        func versions(_ builds: [PublishedPlugin]) { must += builds.map { "\($0.name) \($0.version)" } }
        func files(_ builds: [PublishedPlugin]) { must += builds.map { "\($0.name) (\($0.file))" } }
        func restart(_ count: Announcement.RestartCount) {
            // Healed or not as the truth says, and counted against the limit only when not.
            if let failure = restarts.pending, failure.healed != count.healed {
                violate("the line says leaving out \(count.healed ? "heals" : "does not heal") the failure, the truth \(failure.healed ? "heals it" : "does not"): \(line)")
            }
            if count.healed {
                must += ["restart \(count.number), at once", "does not count toward --restart-limit"]
            } else {
                let window = count.policy.window
                let counted = restarts.unhealed(within: window, before: now + count.wait) + 1
                if count.counted != counted {
                    violate("the line counts \(count.counted) restarts leaving out did not heal within \(TextFormat.seconds(window)), the truth \(counted): \(line)")
                }
                must += ["restart \(count.number), \(count.counted) of at most \(count.policy.limit) in \(TextFormat.seconds(window))", "does not heal"]
            }
            if count.wait > .zero { must += ["in \(TextFormat.seconds(count.wait))", "\(count.inARow) in a row"] }
        }
        func rollbacks(_ trials: [Announcement.Rollback]) { must += trials.map { "\($0.onTrial.name) \($0.onTrial.version) -> \($0.replaced.version)" } }
        switch announcement {
        case .restarting(let blame, let dependents, let count):
            if case .culprits(let builds) = blame { files(builds) } else { must.append("no") }
            must += dependents
            restart(count)
        case .rollingBackAfterFailure(let trials, let failure, let dependents, let count):
            rollbacks(trials)
            must += [failure.text, "on trial"] + dependents
            restart(count)
        case .nothingLeftToServe(let culprits, _):
            files(culprits)
            must.append("no plugin is left to serve")
        case .restartLimitReached(let recent, let policy):
            must += ["not restarting", "\(recent) restart", "leaving out did not heal", "--restart-limit \(policy.limit)/\(TextFormat.seconds(policy.window))"]
        case .upgradeFailedBlamingNobody(let ended):
            must += ["the upgrade failed", "no plugin is to blame", ended.text]
        case .upgradeFailed(let leftOut):
            must.append("the upgrade failed")
            must += leftOut.map { "\($0.nameAndVersion) (\($0.file))" }
        case .upgradingAgain(let builds), .trialPassed(let builds), .accepted(let builds), .bringingBack(let builds):
            versions(builds)
        case .upgradeCouldNotStart:
            must.append("the upgrade could not start")
        case .hostUpgrade:
            break
        case .candidateCannotRun(let plugin, let bootstrapped):
            must += ["the new worker cannot \(bootstrapped ? "bootstrap" : "load") plugin \(plugin)", "which runs now"]
        case .candidateChangesNothing(let failed, let bootstrapped):
            must += ["the new worker would run only what runs now", "the running plugins keep serving"]
            if let failed { must.append("plugin \(failed) did not \(bootstrapped ? "bootstrap" : "load")") }
        case .upgradeFailedAfterStop(let leftOut, let count):
            must.append(leftOut.isEmpty ? "no plugin is to blame" : "left out")
            versions(leftOut)
            restart(count)
        case .notRestoring(let window):
            must.append(TextFormat.seconds(window))
        case .upgraded(let changes):
            must += changes.map { change in
                change.before.map { "\(change.build.name) \($0.version) -> \(change.build.version)" } ?? "\(change.build.nameAndVersion) (new)"
            }
        case .restartedAsAsked(let changes):
            must += ["restarted", "plugin-host restart"] + changes.map { change in
                change.before.map { "\(change.build.name) \($0.version) -> \(change.build.version)" } ?? "\(change.build.nameAndVersion) now runs"
            }
        case .onTrial(let changes, let limit):
            // Held as it ran and not left out, the build before comes back; else the line says it cannot.
            must += changes.map { change in
                let before = change.before
                let staysAway = before.flatMap { before -> String? in
                    let isHeld = before.identity.map { holdsBuild(named: before.name, readingAs: $0) } ?? false
                    let isLeftOut = Self.plugin(named: before.name).flatMap { plugin in
                        before.identity.map { truth.isLeftOut(WorldTruth.Build(plugin: plugin, identity: $0)) }
                    } ?? false
                    return isLeftOut ? "is left out" : isHeld ? nil : "is not held"
                }
                return "\(change.build.nameAndVersion) (replacing \(before?.version ?? "nothing")" + (staysAway.map { ", which \($0) and cannot come back)" } ?? ")")
            } + [TextFormat.seconds(limit)]
        case .rollingBack(let trials, let unhealthy):
            rollbacks(trials)
            must += unhealthy.flatMap { ["\($0.build.nameAndVersion) is unhealthy"] + ($0.said.map { [$0] } ?? []) }
        case .rollingBackAsAsked(let trials):
            rollbacks(trials)
            must += ["as an operator asked"] + trials.map(\.onTrial.nameAndVersion) + ["left out until"]
        case .rolledBack(let builds):
            versions(builds)
            if builds.isEmpty { must.append("nothing brought back") }
        case .rollbackFailed(let trials):
            rollbacks(trials)
        case .cannotBringBack(let plugin, let why):
            must += [plugin, why.description]
        case .leftOutByRecord(let builds):
            must += builds.flatMap { ["\($0.name) \($0.version)", $0.file, $0.reason.text] } + ["plugin-host restart"]
        case .awaitingTrialByRecord(let trials):
            must += trials.flatMap { ["\($0.build.name) \($0.build.version)", $0.build.file] + ($0.permanent.map { ["running \($0.version)"] } ?? []) }
                + ["tried again as an upgrade"]
        case .workerSuspended(let process, let signal, let running, let limit):
            must += ["\(process)", signal.name] + running + (limit.map { [TextFormat.seconds($0)] } ?? [])
        case .workerResumed(let process, let after):
            must += ["\(process)", TextFormat.seconds(after)]
        case .cannotStartWorker(let words), .warning(let words):
            must.append(words)
        case .workerFailed(let account):
            must += Self.mustSay(account)
        case .handingOver(let items, let from, let to):
            must += items + ["generation \(to)", "generation \(from)"]
        case .stopping(.signal(let signal)), .stoppingAtOnce(let signal):
            must.append(signal.name)
        case .stopping(.operatorAsked):
            must.append("plugin-host stop")
        case .workersDidNotEnd(let count, let grace):
            must += [count == 1 ? "a worker process" : "\(count) worker processes", TextFormat.seconds(grace)]
        case .record(.stalled(let limit), let kept):
            must += ["has not been written for over \(TextFormat.seconds(limit))", "its state directory does not answer", kept ?? ""]
        case .record(.writtenAgain(let after), let kept):
            must += ["written again", TextFormat.measuredSeconds(after), kept ?? ""]
        case .record(.unwritable(let reason), let kept):
            must += ["cannot keep the record", reason, kept ?? ""]
        }
        for words in must where !words.isEmpty && !line.has(words) {
            violate("the host's line does not say \"\(words)\", which its value holds: \(line)")
        }
    }

    /// What the account of a worker's end says of blame, as docs/operations.md reads it:
    /// whether it clears everyone (a file written in place, SIGKILL or SIGSTOP from outside
    /// while no plugin was in a short call), and the plugin it names as having failed, if one.
    static func judgement(in cause: EndingCause) -> (clears: Bool, named: PluginNumber?) {
        switch cause {
        case .rewrittenInPlace: (true, nil)
        case .killed(let suspects): (suspects.isEmpty, suspects.count == 1 ? suspects[0].plugin : nil)
        case .stayedSuspended(_, _, let suspects, _): (suspects.isEmpty, suspects.first?.plugin)
        case .crashed(let record), .calledExit(let record): (false, record.culprit)
        case .overran(let overrun, _): (false, overrun.owner)
        case .stopDeadline(_, .some, let suspects, _): (suspects.isEmpty, suspects.first?.plugin)
        case .stopDeadline, .exitedDuringExit, .exited, .signalled, .couldNotStart: (false, nil)
        }
    }

    /// What the line of a worker's end must name, as docs/operations.md shows it: the plugin
    /// a record names (by name and file), the signal, the status, the limit it passed, which
    /// worker the supervisor ended, and that nobody is blamed where the evidence clears all.
    static func mustSay(_ account: EndingAccount) -> [String] {
        let evidence = account.evidence
        func label(_ number: PluginNumber?) -> [String] {
            guard let number, let plugin = evidence.plugins[number: number] else { return [] }
            return ["plugin \(plugin.name) (\(plugin.file))"]
        }
        func ended(_ spokeForHost: Bool) -> String { spokeForHost ? "ended the worker" : "ended the new worker" }
        func words(_ cause: EndingCause) -> [String] {
            switch cause {
            case .overran(let overrun, let spokeForHost):
                return label(overrun.owner) + [TextFormat.seconds(overrun.allowed), ended(spokeForHost)]
            case .stayedSuspended(let signal, let limit, let suspects, let spokeForHost):
                return [signal.name, TextFormat.seconds(limit), "--timeout", ended(spokeForHost)]
                    + evidence.running.flatMap { label($0.plugin) } + (suspects.isEmpty ? ["no plugin is blamed"] : [])
            case .stopDeadline(let allowed, let suspendedBy, let suspects, let spokeForHost):
                return ["did not finish stopping", TextFormat.seconds(allowed), ended(spokeForHost)]
                    + (suspendedBy.map { [$0.name] + (suspects.isEmpty ? ["no plugin is blamed"] : []) } ?? [])
            case .crashed(let crash):
                return label(crash.culprit) + ["crashed", Signal(rawValue: crash.signal).name]
            case .calledExit(let call):
                return label(call.culprit) + ["exit(\(call.status))"]
            case .exitedDuringExit(let code, let intended):
                return ["status \(code)", "status \(intended)"]
            case .exited(let code):
                return ["status \(code)"] + (evidence.running.count == 1 ? label(evidence.running[0].plugin) : [])
            case .killed(let suspects):
                return ["SIGKILL"] + (suspects.isEmpty ? ["no plugin is blamed"] : suspects.count == 1 ? label(suspects[0].plugin) : [])
            case .signalled(let signal):
                return [signal.name] + (evidence.running.count == 1 ? label(evidence.running[0].plugin) : [])
            case .couldNotStart(let reason):
                return [reason]
            case .rewrittenInPlace(let files, let under):
                return words(under) + files + ["written in place", "no plugin is blamed"]
            }
        }
        return words(account.cause)
    }

    /// What `STATUS=` says of the plugins agrees with what `serving` runs and the truth leaves
    /// out, and its words say it.
    private mutating func checkSummary(_ summary: PluginSummary, of serving: Int) {
        guard let worker = workers[serving] else { return }
        let text = summary.text
        let running = worker.told
        if summary.running != running.count {
            violate("STATUS= says \(summary.running) plugins run, generation \(serving) runs \(running.count): \(text)")
        }
        let runningNames = Set(running.map(\.name))
        let expected = Set(Self.plugins.indices.filter { plugin in
            !runningNames.contains(Self.plugins[plugin].name)
                // A plugin blamed before whose file now holds a build the worker could not add is
                // not added: its file changed since the build left out. One the worker told nothing
                // of had no file when it looked: it is removed.
                && ((truth.evidence.keys.contains { $0.plugin == plugin } && !worker.toldNotAdded.contains(Self.plugins[plugin].name)
                        && worker.toldNames.contains(Self.plugins[plugin].name))
                    || worker.toldLeftOut.contains(Self.plugins[plugin].name))
        }.map { Self.plugins[$0].name })
        let said = Set(summary.leftOut.map(\.name))
        if said != expected {
            violate("STATUS= says \(said.sorted()) are left out, the truth \(expected.sorted()) (generation \(serving) runs \(running), told left out: \(worker.toldLeftOut.sorted()), evidence: \(truth.evidence.keys.map(\.description).sorted())): \(text)")
        }
        // Every plugin it told is left out or not added is said so; none vanishes from what the
        // host says.
        for name in worker.toldNotAdded.subtracting(runningNames).sorted() where !summary.notAdded.contains("lib\(name).so") {
            violate("STATUS= does not say \(name) was not added, as generation \(serving) told: \(text)")
        }
        for entry in summary.runningTheBuildBefore {
            guard let plugin = Self.plugin(named: entry.name) else { continue }
            // Of its file as it was when the worker told it.
            let disk = worker.fileBuildsWhenTold[entry.name] ?? files.buildOnDisk(plugin)?.build
            // Its file's build is left out, by the truth or by the plan the worker keeps for its life.
            let leftOut = disk.map { truth.isLeftOut($0) || worker.excludedAtStart.contains($0) } ?? false
            if !runningNames.contains(entry.name) || !leftOut || running.contains(where: { $0 == disk }) {
                violate("STATUS= says \(entry.name) runs the build before in place of its file's, which the truth does not "
                    + "(its file is \(disk?.description ?? "gone"); generation \(serving) runs \(running)): \(text)")
            }
        }
        // The words name every plugin with why, and how many run.
        var must = ["\(summary.running) plugin"] + summary.notAdded
        for entry in summary.unwell + summary.runningTheBuildBefore + summary.leftOut {
            must.append("\(entry.name)\(entry.version.map { " " + $0 } ?? "") (\(entry.why?.text ?? ""))")
        }
        for words in must where !text.has(words) { violate("STATUS= does not say \"\(words)\", which it holds: \(text)") }
    }

    /// `STATUS=` names what the host does as its value holds it.
    private mutating func checkWords(of activity: HostNotice.Activity, _ summary: PluginSummary?) {
        guard case .status(let text) = HostNotice.status(activity, summary).notification else { return }
        var must: [String] = []
        switch activity {
        case .worker(let what): must.append(what)
        case .restarting(let culprits, let failure, let leftOut): must += culprits.map(\.name) + [failure.text] + leftOut
        case .rollingBack(let rollbacks, let failure): must += rollbacks.map { "\($0.onTrial.nameAndVersion) -> \($0.replaced.version)" } + [failure.text]
        case .upgrading: must.append("Upgrading")
        case .upgradeFailed(let leftOut): must += ["Upgrade failed"] + leftOut.map(\.nameAndVersion)
        case .restoring: must.append("restoring")
        case .upgradingHost, .hostUpgradeFailed: violate("STATUS= speaks of a host upgrade nobody asked for")
        }
        for words in must where !words.isEmpty && !text.has(words) { violate("STATUS= does not say \"\(words)\", which its value holds: \(text)") }
    }

    /// The status the host answers agrees with what the world runs: each plugin once, said to
    /// serve only when the generation that serves runs that build; one metric series each.
    private mutating func checkStatus(_ status: HostStatus) {
        let names = status.plugins.map(\.name)
        if Set(names).count != names.count {
            violate("the status lists a plugin more than once: \(names)")
        }
        let serving = servingWorker.flatMap { workers[$0] }
        for plugin in status.plugins where plugin.state.runs {
            guard let serving, let index = Self.plugin(named: plugin.name), let runs = serving.told.first(where: { $0.plugin == index }) else {
                violate("the status says \(plugin.name) serves, but no generation that serves runs it (\(status.state))")
                continue
            }
            if plugin.build.map({ $0.inode != runs.inode || $0.modificationNanoseconds != runs.stamp }) ?? true || plugin.version != runs.version {
                violate("the status says \(plugin.name) \(plugin.version ?? "?") serves, generation \(serving.number) runs \(runs)")
            }
            // Where it came from, as the worker loaded it (operations.md, `from`): its file, a
            // build held from before, or the record's copy.
            if let loaded = serving.published.last(where: { $0.plugin == index && $0.build == runs }), plugin.origin?.rawValue != loaded.source {
                violate("the status says \(plugin.name) runs from \(plugin.origin?.rawValue ?? "nowhere"), generation \(serving.number) loaded it from \(loaded.source)")
            }
        }
        if let serving {
            for build in serving.told where !status.plugins.contains(where: { $0.name == build.name && $0.state != .leftOut && $0.state != .notServing }) && status.state == .serving {
                violate("generation \(serving.number) serves \(build), which the status does not show serving")
            }
        }
        // Every plugin the serving generation told of is in the status: serving, left out, or
        // not added, each with why; never absent.
        if let serving, status.state == .serving {
            for name in serving.toldNames.sorted() where !names.contains(name) {
                violate("the status does not list \(name), which generation \(serving.number) told of (status lists \(names))")
            }
            for plugin in status.plugins where !plugin.state.runs && plugin.state != .notServing && plugin.reason == nil {
                violate("the status says \(plugin.name) is \(plugin.state.rawValue), and not why")
            }
        }
        // Warnings end when they stop being true: a setting's waits for its plugin to start
        // again, in force while the generation that serves runs it with its old settings.
        if let serving, status.state == .serving {
            let said = Set(status.warnings.filter { $0.has("has no reload hook") }.compactMap { warning in
                warning.split(separator: " ").dropFirst().first.map(String.init)
            })
            if said != serving.toldSettingsAwaitingAStart {
                violate("the status warns that the changed settings of \(said.sorted()) wait for a start, generation \(serving.number) runs \(serving.toldSettingsAwaitingAStart.sorted()) with settings older than it read: \(status.warnings)")
            }
        }
        let trials = truth.trials(at: now)
        for plugin in status.plugins {
            let truly = trials.first { $0.build.name == plugin.name }
            if (plugin.trial != nil) != (truly != nil) || (truly.map { plugin.trial?.version != $0.build.version } ?? false) {
                violate("the status says \(plugin.name)'s trial is \(plugin.trial.map { "\($0.version) until \($0.until)" } ?? "none"), the truth \(truly.map { "\($0.build) until \($0.until)" } ?? "none")")
            }
        }
        for plugin in status.plugins where plugin.state == .leftOut {
            if let serving, serving.told.contains(where: { $0.name == plugin.name }) {
                violate("the status says \(plugin.name) is left out, but generation \(serving.number) runs it")
            }
        }
        // docs/operations.md, `removed`: a plugin whose file is gone, which the generation that
        // serves does not run: it told nothing of it, as it found no file of it when it looked.
        for plugin in status.plugins where plugin.state == .removed {
            guard let serving else {
                violate("the status says \(plugin.name) is removed, but no generation serves (\(status.state))")
                continue
            }
            if serving.toldNames.contains(plugin.name) || serving.told.contains(where: { $0.name == plugin.name }) {
                violate("the status says \(plugin.name) is removed, but generation \(serving.number), which serves, told of it: its file was there when it looked")
            }
        }
        // Each plugin's failures are the ends blamed on it, the last one its latest.
        for plugin in status.plugins {
            let truly = truth.failures[plugin.name]
            if plugin.failures != truly?.count ?? 0 || plugin.lastFailure?.at != truly?.at || plugin.lastFailure.map({ $0.version != truly?.version }) == true {
                violate("the status says \(plugin.name) failed \(plugin.failures) times, the last \(plugin.lastFailure.map { "\($0.version ?? "?") at \($0.at)" } ?? "never"); the ends blamed on it: \(truly.map { "\($0.count), the last \($0.version) at \($0.at)" } ?? "none")")
            }
        }
        for (name, failures) in truth.failures where !status.plugins.contains(where: { $0.name == name }) {
            violate("the status does not list \(name), which \(failures.count) ends were blamed on")
        }
        checkRestartFigures(status.restarts, backingOffUntil: status.backingOffUntil)
        if status.healthDurations != truth.healthDurations {
            violate("the status says the last health check took \(status.healthDurations); the generation that served last told \(truth.healthDurations)")
        }
        // The last upgrade is the one that ended last, as the truth has it.
        if status.lastUpgrade?.at != truth.lastUpgrade?.at || status.lastUpgrade?.result != truth.lastUpgrade?.result {
            violate("the status says the last upgrade \(status.lastUpgrade.map { "ended \($0.result) at \($0.at)" } ?? "is none"); the truth: \(truth.lastUpgrade.map { "\($0.result) at \($0.at)" } ?? "none")")
        }
        // The reload figures are what the workers told of the reloads made, as the host heard it.
        let lastTold = reloads.last
        if status.reloadsApplied != reloads.applied || status.reloadsRefused != reloads.refused
            || status.lastReload?.at != lastTold?.at || status.lastReload?.applied != lastTold?.applied || status.lastReload?.reasons != lastTold?.reasons {
            violate("the status says \(status.reloadsApplied) reloads applied and \(status.reloadsRefused) refused, the last \(status.lastReload.map { "at \($0.at), applied: \($0.applied)" } ?? "none"); the workers told \(reloads.applied) and \(reloads.refused), the last \(lastTold.map { "at \($0.at), applied: \($0.applied)" } ?? "none")")
        }
        // The generations listed are those started whose end the host has not heard of; a
        // build the status says is held is one the driver holds, as the host last heard.
        let live = liveAsHeard.sorted()
        let listed = status.generations.map(\.number).sorted()
        if listed != live { violate("the status lists generations \(listed), the workers not ended are \(live)") }
        // A stop the host is yet to hear of (its signal waits behind the event it handles) does
        // not stop it yet.
        let stopUnheard = queue.contains { event in
            switch event {
            case .signal(let signal, _): signal.asksToStop
            case .control(_, let request): request == .stop
            default: false
            }
        }
        for generation in status.generations where !stopUnheard {
            guard let worker = workers[generation.number] else { continue }
            let truly = role(of: worker)
            if generation.role != truly {
                violate("the status says generation \(generation.number) (\(generation.cause)) is \(generation.role); by what it did and was told, it is \(truly)")
            }
        }
        for plugin in status.plugins {
            guard let version = plugin.held else { continue }
            if !heldAsHeard.contains(where: { $0.name == plugin.name && $0.version == version }) {
                violate("the status says \(plugin.name) \(version) is held, the driver holds \(heldAsHeard.filter { $0.name == plugin.name }.map(\.version))")
            }
        }
    }

    /// What a generation does for the host, as operations.md names it (`role`), by what the
    /// world's worker did and was told, as the host heard it: being ended once sent SIGKILL;
    /// asked to stop, `stopping` as the host stops with none to take its place (a generation
    /// started after it was ready), else `draining`; `serving` once its word that it is ready
    /// came; an upgrade's or a restart's generation `loading beside` the serving one, `waiting
    /// to take over` once it loaded and the generation it replaces was asked to stop for it,
    /// `taking over` once told to bootstrap; the first generation `starting`, one after a
    /// failure `recovering`.
    private func role(of worker: Worker) -> GenerationRole {
        if worker.killed { return .beingEnded }
        if worker.askedToStop {
            let replaced = workers.values.contains { $0.number > worker.number && $0.readySeen }
            return signals.stopAsked && !replaced ? .stopping : .draining
        }
        if worker.readySeen { return .serving }
        switch worker.cause {
        case .start: return .starting
        case .restart, .restore: return .recovering
        case .upgrade, .operatorRestart, .hostUpgrade:
            if worker.proceeded { return .takingOver }
            let replacedStops = worker.replaces.flatMap { workers[$0] }?.askedToStop == true
            if worker.life.lastKnownStep == .prepared, worker.bootstrapsBeside == false, replacedStops { return .waitingToTakeOver }
            return .loadingBeside
        }
    }

    /// The status's restart figures are the world's count ("Restarts"): how many restarts, how
    /// many leaving out healed, how many in a row it did not, how many of those count within
    /// the window that ends now, and how long the next one in a row would wait; and the host
    /// backs off exactly while a failure waits out its backoff. The host counts a restart when
    /// it decides it, the world when it starts: the counts are compared while none waits.
    private mutating func checkRestartFigures(_ figures: RestartStatus, backingOffUntil: MonotonicInstant?) {
        let policy = setup.machine.restart
        if figures.limit != policy.limit || figures.window != policy.window || figures.enabled != policy.enabled {
            violate("the status says the restart limit is \(figures.limit) in \(TextFormat.seconds(figures.window)) (enabled: \(figures.enabled)), the configuration \(policy.limit) in \(TextFormat.seconds(policy.window)) (enabled: \(policy.enabled))")
        }
        // Once a stop is asked for, a restart decided and waiting never starts: the host counted
        // it, the world never will.
        guard !signals.stopAsked else { return }
        if let failure = restarts.pending {
            let until = failure.at + failure.wait
            if until > now, backingOffUntil != until {
                violate("the status says the host backs off until \(backingOffUntil.map { "\($0)" } ?? "never"), the truth: a failure at \(failure.at) waits \(TextFormat.seconds(failure.wait))")
            }
            return
        }
        if let backingOffUntil { violate("the status says the host backs off until \(backingOffUntil), but no failure waits for a restart") }
        let truth = (total: restarts.starts.count, healed: restarts.healed, inARow: restarts.unhealedInARow,
                     used: restarts.unhealed(within: policy.window, before: now))
        if (figures.total, figures.healed, figures.inARow, figures.used) != truth {
            violate("the status counts \(figures.total) restarts, \(figures.healed) healed, \(figures.inARow) in a row, \(figures.used) within the window; the truth \(truth.total), \(truth.healed), \(truth.inARow), \(truth.used)")
        }
        let next = WorldRules.backoff(restartsInARow: restarts.unhealedInARow + 1, delay: policy.delay, maximum: policy.maximumDelay)
        if figures.nextDelay != next {
            violate("the status says the next restart in a row would wait \(TextFormat.seconds(figures.nextDelay)), the backoff \(TextFormat.seconds(next))")
        }
    }

    /// The metrics of `status` have no two series with the same name and labels.
    mutating func checkMetrics(of status: HostStatus) {
        let facts = StatusDocument.Facts(process: ProcessID(rawValue: 1), wallNow: 1_800_000_000, monotonicNow: now)
        var seen: Set<String> = []
        // By bytes: splitting by characters finds grapheme boundaries, a measurable part of a run.
        for line in StatusDocument(status: status, facts: facts).metrics.utf8.split(separator: UInt8(ascii: "\n"))
        where line.first != UInt8(ascii: "#") {
            guard let space = line.lastIndex(of: UInt8(ascii: " ")) else { continue }
            let series = String(decoding: line[..<space], as: UTF8.self)
            if !seen.insert(series).inserted { violate("the metrics export the series \(series) twice") }
        }
    }

    /// The plugins that leave with `leaving` among what `worker` ran.
    private func dependents(of leaving: Set<String>, in worker: Worker) -> Set<String> {
        WorldRules.dependents(of: leaving, among: worker.published.filter { $0.state != .removed }.map(\.plugin))
    }

    /// Whether the world, as the driver, holds a build of plugin `name` whose contents are
    /// `identity`'s, its file still reading those bytes.
    private func holdsBuild(named name: String, readingAs identity: FileIdentity) -> Bool {
        held.contains { entry in
            guard entry.build.name == name, let heldIdentity = entry.build.identity, identity.hasSameContents(as: heldIdentity) else { return false }
            return files.inodes[entry.inode]?.identity.hasSameContents(as: identity) == true
        }
    }

    // MARK: Answers

    /// Checks an answer to client `id`: to one still connected, once, of the kind its
    /// request asks for; what a follower is shown follows what it was shown before.
    mutating func receive(_ answer: ControlAnswer, by id: Int) {
        for wrong in clients.answered(answer, to: id, at: now) { violate(wrong) }
    }

    // MARK: After every step

    /// A host started after this one ended, on the files as they are, with the record this one
    /// kept (each build whose file still holds it, as the driver reads it): its first generation
    /// leaves out exactly the builds on disk that the truth leaves out.
    mutating func checkNextStart() {
        guard let ending = exit, ![.notRestartable, .failedBeforeReady].contains(ending.reason), !stateDirectory.torn, setup.keepsRecord else { return }
        checkStartAfterEnd(because: "\(ending.reason)", at: ending.at)
    }

    /// A host started after this one ended (`reason`, at `endedAt`) from the record on disk:
    /// its first generation leaves out exactly the builds on disk that the truth leaves out,
    /// does not run a build on trial as permanent, and runs the permanent build in its place.
    mutating func checkStartAfterEnd(because reason: String, at endedAt: MonotonicInstant) {
        let ending = (reason: reason, at: endedAt)
        let onDisk = Set(Self.plugins.indices.compactMap { files.buildOnDisk($0)?.build })
        let record = recordAsRead()
        let (_, actions) = SupervisionMachine.starting(setup.machine, record: record, at: now)
        guard let plan = actions.compactMap({ if case .start(let plan) = $0 { plan } else { nil } }).first else {
            violate("a host started with the record this one kept starts no generation")
            return
        }
        let excluded = Set(plan.builds.excluded.compactMap { excluded in
            Self.plugin(named: excluded.name).map { WorldTruth.Build(plugin: $0, identity: excluded.identity) }
        })
        let truly = Set(truth.evidence.keys).intersection(onDisk)
        // A build on trial when the host ended is not run as permanent: the next start leaves
        // it out until it serves, and runs the plugin's permanent build in its place.
        // On trial when it ended, or still awaiting the trial a start before this one deferred.
        let trials = (truth.trials(at: ending.at).map { (build: $0.build, permanent: $0.permanent) }
            + truth.awaitingTrial.map { (build: $0.key, permanent: $0.value) })
            .filter { onDisk.contains($0.build) && !truth.isLeftOut($0.build) }
        let awaiting = Set(trials.map(\.build))
        // A build with evidence of fault may stay left out when its file changed: its copy is kept.
        for build in excluded.subtracting(truth.evidence.keys).subtracting(awaiting).sorted(by: { $0.stamp < $1.stamp }) {
            violate("a host started after this one (\(ending.reason)) would leave out \(build), a build with no evidence of fault")
        }
        for build in truly.subtracting(excluded).sorted(by: { $0.stamp < $1.stamp }) {
            violate("a host started after this one (\(ending.reason)) would run \(build), which \(truth.evidence[build]!.reason)")
        }
        for build in awaiting.subtracting(excluded).sorted(by: { $0.stamp < $1.stamp }) {
            violate("a host started after this one (\(ending.reason)) would run \(build), on trial when it ended, as permanent")
        }
        // What a start loads in place of a file is a build the truth does not leave out.
        for substitute in plan.builds.substitutes {
            guard let plugin = Self.plugin(named: substitute.name) else { continue }
            let build = WorldTruth.Build(plugin: plugin, identity: substitute.identity)
            if truth.isLeftOut(build) {
                violate("a host started after this one (\(ending.reason)) would run \(build) from the record, which \(truth.evidence[build]!.reason)")
            }
        }
        // Run from its copy: without one, nothing of that plugin runs in its place.
        for trial in trials where !truth.isLeftOut(trial.permanent) && files.copies[trial.permanent] != nil {
            let substitute = plan.builds.substitutes.first { $0.name == trial.permanent.name }
            if substitute.map({ WorldTruth.Build(plugin: trial.permanent.plugin, identity: $0.identity) }) != trial.permanent {
                violate("a host started after this one (\(ending.reason)) would not run \(trial.permanent), the permanent build, in place of \(trial.build), on trial when it ended")
            }
        }
    }

    mutating func checkInvariants(after event: SupervisionEvent) {
        checkRecord()
        checkRecordWrites()
        // Every generation the machine knows alive has a worker, and every worker alive is
        // known: none is forgotten, so none is left running.
        // Counted first, without building anything: this runs after every event.
        var machineLiveCount = 0
        var knownToTheWorld = true
        for generation in machine.generations.all where generation.isLive {
            machineLiveCount += 1
            if workers[generation.number]?.isAlive != true { knownToTheWorld = false }
        }
        var worldLiveCount = 0, running = 0, live = 0
        for worker in workers.values {
            if worker.isAlive {
                worldLiveCount += 1
                if !worker.life.hasEnded && !worker.askedToStop { running += 1 }
                if !worker.killed { live += 1 }
            } else if worker.endSeen && worker.daemons.values.contains(true) {
                // No process of an ended generation is left.
                violate("generation \(worker.number) ended, and a process it started still runs (after \(describe(event)))")
            }
        }
        if exit == nil, !knownToTheWorld || machineLiveCount != worldLiveCount {
            let machineLive = machine.liveGenerations.map(\.number)
            let worldLive = workers.values.filter(\.isAlive).map(\.number).sorted()
            violate("the machine knows generations \(machineLive) alive, the world has workers \(worldLive) (after \(describe(event)))")
        }
        // At most a serving generation and a candidate run at once, besides those being killed.
        if running > 2 {
            let alive = workers.values.filter { $0.life.runs && !$0.askedToStop }
            violate("\(alive.count) generations run at once: \(alive.map(\.number).sorted())")
        }
        // At most two generations live, one draining included, besides those being killed.
        if live > 2 {
            let live = workers.values.filter { $0.isAlive && !$0.killed }
            violate("\(live.count) generations live at once: \(live.map(\.number).sorted()) (after \(describe(event)))")
        }
        forgetEnded()
    }

    /// Drops the workers that ended long ago.
    private mutating func forgetEnded() {
        guard workers.count > 8 else { return }
        let keep = Set([servingWorker, lastJudged?.worker].compactMap { $0 }).union(workers.values.compactMap(\.replaces))
        for number in workers.keys.sorted().dropLast(4) where !keep.contains(number) && workers[number]?.isAlive == false
            && workers[number]?.daemons.values.contains(true) == false {
            workers[number] = nil
        }
    }

    /// The host ends only for a documented reason the truth justifies, with a status that
    /// reason allows, after a stop request within its deadline.
    mutating func checkExit(_ status: ExitStatus, _ reason: EndReason) {
        // Everyone who asked has an answer: a stop, the status the host ends with.
        for (id, request) in clients.waiting {
            violate("the host ended without answering client \(id)'s \(request)")
        }
        if let stoppedAnswer = clients.stoppedAnswer, stoppedAnswer != status {
            violate("the host answered a stop with status \(stoppedAnswer.rawValue), and ended with \(status.rawValue)")
        }
        if !reason.statuses.contains(status.rawValue) {
            violate("the host ended with status \(status.rawValue), which \(reason) does not allow")
        }
        if let first = signals.stopRequests.first, now - first.at > stopAllowance {
            violate("the host ended \(TextFormat.seconds(now - first.at)) after the stop request; its deadline allows \(TextFormat.seconds(stopAllowance))")
        }
        switch reason {
        case .stopped:
            if !signals.stopAsked { violate("the host ended as stopped though no stop was asked for") }
        case .stoppedAtOnce:
            if signals.stopRequests.count < 2 {
                violate("the host ended at once as if asked to stop twice, but operators asked once (\(signals.stopRequests.map { "\($0.signal.name) at \($0.at)" }))")
            }
        case .nothingLeftToServe:
            guard let judged = lastJudged, let worker = workers[judged.worker] else { break }
            let leaving = Set(judged.blamed.map(\.name)).union(dependents(of: Set(judged.blamed.map(\.name)), in: worker))
            let staying = worker.published.filter { $0.state != .removed && !leaving.contains(Self.plugins[$0.plugin].name) }.map(\.plugin)
            // A plugin runs a service, as far as this host knows, once it ran in a generation that served.
            let services = staying.filter { Self.plugins[$0].providesService && servedServices.contains($0) }
            if !staying.isEmpty && (setup.machine.watching || !services.isEmpty) {
                violate("the host ended with nothing left to serve, but \(staying.map { Self.plugins[$0].name }) would stay")
            }
        case .restartLimit:
            let policy = setup.machine.restart
            let start = now + (restarts.pending?.wait ?? .zero)
            let recent = restarts.unhealed(within: policy.window, before: start)
            if recent < policy.limit {
                violate("the host ended at the restart limit with \(recent) restarts leaving out did not heal within \(TextFormat.seconds(policy.window)) (the limit is \(policy.limit))")
            }
            // A failure leaving out heals (a new build that crashes, a trial's rollback) is no loop.
            if restarts.pending?.healed == true {
                violate("the host ended at the restart limit for a failure that leaving a build out heals: a bad new build never ends what serves")
            }
        case .failedBeforeReady:
            // "The first generation": once its report is out and its services run, it serves,
            // whether or not its word that it is ready reached the supervisor.
            if let first = workers.values.first(where: { $0.cause == .start }), first.saidReady {
                violate("the host ended as if generation \(first.number) failed before it was ready, but its report was out and its services ran: it served")
            }
        case .gaveWay:
            violate("the host ended giving way to a new host, though nobody asked for a host upgrade")
        case .finished, .notRestartable, .cannotStartWorker:
            break
        }
    }

    // MARK: Once faults stop

    /// With no fault for a while, a watching host serves the newest good build of each plugin
    /// the truth does not leave out, and nothing it leaves out; every reload asked was made.
    mutating func checkSettled() {
        switch machine.state {
        case .serving, .finished: break
        default:
            violate("with no fault for \(TextFormat.seconds(settlingTime)) the host is neither serving nor ended: \(machine.state)")
            return
        }
        for (id, request) in clients.waiting {
            violate("with no fault for \(TextFormat.seconds(settlingTime)), client \(id) still waits for the answer to its \(request)")
        }
        if !reloads.asked.isEmpty { violate("with no fault for \(TextFormat.seconds(settlingTime)), a reload asked for at \(reloads.asked[0]) was never made") }
        // What the host proved is on disk once its state directory answers: no write is lost,
        // the newest one last.
        if setup.keepsRecord, exit == nil, stateDirectory.write == nil, !stateDirectory.torn, stateDirectory.record != recordDecided {
            violate("with no fault for \(TextFormat.seconds(settlingTime)), the record on disk is not the one the host last asked to keep")
        }
        // Nothing handed over waits with the supervisor once a generation serves and none starts.
        if case .serving = machine.state, machine.liveGenerations.count == 1 {
            for case .supervisor(let from) in items {
                violate("with no fault for \(TextFormat.seconds(settlingTime)), the supervisor still holds what generation \(from) handed over: passed to nobody, never closed")
                break
            }
            // "Once the trial ends the build is permanent, the build before is let go": of each
            // plugin that serves, the driver holds the build that serves and, while it is on
            // trial, the build it replaced; nothing more.
            if let serving = servingWorker.flatMap({ workers[$0] }) {
                let kept = Set(serving.told).union(truth.trials(at: now).map(\.replaced))
                for entry in held {
                    guard let plugin = Self.plugin(named: entry.build.name), serving.told.contains(where: { $0.plugin == plugin }),
                        let identity = entry.build.identity, !kept.contains(WorldTruth.Build(plugin: plugin, identity: identity))
                    else { continue }
                    violate("with no fault for \(TextFormat.seconds(settlingTime)), the driver still holds \(entry.build.name) \(entry.build.version) beside the build that serves, with no trial to roll back: never let go")
                }
            }
        }
        guard setup.machine.watching, let serving = servingWorker, let worker = workers[serving] else {
            if setup.machine.watching { violate("with no fault for \(TextFormat.seconds(settlingTime)), no generation serves") }
            return
        }
        let runningNames = Set(worker.running.map(\.name))
        for plugin in Self.plugins.indices {
            let name = Self.plugins[plugin].name
            let runs = worker.running.first { $0.plugin == plugin }
            let requirementsRun = Self.plugins[plugin].requires.allSatisfy(runningNames.contains)
            let disk = files.buildOnDisk(plugin)
            if let runs, let evidence = truth.evidence[runs], worker.startedAt >= evidence.since {
                violate("generation \(serving) runs \(runs), which \(evidence.reason)")
            }
            // A plugin that does not run, whose other build the serving worker loaded: only a new
            // worker can load its file's build, and the worker asks for one once (docs/operations.md,
            // Plugins added and removed); after that it waits for an operator's restart (a reload does not ask again).
            let asked = disk.map { disk in
                runs == nil && worker.published.contains { $0.plugin == plugin && $0.loaded && $0.build != disk.build }
                    && worker.askedUpgrades.contains { WorldTruth.Build(plugin: plugin, identity: $0) == disk.build }
            } ?? false
            guard let disk, disk.behaviour != .junk, !truth.abandoned.contains(disk.build), !environmentChanged.contains(disk.build), !asked else {
                if disk == nil, let runs { violate("generation \(serving) runs \(runs), whose file was removed") }
                continue
            }
            if disk.behaviour == .good, !truth.isLeftOut(disk.build), requirementsRun, runs != disk.build {
                violate("with no fault for \(TextFormat.seconds(settlingTime)), generation \(serving) runs \(runs?.description ?? "no build of \(name)"), not \(disk.build), "
                    + "the newest good build, which nothing leaves out")
            }
            if let runs, runs != disk.build, !truth.isLeftOut(disk.build), disk.behaviour == .good {
                violate("generation \(serving) runs \(runs) in place of \(disk.build), which nothing leaves out")
            }
        }
    }
}

extension String {
    /// Whether it holds `other`, compared byte by byte: the checks read every line the host
    /// says, after every step.
    func has(_ other: String) -> Bool { utf8.offset(of: other) != nil }
}

extension String.UTF8View {
    /// Where `needle` begins in these bytes, if it does.
    func offset(of needle: String) -> Int? {
        let haystack = Array(self)
        let needle = Array(needle.utf8)
        guard let first = needle.first, needle.count <= haystack.count else { return nil }
        var start = 0
        while start <= haystack.count - needle.count {
            if haystack[start] == first {
                var index = 1
                while index < needle.count, haystack[start + index] == needle[index] { index += 1 }
                if index == needle.count { return start }
            }
            start += 1
        }
        return nil
    }
}
