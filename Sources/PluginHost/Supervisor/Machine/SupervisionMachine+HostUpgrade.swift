/// The host's own upgrade (``HostUpgrade``): the serving host checks the plugin-host file now
/// installed, starts it as a new host beside itself, lets its generation drain when the new
/// host's has loaded, and ends once the new host's trial passed; a new host that ends before
/// that leaves this host serving, on with its generation or again with a new one. The new
/// host's end of it is ``takingOver(_:record:from:_:at:)`` and what follows.
extension SupervisionMachine {
    // MARK: The host that gives way

    /// An operator asked (`plugin-host upgrade-host`, or SIGUSR2: no `client`): the file at
    /// the host's path is checked first, and nothing stops before it passes.
    mutating func hostUpgradeAsked(by client: Int?) {
        let refusal: Refusal? = if takeOver != nil || isUpgradingHost {
            .hostUpgradeUnderWay
        } else if case .serving(let serving) = state, !hasDrainingGeneration, generations[serving]?.isAlive == true {
            nil
        } else {
            isStopping ? .hostStopping : .hostNotSteady(state.hostState)
        }
        if let refusal {
            if let client { act(.answer(client: client, .refused(refusal))) } else { say(.hostUpgrade(.notNow(refusal))) }
            return
        }
        guard case .serving(let serving) = state else { return }
        enter(.upgradingHost(HostUpgrade(phase: .checking, role: .givingWay(serving: serving, asked: client, newHost: nil))))
        act(.checkHostBinary)
    }

    /// The driver read the file at the host's path: `problem` says why it cannot be the new
    /// host, or it may be started.
    mutating func hostBinaryChecked(problem: String?) {
        guard case .upgradingHost(var upgrade) = state, upgrade.phase == .checking, case .givingWay(let serving, _, _) = upgrade.role else { return }
        if let problem {
            hostUpgradeEnded(upgrade, .refused(problem))
            return
        }
        upgrade.phase = .starting
        enter(.upgradingHost(upgrade))
        let first = generations.started + 1
        generations.reserve(through: first)
        act(.startNewHost(NewHostPlan(
            generationBefore: serving, firstGeneration: first, running: (generations[serving]?.running ?? []).map(\.name))))
    }

    /// Whether this host gives way to a new host now.
    private var isUpgradingHost: Bool {
        if case .upgradingHost = state { true } else { false }
    }

    mutating func newHostStarted(_ process: ProcessID) {
        guard case .upgradingHost(var upgrade) = state, upgrade.phase == .starting else { return }
        upgrade.started(process)
        enter(.upgradingHost(upgrade))
        say(.hostUpgrade(.started(newHost: process)))
        notify(.status(.upgradingHost, nil))
    }

    /// The new host said `word`.
    mutating func newHostSaid(_ word: HostWord) {
        guard case .upgradingHost(var upgrade) = state, case .givingWay(let serving, _, let newHost?) = upgrade.role else { return }
        switch word {
        case .drain:
            // Its generation loaded and bootstraps once this one stopped and handed over.
            guard upgrade.phase == .loading else { return }
            upgrade.phase = .handingOver
            if upgrade.servingEnded {
                // It ended already: what it handed over, if anything, goes now.
                act(.handOverToNewHost(from: serving))
            } else {
                askToStop(serving, signal: .terminate)
            }
        case .serves:
            guard upgrade.phase == .loading || upgrade.phase == .handingOver else { return }
            // Bootstrapped beside: this host's generation drains now.
            if upgrade.phase == .loading, !upgrade.servingEnded { askToStop(serving, signal: .terminate) }
            upgrade.phase = .onTrial
            let outcome = HostUpgradeOutcome.onTrial(newHost: newHost, trial: configuration.trial)
            if let client = upgrade.asked { act(.answer(client: client, .hostUpgrade(outcome))) }
            upgrade.answered()
            say(.hostUpgrade(.ended(outcome)))
            act(.answerOperators(false))
        case .trialPassed:
            guard upgrade.phase == .onTrial else { return }
            say(.hostUpgrade(.passed(newHost: newHost)))
            enter(.upgradingHost(upgrade))
            // The new host serves for good: this one ends, leaving the sockets to it.
            act(.leaveSocketsInPlace)
            finish(.success, .gaveWay)
            return
        case .stop:
            // The new host is the service now: a stop of it is the service's stop.
            guard upgrade.phase == .onTrial else { return }
            beginStop(.terminate)
            return
        case .handedOver:
            return
        }
        enter(.upgradingHost(upgrade))
    }

