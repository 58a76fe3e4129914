/// Upgrades: a candidate loads changed plugin files beside the serving generation, which
/// hands over once it has; a candidate that fails before leaves the serving generation as it
/// was, one that fails after is replaced by the builds that ran before (a rollback).
extension SupervisionMachine {
    /// The serving generation saw plugin files change (or an operator's restart or rollback
    /// asks for builds the files hold, or held ones): a candidate loads them beside it; a
    /// rollback's ends `trials`.
    ///
    /// - Returns: The candidate's number.
    @discardableResult
    mutating func startUpgrade(of serving: Int, cause: GenerationPlan.Cause = .upgrade, rollingBack trials: [BuildLedger.Trial]? = nil) -> Int {
        let candidate = startGeneration(cause)
        notify(reloadingNow)
        notify(.status(.upgrading, nil))
        enter(.upgrading(Upgrade(candidate: candidate, beside: serving, rollingBack: trials)))
        return candidate
    }

    /// A candidate reported what it loaded, or bootstrapped, and waits for the machine's word.
    /// It cannot replace the generation before when it cannot run a plugin that runs now and
    /// whose file is still there: it is told to give up, and that plugin is blamed. Loaded, it
    /// bootstraps beside the serving generation when every plugin it loaded allows it, and
    /// otherwise once the serving generation has stopped and handed over. Bootstrapped, it
    /// may serve.
    mutating func judge(_ number: Int, _ report: CandidateReport) {
        guard let generation = generations[number], generation.isAlive, generation.cause.loadsBeside else { return }
        // Not a candidate the host waits for (it stops, or the serving generation ended): it
        // is ended, and waits for no word.
        guard case .upgrading(var upgrade) = state, upgrade.candidate == number else { return }
        let before: [PublishedPlugin]
        switch upgrade.phase {
        case .loading(let serving): before = generations[serving]?.running ?? []
        case .takingOver(let replaced): before = replaced
        case .handingOver: return
        }
        let bootstrapped = report.stage == .bootstrapped
        if let lost = report.firstLost(of: before) {
            abandon(number, blaming: lost.number, bootstrapped: bootstrapped, because: .candidateCannotRun(plugin: lost.name, bootstrapped: bootstrapped))
            return
        }
        // What an upgrade was to bring failed in its candidate, which would serve exactly
        // what serves now: it gives up, and the generation that serves goes on undisturbed.
        if generation.cause == .upgrade, report.changesNothing(of: before, published: generation.plugins) {
            let failed = report.failed.first
            abandon(number, blaming: failed?.number, bootstrapped: bootstrapped, because: .candidateChangesNothing(failed: failed?.name, bootstrapped: bootstrapped))
            return
        }
        switch report.stage {
        case .loaded:
            guard let serving = upgrade.servingBeside, case .starting = generation.life else { return }
            // A serving generation the machine already ended (it overran) is failing, not
            // stopping for the candidate: its end is judged as a failure, and the candidate
            // is not needed.
            guard generations[serving]?.isAlive == true else { return }
            if report.bootstrapsBeside(of: before) {
                act(.ask(generation: number, .verdict(.bootstrapBeside)))
            } else {
                generations.prepared(number, report)
                askToStop(serving, signal: .terminate)
                upgrade.phase = .handingOver(old: serving)
                enter(.upgrading(upgrade))
            }
        case .bootstrapped:
            act(.ask(generation: number, .verdict(.serve)))
        }
    }

    /// Tells candidate `number` to give up, blaming plugin `blamed` (a number it published, or
    /// nobody), and says `why`: it cannot run a plugin that runs now, or it would change
    /// nothing.
    mutating func abandon(_ number: Int, blaming blamed: PluginNumber?, bootstrapped: Bool, because why: Announcement) {
        generations.abandon(number, Generation.Abandonment(blamed: blamed, bootstrapped: bootstrapped))
        say(why)
        act(.ask(generation: number, .verdict(.abandon)))
    }

    /// The candidate ended before the generation before was disturbed: the builds to blame
    /// are left out until their files change, and the host goes on as it was.
    ///
    /// - Returns: Whether builds changed that are not to blame: another upgrade takes them
    ///   up without those that are.
    mutating func upgradeFailed(_ candidate: Int, serving: Int) -> Bool {
        guard let ending = generations[candidate]?.ending else { return false }
        let before = generations[serving]?.running ?? []
        let suspects = failedBuilds(of: candidate, comparedTo: before)
        leaveOut(suspects, because: ending.isIntended ? .failedToLoadBeside : .failed(ending.summary))
        guard !suspects.isEmpty else {
            say(.upgradeFailedBlamingNobody(ended: ending.summary))
            notify(.status(.upgradeFailed(leftOut: []), nil))
            records.upgradeEnded(at: now, .failed(leftOut: []))
            return false
        }
        say(.upgradeFailed(leftOut: suspects))
        notify(.status(.upgradeFailed(leftOut: suspects), nil))
        records.upgradeEnded(at: now, .failed(leftOut: suspects))
        let innocent = changedBuilds(of: candidate, comparedTo: before).filter { build in !suspects.contains { $0.isSameBuild(as: build) } }
        guard !innocent.isEmpty else { return false }
        say(.upgradingAgain(with: innocent))
        return true
    }

