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
        let culprits = ending.exoneration != nil || !ending.culprits.isEmpty
            ? ending.culprits : generation.failedPlugin.map { [$0] } ?? []
        let culpritBuilds = culprits.compactMap { plugins[number: $0] }
        // A build on trial whose build before is held comes back in its place: its plugin stays.
        let comingBack = culpritBuilds.filter { ledger.trial(of: $0)?.replacedHeld == true }
        let gone = culpritBuilds.filter { culprit in !comingBack.contains { $0.isSameBuild(as: culprit) } }
        let live = plugins.filter { $0.state != .removed }
        let dependents = Dependents.leaving(with: Set(gone.map(\.name)), among: live, name: \.name, requires: \.requires)
            .map(\.plugin.name)
        let leaving = Set(gone.map(\.name) + dependents)
        let staying = live.map(\.name).filter { !leaving.contains($0) }
        let culpritNames = culpritBuilds.map(\.label).joined(separator: ", ")
        if staying.isEmpty || (!configuration.watching && servicePlugins.isDisjoint(with: staying)) {
            say("plugin-host: not restarting: without \(culpritNames.isEmpty ? "it" : culpritNames)"
                + (dependents.isEmpty ? "" : " and the plugins that require it") + " no plugin is left to serve")
            finish(ending.status, .nothingLeftToServe)
            return
        }
        if let readyAt = generation.readyAt, now - readyAt >= configuration.restart.maximumDelay { restarts.servedSteadily() }
        let healed = ledger.healsByLeavingOut(culpritBuilds)
        let start = restartStart(healed: healed)
        guard restarts.recordRestart(startingAt: start, within: configuration.restart, healed: healed) else {
            sayRestartLimit(at: start)
            finish(ending.status, .restartLimit)
            return
        }
        leaveOut(culpritBuilds, because: ending.summary)
        let trials = failTrials(of: culpritBuilds)
        guard trials.isEmpty else {
            rollBack(trials, after: ending, dependents: dependents, at: start)
            return
        }
        let without: String
        switch ending.exoneration {
        case .rewrittenInPlace: without = " (no plugin is to blame: a plugin file changed under the worker; the files as they are now are loaded)"
        case .killedFromOutside: without = " (no plugin is to blame: the worker was killed from outside; none is left out)"
        case .stoppedFromOutside: without = " (no plugin is to blame: the worker was stopped by a signal from outside; none is left out)"
        case nil: without = culprits.isEmpty ? " (the culprit is unknown: none is left out)" : " without \(culpritNames)"
        }
        say("plugin-host: restarting the plugins" + without
            + (dependents.isEmpty ? "" : " and the plugins that require it (\(dependents.joined(separator: ", ")))")
            + "; restart \(restarts.count), at most \(configuration.restart.description)" + waitClause(start - now))
        notify(reloadingNow)
        notify(.status(
            "Restarting after " + (culpritBuilds.isEmpty ? "the worker \(ending.summary)" : "plugin \(culpritBuilds.map(\.name).joined(separator: ", ")) \(ending.summary)")
                + "; left out: " + (leaving.isEmpty ? "nothing" : leaving.sorted().joined(separator: ", "))))
        schedule(.restart, at: start)
    }

    /// A failure blamed builds on trial: a generation with the builds they replaced takes over
    /// at `start` (a rollback, whose line `started(_:bringingBack:)` says once it starts).
    private mutating func rollBack(_ trials: [BuildLedger.Trial], after ending: WorkerEnding, dependents: [String], at start: MonotonicInstant) {
        restoring = trials.map(\.build.name)
        say("plugin-host: error: rolling back \(Self.rollbackList(trials)): \(ending.summary) on trial; left out until "
            + "\(trials.count == 1 ? "its file changes" : "their files change")"
            + (dependents.isEmpty ? "" : "; the plugins that require a plugin left out are left out too (\(dependents.joined(separator: ", ")))")
            + "; restart \(restarts.count), at most \(configuration.restart.description)" + waitClause(start - now))
        notify(reloadingNow)
        notify(.status("Rolling back " + Self.rollbackList(trials) + " after it \(ending.summary) on trial"))
        records.lastUpgrade = UpgradeRecord(at: now, result: .rolledBack, detail: "\(ending.summary) on trial; " + Self.rollbackList(trials))
        schedule(.restore, at: start)
    }

    /// When a restart after a failure now starts: at once when the failure is healed by
    /// leaving out a build never left out before; otherwise after the backoff of one more
    /// restart in a row, for a loop that leaving out does not break (a culprit unknown, nobody
    /// blamed, or the same build failing again).
    func restartStart(healed: Bool) -> MonotonicInstant {
        healed ? now : restarts.nextStart(after: now, within: configuration.restart)
    }

    /// Starts a generation for `cause` at `start`: now, or once the backoff has passed.
    mutating func schedule(_ cause: GenerationPlan.Cause, at start: MonotonicInstant) {
        state = start > now ? .backingOff(until: start, then: cause) : .recovering(startGeneration(cause))
    }

    /// `; in 0.2 s (3 in a row)` when a restart waits.
    func waitClause(_ wait: Duration) -> String {
        wait > .zero ? "; in \(TextFormat.seconds(wait)) (\(restarts.inARow) in a row, --restart-delay)" : ""
    }

    mutating func sayRestartLimit(at start: MonotonicInstant) {
        say("plugin-host: not restarting: \(restarts.recent(endingAt: start, within: configuration.restart)) restarts "
            + "within \(TextFormat.seconds(configuration.restart.window)) already (--restart-limit "
            + "\(configuration.restart.limit)/\(TextFormat.seconds(configuration.restart.window)))")
    }

    /// Leaves `builds` out of every generation from now on, until their files change or
    /// SIGHUP: by their contents, so that a copy held open for a rollback is left out too.
    mutating func leaveOut(_ builds: [PublishedPlugin], because reason: String) {
        for build in builds { ledger.leaveOut(build, because: reason) }
    }
}