    /// The new host could not be started, or ended before its trial passed (`why`): this host
    /// serves on, or again.
    mutating func newHostFailed(_ why: HostUpgradeFailure) {
        switch state {
        case .upgradingHost(var upgrade):
            guard upgrade.runningNewHost != nil || upgrade.phase == .starting else { return }
            notify(.mainProcess)
            act(.answerOperators(true))
            if upgrade.servingBeside != nil {
                hostUpgradeEnded(upgrade, .failed(why, drained: false))
            } else {
                upgrade.phase = .fallingBack(why)
                enter(.upgradingHost(upgrade))
                serveAgainIfDrained()
            }
        case .stopping(var stop):
            // Ended as this host stops: nothing to go back to.
            stop.newHost = nil
            enter(.stopping(stop))
            finishStopIfDone()
        case .starting, .serving, .recovering, .backingOff, .upgrading, .finished:
            break
        }
    }

    /// A generation of this host ended while it gives way: the one that served hands over to
    /// the new host, or, when the new host failed, a new generation of this host serves.
    ///
    /// One that ends before the new host's generation is ready leaves the upgrade going on:
    /// once this host started a new host, only the new host's end gives the service back to
    /// this one, so that the two never both take it for theirs.
    mutating func endedWhileGivingWay(_ number: Int, _ upgrade: HostUpgrade) {
        guard case .givingWay(let serving, _, _) = upgrade.role, number == serving else { return }
        if case .fallingBack = upgrade.phase {
            serveAgainIfDrained()
        } else if upgrade.servingBeside != nil {
            var upgrade = upgrade
            upgrade.servingEnded = true
            enter(.upgradingHost(upgrade))
        } else if upgrade.phase == .handingOver {
            act(.handOverToNewHost(from: number))
        }
    }

    /// The new host failed: once no generation of this host lives, a new one serves, with
    /// what the last one handed over (kept until the new host's trial passes).
    private mutating func serveAgainIfDrained() {
        guard case .upgradingHost(let upgrade) = state, case .fallingBack(let why) = upgrade.phase else { return }
        guard liveGenerations.isEmpty else { return }
        hostUpgradeEnded(upgrade, .failed(why, drained: true))
    }

    /// The upgrade ended with `outcome`, this host serving on or again: said, in status,
    /// and to the operator who asked.
    private mutating func hostUpgradeEnded(_ upgrade: HostUpgrade, _ outcome: HostUpgradeOutcome) {
        if let client = upgrade.asked { act(.answer(client: client, .hostUpgrade(outcome))) }
        say(.hostUpgrade(.ended(outcome)))
        records.hostUpgradeEnded(at: now, outcome)
        notify(.status(.hostUpgradeFailed, nil))
        if let serving = upgrade.servingBeside {
            enter(.serving(serving))
            beginWaitingReload()
        } else {
            enter(.recovering(startGeneration(.restart)))
        }
    }

    // MARK: The new host

    /// A machine of a new host, started by `hostBefore` to take its place: its first
    /// generation, numbered as `plan` says, loads beside the host before's, which runs the
    /// plugins `plan` names, and waits for the machine's word.
    static func takingOver(
        _ configuration: Configuration, record: BuildRecord = BuildRecord(), from hostBefore: ProcessID, _ plan: NewHostPlan,
        at now: MonotonicInstant
    ) -> (SupervisionMachine, [SupervisionAction]) {
        var machine = SupervisionMachine(configuration: configuration, now: now)
        machine.ledger.handle(.recorded(record))
        machine.recordWrites = RecordWrites(kept: machine.ledger.record, changes: machine.ledger.recordChanges)
        machine.generations = Generations(after: plan.firstGeneration - 1)
        var upgrade = HostUpgrade(
            phase: .loading, role: .takingOver(hostBefore: hostBefore, generationBefore: plan.generationBefore, first: plan.firstGeneration, trialEnds: nil))
        upgrade.runningBefore = plan.running
        machine.takeOver = upgrade
        machine.say(.hostUpgrade(.takingOver(hostBefore: hostBefore)))
        machine.enter(.starting(machine.startGeneration(.hostUpgrade)))
        let actions = machine.takeActions()
        return (machine, actions)
    }

    /// This host's first generation reported what it loaded or bootstrapped, and waits.
    mutating func judgeTakingOver(_ number: Int, _ report: CandidateReport) {
        guard var upgrade = takeOver, case .takingOver(_, _, let first, _) = upgrade.role, number == first,
            generations[number]?.isAlive == true
        else { return }
        if let failed = report.failed.first {
            abandon(number, blaming: failed.number, bootstrapped: report.stage == .bootstrapped,
                    because: .hostUpgrade(.pluginFailed(failed.name)))
            return
        }
        switch report.stage {
        case .loaded:
            guard case .starting = generations[number]?.life else { return }
            // Every plugin that runs in the host before allows it: this generation bootstraps beside.
            let beside = !report.running.isEmpty && report.running.allSatisfy { $0.upgrade == .beside || !upgrade.runningBefore.contains($0.name) }
            if beside {
                act(.ask(generation: number, .verdict(.bootstrapBeside)))
                return
            }
            generations.prepared(number, report)
            upgrade.phase = .handingOver
            takeOver = upgrade
            if upgrade.otherEndGone {
                bootstrapAfterHostBefore(number, handedOver: nil)
            } else {
                act(.tellHostBefore(.drain))
            }
        case .bootstrapped:
            act(.ask(generation: number, .verdict(.serve)))
        }
    }

