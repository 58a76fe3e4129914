/// What generations say and do: they start, get ready, wait to take over, ask for an
/// upgrade, tell news, are stopped by a signal, and end.
extension SupervisionMachine {
    // MARK: Starting and getting ready

    /// The driver started generation `number`'s worker, handing it the held builds `found` in
    /// place of files whose builds are left out, some from the record's copies: a rollback
    /// says which builds it brings back only now, from what the driver found, never from what
    /// it asked to hold.
    mutating func started(_ number: Int, bringingBack found: [BuildSubstitute], rewritten: [BuildSubstitute]) {
        // The builds handed over, by contents: the held build of a plugin, or the one its trial replaced.
        func heldBuilds(_ substitutes: [BuildSubstitute]) -> [PublishedPlugin] {
            let held = ledger.held + ledger.replacedOnTrial
            return substitutes.compactMap { substitute in
                held.first { $0.name == substitute.name && $0.identity?.hasSameContents(as: substitute.identity) == true }
            }
        }
        // A held build whose file was written in place reads other bytes now: it is lost, and
        // the file is loaded as it is, a new build by its contents.
        let lost = heldBuilds(rewritten)
        if !lost.isEmpty {
            holdWhatRuns(adding: ledger.handle(.rewritten(lost, because: .writtenInPlace)).lost)
        }
        generations.loads(number, substitutes: found)
        guard let generation = generations[number], generation.cause == .restore else { return }
        let names = upgrades.restoringStarted()
        let broughtBack = heldBuilds(found)
        if !broughtBack.isEmpty {
            say(.bringingBack(broughtBack))
        }
        // A plugin forgiven since (an operator's restart), or whose file changed again, loads its file as it is.
        for name in names where !found.contains(where: { $0.name == name }) && ledger[name]?.leftOut.isEmpty == false {
            let record = ledger[name]
            let why: Announcement.CannotComeBack = if let held = record?.held {
                // Held as far as the ledger knows, and the driver could not hand it over.
                ledger.isLeftOut(held) ? .leftOut : .cannotBeOpened(version: held.version)
            } else {
                .notHeld(record?.notHeld)
            }
            say(.cannotBringBack(plugin: name, because: why))
        }
        records.broughtBack(broughtBack)
    }

    mutating func ready(_ number: Int, plugins: [PublishedPlugin]) {
        guard let generation = generations.ready(number, plugins: plugins, at: now) else { return }
        switch state {
        case .starting(let current), .recovering(let current):
            guard current == number else { break }
            becomeServing(number)
            tookOverHost(number)
        case .serving(let current):
            // Ready again after a reload: it runs what it ran (a reload adds no plugin).
            if current == number {
                ledger.handle(.speaks(generation))
                notify(.ready(ledger.takeSummary()))
            }
        case .upgrading(let upgrade):
            guard upgrade.candidate == number else { break }
            switch upgrade.phase {
            case .loading(let serving):
                // Every plugin allowed it to bootstrap beside the serving generation, which now drains.
                let replaced = generations[serving]?.running ?? []
                askToStop(serving, signal: .terminate)
                tookOver(upgrade, replacing: replaced)
            case .takingOver(let replaced):
                tookOver(upgrade, replacing: replaced)
            case .handingOver:
                // While generations change hands, the host is ready when the new one is.
                break
            }
        case .backingOff, .stopping, .finished, .upgradingHost:
            // While generations change hands, the host is ready when the new one is.
            break
        }
    }

    /// A generation is ready: it serves from now on, and its builds are held.
    mutating func becomeServing(_ number: Int) {
        enter(.serving(number))
        guard let generation = generations[number] else { return }
        // What the generations before warned of ends: its plugins started with the configuration as it is.
        for warning in records.takeWarnings(of: generation.warnings) { say(.warning(warning)) }
        act(operators.handle(.restartEnded(generation: number, .serves(generation: number))))
        let running = generation.running
        generations.sawServices(in: running)
        // Held before the host says it is ready, so that a file replaced once it is can
        // always be brought back; the driver says which it could hold.
        if isServiceRun(generation) {
            act(.hold(buildsToHold(running: running)))
        }
        ledger.handle(.speaks(generation))
        notify(.ready(ledger.takeSummary()))
        beginWaitingReload()
        // The builds that were on trial when the host last stopped are tried again, as an upgrade.
        if ledger.handle(.serves).awaitedTrialsDue, upgrades.asked(whileDraining: hasDrainingGeneration) { startUpgrade(of: number) }
    }

    mutating func upgradeRequested(by number: Int, plugins: [PublishedPlugin]) {
        guard generations.published(number, plugins) else { return }
        switch state {
        case .serving(let current):
            guard current == number else { break }
            // At most two generations live: an upgrade waits for the one that drains to end.
            if upgrades.asked(whileDraining: hasDrainingGeneration) { startUpgrade(of: number) }
        case .upgrading(var upgrade):
            // The files changed again while a candidate loads: if it fails, the serving
            // generation's request is taken up then (its worker does not ask twice).
            guard upgrade.servingBeside == number else { break }
            upgrade.askedMeanwhile = true
            enter(.upgrading(upgrade))
        case .starting, .recovering, .backingOff, .stopping, .finished, .upgradingHost:
            // A rescan while generations change hands is asked for again once one serves.
            break
        }
    }

