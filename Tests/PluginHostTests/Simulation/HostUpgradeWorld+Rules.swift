#if !STANDALONE_SIMULATOR
@testable import PluginHost
#endif

/// The world's rules for a host upgrade, written from docs/operations.md ("Upgrading the
/// host"), each checked against the world's truth (which process lives, which generation
/// serves, what systemd takes for the main process, Keeper's count), never against what the
/// machines say of themselves.
extension HostUpgradeWorld {
    /// The generations of host `process` that serve now, by the truth.
    func serving(in process: ProcessID) -> [Int] {
        workers.values.filter { $0.host == process && $0.life == .serving }.map(\.number).sorted()
    }

    /// Whether host `process` lives and stops (systemd's stop, or an operator's).
    func isStopping(_ process: ProcessID) -> Bool {
        guard let host = hosts[process], host.isAlive else { return false }
        if case .stopping = host.machine.state { return true }
        return false
    }

    /// Whether the file installed fails at a step the new host reaches: a fault on trial
    /// needs a trial.
    var candidateFails: Bool {
        switch setup.candidate {
        case .good: false
        case .generationCrashesOnTrial, .hostCrashesOnTrial: setup.machine.trial != nil
        case .notAPluginHost, .cannotBeStarted, .crashesAtStart, .pluginFailsToLoad, .crashesInBootstrap: true
        }
    }

    // MARK: After each decision

    mutating func checkDecision(of process: ProcessID, on event: SupervisionEvent, in before: SupervisionMachine.State, actions: [SupervisionAction]) {
        for action in actions {
            switch action {
            case .startNewHost:
                // 1. "It is refused before anything stops when it says it is no plugin-host."
                if setup.candidate == .notAPluginHost { violate("host \(process) starts a file that is no plugin-host as the new host") }
            case .notify(.mainProcess):
                // 3. "Once the new host's generation serves, the new host sends MAINPID=."
                if process == newHost, serving(in: process).isEmpty {
                    violate("the new host says MAINPID= while no generation of it serves")
                }
            case .exit(let status, .gaveWay):
                // 4. "When the trial passes ... the old host ends with status 0."
                if status != .success { violate("the host before gives way with status \(status.rawValue), not 0") }
            default:
                break
            }
        }
        // 5. "When the new host cannot start, crashes, ... the old host serves again ... It
        // sends MAINPID= with its own pid."
        if process == Self.hostBefore, case .newHostFailed = event, !isStopping(process), hosts[process]?.isAlive == true,
            case .upgradingHost = before {
            if mainProcess != Self.hostBefore {
                violate("the new host failed, and the host before did not tell systemd it is the main process again (MAINPID= names \(mainProcess))")
            }
        }
    }

    /// The answer host `process` gave client `client`.
    mutating func checkAnswer(_ answer: ControlAnswer, to client: Int, by process: ProcessID) {
        guard case .hostUpgrade(let outcome) = answer else { return }
        switch outcome {
        case .refused:
            // 1. Refused "before anything stops".
            if setup.candidate != .notAPluginHost { violate("upgrade-host was refused, though the file installed is a plugin-host of this protocol") }
            if newHost != nil { violate("upgrade-host was refused after a new host was started") }
            if let served = servingWhenAsked, workers[served]?.askedToStop == true {
                violate("upgrade-host was refused after generation \(served), which served, was asked to stop")
            }
        case .onTrial(let process, _):
            // 3. "upgrade-host exits 0" once "the new host's generation serves".
            if process != newHost { violate("upgrade-host says the new host is pid \(process); the world started \(newHost.map(\.description) ?? "none")") }
            // It may have failed since it said so: the host before hears its word first.
            if !workers.values.contains(where: { $0.host == process && $0.servedSince != nil }) {
                violate("upgrade-host says the new host serves; no generation of it served")
            }
        case .failed(let why, _):
            // 5. "upgrade-host exits 1 when this happens before the new host served."
            if let newHost, hosts[newHost]?.isAlive == true, !serving(in: newHost).isEmpty {
                violate("upgrade-host says the host upgrade failed (\(why)), while the new host serves")
            }
            checkWhy(why)
        case .tookOver:
            violate("upgrade-host was answered that the host took over: only the new host says so, in its status")
        }
    }

