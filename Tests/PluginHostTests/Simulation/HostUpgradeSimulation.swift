#if !STANDALONE_SIMULATOR
@testable import PluginHost
#endif

/// Seeded random sequences of faults during the host's own upgrade (``HostUpgradeWorld``):
/// the file installed fails at one step or none, and operators, systemd and crashes strike
/// at random moments: a crash during the hand-over, the host before killed on trial, a stop
/// while the new host loads.
enum HostUpgradeSimulation {
    /// What happens to the hosts, one step of a sequence.
    enum Operation: Equatable, CustomStringConvertible {
        /// An operator runs `plugin-host upgrade-host`.
        case askUpgrade
        /// systemd sends SIGUSR2 to the service's main process (`systemctl kill -s USR2`).
        case signalUpgrade
        case advance(milliseconds: Int64)
        case advanceToNextMoment
        /// `systemctl stop`: SIGTERM to the process systemd takes for the main one.
        case stopService
        /// An operator's SIGTERM to the new host.
        case terminateNewHost
        /// SIGKILL of a host's supervisor.
        case kill(Which)
        /// The generation that serves in a host crashes.
        case crashServing(Which)

        enum Which: CaseIterable { case hostBefore, newHost }

        var description: String {
            switch self {
            case .askUpgrade: ".askUpgrade"
            case .signalUpgrade: ".signalUpgrade"
            case .advance(let milliseconds): ".advance(milliseconds: \(milliseconds))"
            case .advanceToNextMoment: ".advanceToNextMoment"
            case .stopService: ".stopService"
            case .terminateNewHost: ".terminateNewHost"
            case .kill(let which): ".kill(.\(which))"
            case .crashServing(let which): ".crashServing(.\(which))"
            }
        }
    }

    struct Outcome {
        let seed: UInt64
        let operations: [Operation]
        let violations: [String]
        let events: Int
        let trace: [String]
    }

    /// The set-up of `seed`: what the file installed does, Keeper's upgrade order, the trial.
    static func setup(seed: UInt64) -> HostUpgradeWorld.Setup {
        var random = SplitMix64(seed: seed ^ 0x0057_0A57)
        var setup = HostUpgradeWorld.Setup()
        // Half the files installed are good; the rest fail at one step each.
        setup.candidate = Bool.random(using: &random) ? .good : HostUpgradeWorld.CandidateBuild.allCases.randomElement(using: &random)!
        setup.beside = Int.random(in: 0..<3, using: &random) == 0
        setup.machine.trial = [nil, .seconds(2), .seconds(30)].randomElement(using: &random)!
        setup.machine.stopLimit = [.seconds(1), .seconds(10)].randomElement(using: &random)!
        setup.machine.restart.delay = .milliseconds([0, 100].randomElement(using: &random)!)
        setup.machine.restart.limit = Int.random(in: 2...8, using: &random)
        return setup
    }

    /// The random sequence of `seed`: the first generation serves, an operator asks, then faults.
    static func operations(seed: UInt64) -> [Operation] {
        var random = SplitMix64(seed: seed)
        let asking: Operation = Int.random(in: 0..<4, using: &random) == 0 ? .signalUpgrade : .askUpgrade
        let faults = (0..<Int.random(in: 0...10, using: &random)).map { _ -> Operation in
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<40: .advance(milliseconds: [1, 3, 10, 30, 100, 1_000, 5_000].randomElement(using: &random)!)
            case 40..<60: .advanceToNextMoment
            case 60..<62: .askUpgrade
            case 62..<64: .signalUpgrade
            case 64..<70: .stopService
            case 70..<74: .terminateNewHost
            case 74..<85: .kill(Operation.Which.allCases.randomElement(using: &random)!)
            default: .crashServing(Operation.Which.allCases.randomElement(using: &random)!)
            }
        }
        return [.advance(milliseconds: 100), asking] + faults
    }

    /// Runs `operations` on the set-up of `seed`, then lets the hosts settle and checks that
    /// one serves.
    static func run(seed: UInt64, operations: [Operation], tracing: Bool = false) -> Outcome {
        var world = HostUpgradeWorld(setup: setup(seed: seed), seed: seed, tracing: tracing)
        for operation in operations {
            if tracing { world.trace.append("op \(operation)") }
            world.apply(operation)
            if !world.violations.isEmpty { break }
        }
        if world.violations.isEmpty {
            world.advance(to: world.now + (world.setup.machine.trial ?? .zero) + .seconds(120))
        }
        if world.violations.isEmpty { world.checkSettled() }
        return Outcome(seed: seed, operations: operations, violations: world.violations, events: world.events, trace: world.trace)
    }

    /// Runs the random sequence of `seed`; a failure comes back shrunk, with its trace.
    static func run(seed: UInt64) -> Outcome {
        let outcome = run(seed: seed, operations: operations(seed: seed))
        guard !outcome.violations.isEmpty else { return outcome }
        var operations = outcome.operations
        var index = operations.count - 1
        while index >= 0 {
            var candidate = operations
            candidate.remove(at: index)
            if !run(seed: seed, operations: candidate).violations.isEmpty { operations = candidate }
            index -= 1
        }
        return run(seed: seed, operations: operations, tracing: true)
    }

    /// A failure as a person reads it, and as a test replays it.
    static func report(_ outcome: Outcome) -> String {
        ([
            "seed \(outcome.seed): host upgrade to a file that is \(setup(seed: outcome.seed).candidate): \(outcome.violations.first ?? "")",
            "shrunk to \(outcome.operations.count) operations; replay with: make simulate SEED=\(outcome.seed) SEQUENCES=1, or in a test:",
            "HostUpgradeSimulation.run(seed: \(outcome.seed), operations: [\(outcome.operations.map(\.description).joined(separator: ", "))])",
            "trace:",
        ] + outcome.trace.filter { !$0.hasSuffix("event tick") }.suffix(150)).joined(separator: "\n")
    }
}