    /// A notification of the generation that speaks for the host reaches systemd; what it
    /// says of the plugins is the ledger's.
    mutating func passOn(_ notification: ServiceNotification, from number: Int) {
        guard currentGeneration == number else { return }
        switch notification {
        case .ready:
            break
        case .reloading(let microseconds):
            notify(.reloading(at: MonotonicInstant(nanoseconds: microseconds * 1000)))
        case .status(let what):
            ledger.handle(.speaks(generations[number]))
            notify(.status(.worker(what), ledger.takeSummary()))
        case .stopping(let status):
            // A generation that stops to make way for the next is not the host stopping.
            if !isChangingHands { announceStopping(.told(status)) }
        }
    }

    // MARK: Stopped by a signal

    mutating func suspended(_ number: Int, process: ProcessID, by signal: Signal, running: [String]) {
        guard generations.suspended(number, by: signal, at: now) else { return }
        say(.workerSuspended(process: process, by: signal, running: running, limit: configuration.suspensionLimit))
    }

    mutating func resumed(_ number: Int, process: ProcessID) {
        guard let suspension = generations.resumed(number) else { return }
        say(.workerResumed(process: process, after: now - suspension.since))
    }

    // MARK: Ending

    mutating func couldNotStart(_ number: Int, _ reason: String) {
        guard generations.couldNotStart(number, reason) else { return }
        say(.cannotStartWorker(reason: reason))
        act(operators.handle(.restartEnded(generation: number, .couldNotStart(generation: number, reason: reason))))
        switch state {
        case .starting(let current):
            if current == number { finish(.failure, .cannotStartWorker) }
        case .recovering(let current):
            if current == number { finish(.crashed, .cannotStartWorker) }
        case .upgrading(let upgrade):
            guard upgrade.candidate == number else { break }
            switch upgrade.phase {
            case .loading(let serving):
                say(.upgradeCouldNotStart)
                serveOn(serving, after: upgrade, upgradingAgain: false)
            case .takingOver:
                finish(.crashed, .cannotStartWorker)
            case .handingOver:
                break
            }
        case .serving, .backingOff, .stopping, .finished, .upgradingHost:
            break
        }
    }

    mutating func ended(_ number: Int, _ evidence: EndingEvidence) {
        guard let before = generations[number], before.isLive else { return }
        let ending: WorkerEnding
        if case .killed(let reason, _, let spokeForHost, _) = before.life {
            ending = WorkerEnding(judging: evidence, killedBecause: reason, spokeForHost: spokeForHost)
        } else {
            ending = WorkerEnding(judging: evidence)
        }
        guard let generation = generations.ended(
            number, ending, plugins: evidence.plugins, in: evidence.workerPhase, failedPlugin: evidence.failedPlugin)
        else { return }
        if let account = ending.account { say(.workerFailed(account)) }
        // The end is blamed on its culprits; a worker that ended by itself as meant, on the
        // plugin it gave up on, if any (one that failed to bootstrap, or that the machine blamed).
        let endedByItself = if case .killed = before.life { false } else { true }
        let blamed = ending.isIntended && endedByItself ? generation.failedPlugin.map { [$0] } ?? [] : ending.culprits
        for culprit in blamed {
            guard let culprit = evidence.plugins[number: culprit] else { continue }
            ledger.handle(.blamed(name: culprit.name, FailureRecord(at: now, version: culprit.version, summary: ending.summary)))
        }
        act(operators.handle(.ended(number, ending, serving: servingGeneration)))
        // Whatever it started ends with it.
        act(.endProcesses(generation: number))
        // A held build whose file was written in place reads the new bytes from that file: the
        // driver is asked to hold what it holds again, and opens each build whose held file
        // changed from elsewhere (the record's copy), or says it cannot.
        if !evidence.rewrittenInPlace.isEmpty { holdWhatRuns() }

        // What it handed over goes to the generation that replaces it: the next to bootstrap.
        act(handOffs.handle(.ended(number, replaced: succeeds(number))))
        switch state {
        case .starting(let current):
            guard current == number else { break }
            // Once its report is out and its services run, the first generation serves, whether
            // or not its word that it is ready came before its end: it ends as a serving one does,
            // also when it ended unasked once its services had stopped (none to run, or done).
            if takeOver != nil {
                giveUpTakingOver(ending)
            } else if evidence.workerPhase == .running || (!ending.isIntended && evidence.workerPhase.isAfterItsServicesRan) {
                recover(from: number)
            } else {
                finish(ending.status, ending.isIntended ? .finished : .failedBeforeReady)
            }
        case .serving(let current):
            if current == number {
                // A new host whose generation fails on trial gives way to the host before again.
                if takeOver != nil { giveUpTakingOver(ending) } else { recover(from: number) }
                break
            }
            // A generation another replaced before it was asked to drain (an upgrade's took over
            // while it was being ended) failed all the same: its culprits are left out, and the
            // one that serves goes on.
            if !before.wasAskedToStop, !ending.isIntended {
                leaveOut(generation.culpritBuilds, because: .failed(ending.summary))
            }
            if upgrades.generationEnded(stillDraining: hasDrainingGeneration) {
                // The generation that drained after an upgrade beside it ended: the upgrade
                // asked for meanwhile begins.
                startUpgrade(of: current)
            }
        case .recovering(let current):
            if current == number { recover(from: number) }
        case .backingOff:
            break
        case .upgrading(var upgrade):
            let candidate = upgrade.candidate
            switch upgrade.phase {
            case .loading(let serving):
                if number == candidate {
                    if let rollback = upgrade.rollingBack {
                        say(.rollbackFailed(trials: rollback.map(Announcement.Rollback.init)))
                    }
                    serveOn(serving, after: upgrade, upgradingAgain: upgradeFailed(candidate, serving: serving))
                } else if number == serving {
                    kill(candidate, because: .notNeeded, probing: false)
                    recover(from: serving)
                }
            case .handingOver(let old):
                // The candidate ending first is seen once the old one has ended too.
                guard number == old else { break }
                let replaced = generation.running
                if generations[candidate]?.ending != nil {
                    restore(after: candidate, replacing: replaced)
                    break
                }
                upgrade.phase = .takingOver(replacing: replaced)
                enter(.upgrading(upgrade))
                if case .prepared(let report) = generations[candidate]?.life, let lost = report.firstLost(of: replaced) {
                    // What the old one ran at its end is more than the candidate can run (a
                    // guard: a serving worker's plugins do not grow, a plugin dropped in comes
                    // with a new generation): it gives up, and the builds before are restored
                    // once it has ended.
                    abandon(candidate, blaming: lost.number, bootstrapped: false, because: .candidateCannotRun(plugin: lost.name, bootstrapped: false))
                } else {
                    handOver(to: candidate)
                    act(.ask(generation: candidate, .verdict(.bootstrapAfter)))
                    generations.proceeds(candidate)
                }
            case .takingOver(let replaced):
                if number == candidate { restore(after: candidate, replacing: replaced) }
            }
        case .upgradingHost(let upgrade):
            endedWhileGivingWay(number, upgrade)
        case .stopping(var stop):
            if stop.current == number {
                stop.currentEnded(with: ending.status)
                enter(.stopping(stop))
            }
            finishStopIfDone()
        case .finished:
            break
        }
    }