    /// Why the host before says the upgrade failed, by the truth.
    mutating func checkWhy(_ why: HostUpgradeFailure) {
        switch why {
        case .couldNotStart:
            if setup.candidate != .cannotBeStarted { violate("the host upgrade failed as the new host could not be started; the world started it") }
        case .newHostEnded:
            if setup.candidate == .cannotBeStarted { violate("the host upgrade failed as the new host ended; it never started") }
        }
    }

    /// A worker begins to serve: Keeper's count goes on from what the generation before
    /// handed over ("what its plugins hand over goes to the new host's generation", and the
    /// host before "serves again with what it kept").
    mutating func checkBeginsToServe(_ number: Int) {
        guard let worker = workers[number], let before = servingWhenAsked, let handed = handedOver[before], worker.receivedHandOff,
            number > before, firstToServe(after: before, in: worker.host) == number
        else { return }
        if worker.count != handed {
            violate("generation \(number) of host \(worker.host) serves with Keeper's count \(worker.count); generation \(before) handed over \(handed)")
        }
    }

    /// The first generation of `process` after `before` that began to serve, by the truth.
    private func firstToServe(after before: Int, in process: ProcessID) -> Int? {
        workers.values.filter { $0.host == process && $0.number > before && $0.servedSince != nil }.map(\.number).min()
    }

    /// Generation `to` of host `process` is sent what `from` handed over.
    mutating func checkHandOff(from: Int?, to: Int, in process: ProcessID) {
        if let from, workers[from]?.life.runs == true { violate("generation \(to) was sent what generation \(from) handed over while \(from) still ran") }
    }

    /// Host `process` ends: by its exit (`status`, `reason`), or killed (`nil`).
    mutating func checkHostEnd(_ process: ProcessID, status: ExitStatus?, reason: EndReason?) {
        guard let status else { return }
        let other = process == Self.hostBefore ? newHost : Self.hostBefore
        // The other host goes on: it lives, does not stop, and has not been told to give way
        // (the new host's word that its trial passed may be on its way).
        let otherGoesOn = other.map { other in
            hosts[other]?.isAlive == true && !isStopping(other) && !later.contains { $0.host == other && $0.event == .hostSaid(.trialPassed) }
        } ?? false
        if reason == .gaveWay {
            // 4. "When the trial passes the new host tells it, and the old host ends."
            // The new host may have died since it said its trial passed.
            guard process == Self.hostBefore, let newHost else {
                violate("host \(process) gives way to no new host")
                return
            }
            // A generation of it served its trial through (it may have ended since, on a host on its own).
            let trial = setup.machine.trial ?? .zero
            let servedTrial = workers.values.contains { worker in
                guard worker.host == newHost, let since = worker.servedSince else { return false }
                return (worker.servedUntil ?? now) - since >= trial
            }
            if !servedTrial {
                violate("the host before gives way before the new host's generation served its trial (\(TextFormat.seconds(setup.machine.trial ?? .zero)))")
            }
            if let host = hosts[process], !host.leavesSockets { violate("the host before gives way and removes the sockets' files") }
            if status != .success { violate("the host before gave way with status \(status.rawValue)") }
        }
        // systemd ends the service when its main process exits: a host that exits while
        // systemd takes it for the main one, with the other host serving on, loses the service.
        if mainProcess == process, otherGoesOn, reason != .gaveWay {
            violate("host \(process) exits (\(reason.map { "\($0)" } ?? "")) while systemd takes it for the main process, and host \(other!) goes on")
        }
    }

    // MARK: After each step

    mutating func checkInvariants() {
        // The main process names a host that lives, unless it was killed and the other host
        // is yet to hear of it, or systemd stops the service.
        if let main = hosts[mainProcess], !main.isAlive, !serviceStopped {
            let killed = main.ended?.status == nil
            let heard = later.contains { $0.host == Self.hostBefore && { if case .newHostFailed = $0 { true } else { false } }($0.event) }
            let stopping = hosts.values.contains { $0.isAlive } && hosts.values.filter(\.isAlive).allSatisfy { isStopping($0.process) }
            let allEnded = hosts.values.allSatisfy { !$0.isAlive }
            if !(killed && heard) && !stopping && !allEnded {
                violate("systemd takes \(mainProcess) for the main process, which ended, while another host lives")
            }
        }
    }

