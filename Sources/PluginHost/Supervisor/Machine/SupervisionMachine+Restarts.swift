/// Restarts: a serving generation that ends unexpectedly is replaced by one without the
/// builds to blame, at once when leaving them out heals the failure, after a backoff when it
/// does not, and never more often than the limit allows.
extension SupervisionMachine {
    /// A serving or recovering generation ended: the host ends with it, unless it ended
    /// unexpectedly and a new generation without its culprit can serve.
    mutating func recover(from number: Int) {
        guard let generation = generations[number], let ending = generation.ending else { return }
        // A worker that was ending by itself (its services had ended, or one failed) is not
        // serving anyone: what went wrong then ends the host as in a batch run.
        let wasEnding = [.stopping, .shuttingDown, .exiting].contains(generation.endedIn)
        guard !ending.isIntended, !wasEnding, configuration.restart.enabled, isServiceRun(generation) else {
            finish(ending.status, ending.isIntended ? (generation.readyAt == nil ? .failedBeforeReady : .finished) : .notRestartable)
            return
        }
        let plugins = generation.plugins
        // Its services ran (the first generation's, before its word that it is ready came, too).
        if generation.endedIn == .running { generations.sawServices(in: plugins.running) }
        // Blame is on the evidence of the end alone: a plugin that failed earlier in this
        // worker (left out, not added) is not the culprit of an end that names nobody.
        let culpritBuilds = generation.culpritBuilds
        // A build on trial whose build before is held comes back in its place: its plugin stays.
        let comingBack = culpritBuilds.filter { ledger.trial(of: $0)?.replacedHeld == true }
        let gone = culpritBuilds.filter { culprit in !comingBack.contains { $0.isSameBuild(as: culprit) } }
        let live = plugins.filter { $0.state != .removed }
        let dependents = Dependents.leaving(with: Set(gone.map(\.name)), among: live, name: \.name, requires: \.requires)
            .map(\.plugin.name)
        let leaving = Set(gone.map(\.name) + dependents)
        let staying = live.map(\.name).filter { !leaving.contains($0) }
        if staying.isEmpty || (!configuration.watching && generations.servicePlugins.isDisjoint(with: staying)) {
            say(.nothingLeftToServe(culprits: culpritBuilds, withDependents: !dependents.isEmpty))
            // The host ends, but what it proved is kept: the next start leaves them out too.
            leaveOut(culpritBuilds, because: .failed(ending.summary))
            finish(ending.status, .nothingLeftToServe)
            return
        }
        let healed = ledger.healsByLeavingOut(culpritBuilds)
        let decision = restarts.handle(.failed(healed: healed, readyFor: generation.readyAt.map { now - $0 }), at: now)
        guard case .restart(let start, let count)? = decision.first else {
            if case .limitReached(let recent)? = decision.first { say(.restartLimitReached(recent: recent, policy: restarts.policy)) }
            leaveOut(culpritBuilds, because: .failed(ending.summary))
            finish(ending.status, .restartLimit)
            return
        }
        // Left out, those on trial fail their trials: the builds they replaced are held to come back.
        let trials = leaveOut(culpritBuilds, because: .failed(ending.summary))
        guard trials.isEmpty else {
            rollBack(trials, after: ending, dependents: dependents, at: start, count: count)
            return
        }
        let blame: Announcement.Blame = ending.exoneration.map { .nobody($0) } ?? (ending.culprits.isEmpty ? .unknown : .culprits(culpritBuilds))
        say(.restarting(blame: blame, dependents: dependents, restart: count))
        notify(reloadingNow)
        notify(.status(.restarting(culprits: culpritBuilds, failure: ending.summary, leftOut: leaving.sorted()), nil))
        schedule(.restart, at: start)
    }

    /// A failure blamed builds on trial: a generation with the builds they replaced takes over
    /// at `start` (a rollback, whose line `started(_:bringingBack:)` says once it starts).
    private mutating func rollBack(_ trials: [BuildLedger.Trial], after ending: WorkerEnding, dependents: [String], at start: MonotonicInstant, count: Announcement.RestartCount) {
        upgrades.restore(trials.map(\.build.name))
        say(.rollingBackAfterFailure(trials: trials.map(Announcement.Rollback.init), failure: ending.summary, dependents: dependents, restart: count))
        notify(reloadingNow)
        notify(.status(.rollingBack(trials.map(Announcement.Rollback.init), failure: ending.summary), nil))
        records.upgradeEnded(at: now, .rolledBack(trials: trials.map(Announcement.Rollback.init), because: .failedOnTrial(ending.summary), broughtBack: nil))
        schedule(.restore, at: start)
    }

    /// Starts a generation for `cause` at `start`: now, or once the backoff has passed.
    mutating func schedule(_ cause: GenerationPlan.Cause, at start: MonotonicInstant) {
        enter(start > now ? .backingOff(until: start, then: cause) : .recovering(startGeneration(cause)))
    }

    /// Leaves `builds` out of every generation from now on, until their files change or
    /// an operator's restart: by their contents, so that a copy held open for a rollback is left out too.
    ///
    /// - Returns: The trials that failed, of those on trial.
    @discardableResult
    mutating func leaveOut(_ builds: [PublishedPlugin], because reason: LeaveOutReason) -> [BuildLedger.Trial] {
        builds.flatMap { ledger.handle(.failed($0, because: reason)).failedTrials }
    }
}