    /// Whether a generation that bootstraps later replaces `number`, which just ended: it
    /// spoke for the host (serving, recovering, taking over), or it served while an upgrade's
    /// candidate loaded beside it. A candidate that failed before it took over, a generation
    /// that drained after one bootstrapped beside it, and any while the host stops, are
    /// replaced by none: what they handed over is closed. A candidate told to give up before
    /// it bootstrapped was handed nothing, and leaves the hand-off of the generation before to
    /// the generation that restores it.
    private func succeeds(_ number: Int) -> Bool {
        switch state {
        case .upgrading(let upgrade):
            switch upgrade.phase {
            case .takingOver: upgrade.candidate == number && generations[number]?.abandoned?.bootstrapped != false
            case .loading(let serving), .handingOver(let serving): serving == number
            }
        case .serving(let current), .recovering(let current): current == number
        case .upgradingHost(let upgrade): if case .givingWay(let serving, _, _) = upgrade.role { serving == number } else { false }
        case .starting, .backingOff, .stopping, .finished: false
        }
    }

    // MARK: What generations tell

    mutating func heard(_ news: WorkerNews, from number: Int) {
        guard generations[number] != nil else { return }
        switch news {
        case .plugins(let conditions):
            generations.told(number, conditions)
            judgeHealthOnTrial(of: number)
        case .reload(let applied, let reasons):
            records.reloaded(at: now, applied: applied, reasons: reasons)
            act(operators.handle(.reloaded(number, applied: applied, reasons: reasons, serving: servingGeneration)))
        case .warnings(let topic, let list):
            generations.warned(number, about: topic, list)
            // Another generation's (an upgrade's, loading) are in force once it serves.
            if number == currentGeneration {
                for warning in records.warn(about: topic, list) { say(.warning(warning)) }
            }
        case .health(let durations):
            if number == currentGeneration { records.tookHealthChecks(durations) }
        case .upgradeRefused(let upgrade, let reasons):
            records.upgradeEnded(at: now, .refused(upgrade: upgrade, reasons: reasons))
        case .candidate:
            // The driver passes a candidate's report as an event of its own (``judge(_:_:)``).
            break
        case .filesGone:
            // A removal runs no new code (the leaving plugins' drain and shutdown), and a new
            // generation would cost every other plugin what it holds: the generation that
            // speaks for the host removes them in place. One that stops leaves anyway.
            guard number == currentGeneration, generations[number]?.isAlive == true else { break }
            if case .stopping = state { break }
            act(.ask(generation: number, .removeGone))
        }
    }
}