    // MARK: At the end

    /// After the faults and a quiet time long enough for any trial: one host serves, and
    /// systemd takes it for the main process; or the service stopped, and nothing runs.
    mutating func checkSettled() {
        let alive = hosts.values.filter(\.isAlive).map(\.process)
        let running = workers.values.filter { $0.life.runs && hosts[$0.host]?.isAlive == true }
        // The main process was killed with no host left: systemd starts the service anew,
        // which the simulation of supervision covers.
        if alive.isEmpty, let main = hosts[mainProcess], main.ended != nil, main.ended?.status == nil { return }
        // Crashes past the restart limit end a host, upgrade or none: the simulation of
        // supervision checks that end.
        let limits: Set<EndReason> = [.restartLimit, .nothingLeftToServe, .notRestartable]
        if alive.isEmpty, let reason = hosts[mainProcess]?.ended?.reason, limits.contains(reason) { return }
        if serviceStopped {
            if !alive.isEmpty { violate("the service was stopped; host \(alive.map(\.description).joined(separator: ", ")) still runs") }
            return
        }
        guard alive.count == 1, let survivor = alive.first else {
            violate("\(alive.count) hosts run once the host upgrade settled (\(alive.map(\.description).joined(separator: ", ")))")
            return
        }
        guard let host = hosts[survivor] else { return }
        if case .finished = host.machine.state { return }
        if mainProcess != survivor { violate("host \(survivor) serves alone, and systemd takes \(mainProcess) for the main process") }
        if serving(in: survivor).isEmpty {
            violate("host \(survivor) lives, in state \(host.machine.state.hostState), and no generation of it serves")
        }
        if running.contains(where: { $0.host != survivor }) { violate("a generation of a host that ended still runs") }
        guard upgradeAsked else { return }
        let outcome = host.machine.records.lastHostUpgrade?.outcome
        if survivor == Self.hostBefore {
            // The upgrade did not take: refused, or failed and said so.
            switch outcome {
            case .refused:
                if setup.candidate != .notAPluginHost { violate("status says the host upgrade was refused; the file is a plugin-host") }
            case .failed(let why, _):
                checkWhy(why)
                if setup.candidate == .good, newHost.flatMap({ hosts[$0]?.ended?.status }) == nil, killedBefore == nil,
                    !newHostHarmed {
                    violate("status says the host upgrade failed (\(why)); nothing made the good new host fail")
                }
            case .onTrial, .tookOver, nil:
                if newHost != nil || setup.candidate == .notAPluginHost {
                    violate("the host before serves on after a host upgrade, and its status says of it: \(outcome.map { "\($0)" } ?? "nothing")")
                }
            }
        } else {
            // The new host serves for good: its trial passed, or the host before ended first.
            switch outcome {
            case .tookOver(let before, let alone):
                if before != Self.hostBefore { violate("the new host says it took over from \(before), not \(Self.hostBefore)") }
                // Alone: the host before ended before the trial passed (the new host's first
                // generation served it through); at the very moment, either.
                let first = workers.values.filter { $0.host == survivor && $0.servedSince != nil }.min { $0.number < $1.number }
                if let passed = first?.servedSince.map({ $0 + (setup.machine.trial ?? .zero) }), let ended = hosts[Self.hostBefore]?.ended?.at, ended != passed,
                    alone != (ended < passed) {
                    violate("the new host says it took over \(alone ? "alone" : "after its trial"); the host before ended \(ended < passed ? "before" : "after") the trial passed")
                }
            default:
                violate("the new host serves alone, and its status says of the upgrade: \(outcome.map { "\($0)" } ?? "nothing")")
            }
            if candidateFails, killedBefore == nil { violate("a new host built to fail (\(setup.candidate)) serves for good") }
        }
        for client in asked.keys.sorted() where answers[client] == nil && killedBefore == nil {
            violate("client \(client) asked for a host upgrade and was never answered")
        }
    }
}