extension HostUpgradeWorld {
    /// Applies `operation` now.
    mutating func apply(_ operation: HostUpgradeSimulation.Operation) {
        switch operation {
        case .askUpgrade:
            askUpgrade()
        case .signalUpgrade:
            // One upgrade a sequence, as for an operator's request.
            guard hosts[mainProcess]?.isAlive == true, newHost == nil || hosts[mainProcess]?.machine.takeOver != nil
                || hosts[mainProcess]?.machine.state.hostState == .upgradingHost else { return }
            if mainProcess == Self.hostBefore, newHost == nil, case .serving(let serving)? = hosts[mainProcess]?.machine.state {
                upgradeAsked = true
                if servingWhenAsked == nil { servingWhenAsked = serving }
            }
            deliver(.signal(.upgradeHost, from: .supervisor), to: mainProcess)
        case .advance(let milliseconds):
            advance(to: now + .milliseconds(milliseconds))
        case .advanceToNextMoment:
            advance(to: (nextMoment ?? now) + .milliseconds(1))
        case .stopService:
            guard hosts[mainProcess]?.isAlive == true else { return }
            serviceStopped = true
            deliver(.signal(.terminate, from: .supervisor), to: mainProcess)
        case .terminateNewHost:
            guard let newHost, hosts[newHost]?.isAlive == true else { return }
            newHostHarmed = true
            // The new host on trial is the service's main process: its stop is the service's.
            if mainProcess == newHost { serviceStopped = true }
            deliver(.signal(.terminate, from: .supervisor), to: newHost)
        case .kill(.hostBefore):
            guard hosts[Self.hostBefore]?.isAlive == true else { return }
            killedBefore = (now, mainProcess)
            hostEnded(Self.hostBefore, status: nil, reason: nil)
            // systemd sees its main process killed: the service failed, and it ends what is left.
            if mainProcess == Self.hostBefore {
                serviceStopped = true
                if let newHost { hostEnded(newHost, status: nil, reason: nil) }
            }
        case .kill(.newHost):
            guard let newHost, hosts[newHost]?.isAlive == true else { return }
            newHostHarmed = true
            hostEnded(newHost, status: nil, reason: nil)
        case .crashServing(let which):
            let process = which == .hostBefore ? Self.hostBefore : newHost
            guard let process, hosts[process]?.isAlive == true, let number = serving(in: process).first else { return }
            if which == .newHost { newHostHarmed = true }
            crashServing(number)
        }
    }
}

extension HostUpgradeWorld {
    /// An operator runs `plugin-host upgrade-host`: whichever host accepts on the control
    /// socket answers. One upgrade a sequence: a new host that took over for good is not
    /// asked for another, nor the host before once its upgrade ended.
    mutating func askUpgrade() {
        var answering: ProcessID?
        if let host = hosts[Self.hostBefore], host.isAlive, host.answersOperators {
            let underWay: Bool = host.machine.state.hostState == .upgradingHost
            if newHost == nil || underWay { answering = Self.hostBefore }
        } else if let process = newHost, let host = hosts[process], host.isAlive, host.answersOperators, host.machine.takeOver != nil {
            answering = process
        }
        guard let answering else { return }
        let client = nextClient
        nextClient += 1
        asked[client] = now
        if answering == Self.hostBefore, newHost == nil, case .serving(let serving)? = hosts[answering]?.machine.state {
            upgradeAsked = true
            if servingWhenAsked == nil { servingWhenAsked = serving }
        }
        deliver(.control(client: client, .upgradeHost), to: answering)
    }
}