    /// The host before said `word`.
    mutating func hostBeforeSaid(_ word: HostWord) {
        guard case .handedOver(let items) = word, let upgrade = takeOver, upgrade.phase == .handingOver,
            case .takingOver(_, _, let first, _) = upgrade.role
        else { return }
        bootstrapAfterHostBefore(first, handedOver: items)
    }

    /// The host before ended (its channel closed): this host goes on alone.
    mutating func hostBeforeEnded() {
        guard var upgrade = takeOver, case .takingOver(let hostBefore, _, let first, _) = upgrade.role else { return }
        upgrade.otherEndGone = true
        takeOver = upgrade
        switch upgrade.phase {
        case .handingOver:
            if case .prepared = generations[first]?.life { bootstrapAfterHostBefore(first, handedOver: nil) }
        case .onTrial:
            // Nothing to go back to: the trial has no way back, and is over.
            records.hostUpgradeEnded(at: now, .tookOver(hostBefore: hostBefore, alone: true))
            say(.hostUpgrade(.ended(.tookOver(hostBefore: hostBefore, alone: true))))
            takeOver = nil
        case .checking, .starting, .loading, .fallingBack:
            break
        }
    }

    /// This host's first generation bootstraps now that the host before's stopped, with what
    /// it handed over (`nil`: nothing, it ended without).
    private mutating func bootstrapAfterHostBefore(_ number: Int, handedOver items: [String]?) {
        guard let upgrade = takeOver, case .takingOver(_, let before, _, _) = upgrade.role, case .prepared = generations[number]?.life else { return }
        if let items {
            act(handOffs.handle(.handedOver(items, by: before)))
            act(handOffs.handle(.ended(before, replaced: true)))
        }
        handOver(to: number)
        act(.ask(generation: number, .verdict(.bootstrapAfter)))
        generations.proceeds(number)
    }

    /// This host's first generation serves: systemd is told this host is the main process
    /// now, the host before that it serves, and its trial begins.
    mutating func tookOverHost(_ number: Int) {
        guard var upgrade = takeOver, case .takingOver(let hostBefore, let before, let first, _) = upgrade.role, number == first else { return }
        notify(.mainProcess)
        upgrade.phase = .onTrial
        upgrade.role = .takingOver(hostBefore: hostBefore, generationBefore: before, first: first, trialEnds: now + (configuration.trial ?? .zero))
        takeOver = upgrade
        act(.tellHostBefore(.serves))
        endHostTrialIfDue()
    }

    /// When this host's trial ends, while it is on trial and serves (a host that stops ends
    /// no trial).
    var hostTrialEnd: MonotonicInstant? {
        guard case .serving = state, let upgrade = takeOver, upgrade.phase == .onTrial, case .takingOver(_, _, _, let ends?) = upgrade.role else { return nil }
        return ends
    }

    /// This host's trial passed when its end has come and its first generation serves: the
    /// host before is told, and ends.
    mutating func endHostTrialIfDue() {
        guard let ends = hostTrialEnd, now >= ends, let upgrade = takeOver, case .takingOver(let hostBefore, _, let first, _) = upgrade.role,
            case .serving(first) = state
        else { return }
        act(.tellHostBefore(.trialPassed))
        records.hostUpgradeEnded(at: now, .tookOver(hostBefore: hostBefore, alone: false))
        say(.hostUpgrade(.ended(.tookOver(hostBefore: hostBefore, alone: false))))
        takeOver = nil
    }

    /// This host's first generation ended before the trial passed: this host gives up and ends,
    /// leaving the sockets to the host before, which serves again.
    mutating func giveUpTakingOver(_ ending: WorkerEnding) {
        say(.hostUpgrade(.givingUp(ending.summary)))
        finish(ending.isIntended ? .failure : ending.status, .failedBeforeReady)
    }
}

/// What the host that gives way hands the new host as it starts it.
struct NewHostPlan: Equatable, Sendable {
    /// Its generation that serves, whose plugins the new host's first generation loads beside.
    let generationBefore: Int
    /// The number of the new host's first generation: generations count on across hosts.
    let firstGeneration: Int
    /// The plugins the generation before runs, by name.
    let running: [String]
}