    /// The candidate loading beside `serving` is gone (it failed, or could not be started)
    /// before it disturbed it: `serving` serves on as it was, and so do the holds: what it
    /// runs and what trials replaced, not what the candidate was to bring back (a rollback's
    /// target). Files that changed while the candidate was to load, and builds that changed
    /// beside those to blame (`upgradingAgain`), are taken up at once by another upgrade.
    mutating func serveOn(_ serving: Int, after upgrade: Upgrade, upgradingAgain: Bool) {
        enter(.serving(serving))
        holdWhatRuns()
        if upgrade.askedMeanwhile || upgradingAgain { startUpgrade(of: serving) } else { beginWaitingReload() }
    }

    /// The new generation failed after the one before had stopped: a generation with the
    /// builds that ran before takes over, without the failing ones. Which builds it brings
    /// back is said once it starts, from what the driver found held (``started(_:bringingBack:)``).
    mutating func restore(after candidate: Int, replacing replaced: [PublishedPlugin]) {
        guard let ending = generations[candidate]?.ending else { return }
        let suspects = failedBuilds(of: candidate, comparedTo: replaced)
        let healed = ledger.healsByLeavingOut(suspects)
        leaveOut(suspects, because: ending.isIntended ? .failedToStartBeside : .failed(ending.summary))
        guard case .restart(let start, let count)? = restarts.handle(.failed(healed: healed, readyFor: nil), at: now).first else {
            say(.notRestoring(window: restarts.policy.window))
            finish(ending.isIntended ? .failure : ending.status, .restartLimit)
            return
        }
        upgrades.restore(suspects.map(\.name))
        say(.upgradeFailedAfterStop(leftOut: suspects, restart: count))
        notify(.status(.restoring, nil))
        records.upgradeEnded(at: now, .restored(leftOut: suspects, broughtBack: nil))
        schedule(.restore, at: start)
    }

    /// The builds to blame for a failed upgrade, by the evidence, among those it changed: the
    /// plugin its end names, when its build is new. Nobody when the evidence clears everyone
    /// (a SIGKILL or SIGSTOP from outside while no plugin was in a short call, a file written
    /// in place, a crash record that names no plugin), or names a plugin whose build serves
    /// unchanged in the generation before. Every build that changed when the new worker gave
    /// up on the new set of files as a whole (one that is not a plugin, or one missing).
    func failedBuilds(of candidate: Int, comparedTo before: [PublishedPlugin]) -> [PublishedPlugin] {
        guard let generation = generations[candidate], let ending = generation.ending, ending.exoneration == nil else { return [] }
        let changed = changedBuilds(of: candidate, comparedTo: before)
        let named = ending.isIntended ? generation.failedPlugin.map { [$0] } : ending.culprits
        guard let named else { return changed }
        return named.compactMap { generation.plugins[number: $0] }.filter { culprit in changed.contains { $0.isSameBuild(as: culprit) } }
    }

    /// The builds `candidate` loaded that are not the builds of `before`.
    func changedBuilds(of candidate: Int, comparedTo before: [PublishedPlugin]) -> [PublishedPlugin] {
        (generations[candidate]?.plugins ?? []).filter { build in !before.contains { $0.isSameBuild(as: build) } }
    }

    /// An upgrade's generation serves in place of the builds `replaced`: its changes are said,
    /// and go on trial; a rollback's brought back the builds before.
    mutating func tookOver(_ upgrade: Upgrade, replacing replaced: [PublishedPlugin]) {
        let number = upgrade.candidate
        if let trials = upgrade.rollingBack {
            let running = generations[number]?.running ?? []
            let back = trials.filter { trial in running.contains { $0.isSameBuild(as: trial.replaced) } }.map(\.replaced)
            say(.rolledBack(broughtBack: back))
            records.broughtBack(back)
        } else {
            sayUpgraded(number, replacing: replaced)
            beginTrials(of: number, replacing: replaced)
        }
        becomeServing(number)
    }

    /// Says which builds an upgrade replaced; of an operator's restart, that it serves, and
    /// which builds it changed.
    mutating func sayUpgraded(_ number: Int, replacing replaced: [PublishedPlugin]) {
        let changes = (generations[number]?.running ?? []).compactMap { build -> Announcement.BuildChange? in
            guard let before = replaced.first(where: { $0.name == build.name }) else { return Announcement.BuildChange(build: build, before: nil) }
            return before.isSameBuild(as: build) ? nil : Announcement.BuildChange(build: build, before: before)
        }
        if generations[number]?.cause == .operatorRestart {
            say(.restartedAsAsked(changes))
            // A restart that changed builds took up what the files hold now: an upgrade of them.
            guard !changes.isEmpty else { return }
        } else {
            say(.upgraded(changes))
        }
        records.upgradeEnded(at: now, .upgraded(changes))
    }
}
