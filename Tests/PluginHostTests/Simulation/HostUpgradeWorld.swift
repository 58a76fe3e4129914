#if !STANDALONE_SIMULATOR
@testable import PluginHost
#endif

/// The host's own upgrade (docs/operations.md, "Upgrading the host"), simulated: two hosts,
/// each the very ``SupervisionMachine`` a supervisor runs, driven as their drivers drive them
/// (workers, the channel between the hosts, systemd's notification socket, operators), with
/// a plugin-host file installed whose faults only the world knows (``CandidateBuild``).
///
/// The world keeps its truth apart from the machines: which host process lives, which
/// generation serves, what systemd takes for the service's main process, what each worker's
/// count is (Keeper, a plugin that counts and hands its count over). It checks what the
/// hosts decide and say against that truth by rules of its own (``HostUpgradeWorld+Rules``).
struct HostUpgradeWorld {
    /// What the plugin-host file installed at the host's path does when the host takes it
    /// up: the hosts learn it only by trying.
    enum CandidateBuild: CaseIterable, Equatable {
        case good
        /// A file with no identity section: the host refuses it before anything stops.
        case notAPluginHost
        /// A file the system will not start (no execute permission, a missing interpreter).
        case cannotBeStarted
        /// Its process crashes before it reads the channel.
        case crashesAtStart
        /// Its generation cannot load Keeper (a new host that breaks the plugin ABI).
        case pluginFailsToLoad
        /// Its generation crashes in Keeper's bootstrap.
        case crashesInBootstrap
        /// Its generation crashes while it serves, on trial.
        case generationCrashesOnTrial
        /// Its supervisor crashes while on trial.
        case hostCrashesOnTrial
    }

    /// One host process: its machine, and what its driver keeps.
    struct Host {
        var machine: SupervisionMachine
        let process: ProcessID
        /// How it ended, when it has: by its own exit, or killed (`nil` status).
        var ended: (status: ExitStatus?, reason: EndReason?, at: MonotonicInstant)?
        /// What each of its generations handed over as it stopped: Keeper's count.
        var handOffs: [Int: Int] = [:]
        /// Whether it leaves the sockets to the other host as it ends.
        var leavesSockets = false
        /// Whether it accepts on the control socket.
        var answersOperators = true
        /// The lines it said, for the rules that read them.
        var said: [Announcement] = []

        var isAlive: Bool { ended == nil }
    }

    /// A worker: one generation of one host, which runs Keeper.
    struct Worker {
        enum Life: Equatable {
            case loading, prepared, bootstrapping, bootstrapped, serving, stopping
            /// Ended; its host hears of it at `heardAt`.
            case ended(heardAt: MonotonicInstant)
            /// Ended and heard of, or gone with its host.
            case gone

            var runs: Bool {
                switch self {
                case .ended, .gone: false
                case .loading, .prepared, .bootstrapping, .bootstrapped, .serving, .stopping: true
                }
            }
        }

        let host: ProcessID
        let number: Int
        let cause: GenerationPlan.Cause
        var life = Life.loading
        var milestoneAt: MonotonicInstant?
        var askedToStop = false
        /// Keeper's count: it counts while it serves, and starts from what it was handed.
        var count = 0
        var receivedHandOff = false
        /// What its process said as it ended, for its host to hear.
        var evidence: EndingEvidence?
        /// Whether it hands its count over as it ends (it stopped as asked, after it began to serve or was handed a count).
        var handsOver = false
        /// When it began to serve, and when it stopped.
        var servedSince: MonotonicInstant?
        var servedUntil: MonotonicInstant?
        /// When the candidate build makes it crash (a new host's generation on trial).
        var crashAt: MonotonicInstant?
    }

    struct Setup {
        var candidate = CandidateBuild.good
        /// Whether Keeper's manifest says `"upgrade": "beside"`.
        var beside = false
        var machine = SupervisionMachine.Configuration()
    }

    static let hostBefore = ProcessID(rawValue: 100)
    static let keeper = "Keeper"

    let setup: Setup
    var now = MonotonicInstant(nanoseconds: 1_000_000_000_000)
    var random: SplitMix64
    var hosts: [ProcessID: Host] = [:]
    /// The new host, once the host before started one.
    var newHost: ProcessID?
    var workers: [Int: Worker] = [:]
    /// Events waiting for their host, in order.
    var queue: [(ProcessID, SupervisionEvent)] = []
    var delivering = false
    /// Events a host hears later: the end of a process it watches, a word on the channel.
    var later: [(at: MonotonicInstant, host: ProcessID, event: SupervisionEvent)] = []
    /// The process systemd takes for the service's main one: the host it started, then
    /// whichever said `MAINPID=` last.
    var mainProcess = hostBefore
    /// Whether systemd stops the service (or gave it up: its main process was killed).
    var serviceStopped = false
    /// What operators asked, and what they were answered, by client.
    var asked: [Int: MonotonicInstant] = [:]
    var answers: [Int: ControlAnswer] = [:]
    var nextClient = 1
    /// The highest count a generation showed while it served, and the count handed over by
    /// the last generation that drained as a host upgrade asked.
    var highestCount = 0
    /// The truth of what each generation handed over as it stopped: Keeper's count.
    var handedOver: [Int: Int] = [:]
    /// The host before's generation that served when an operator first asked for the upgrade.
    var servingWhenAsked: Int?
    /// Whether an operator asked, and when the host before was killed, with the process systemd took for the main one then.
    var upgradeAsked = false
    var killedBefore: (at: MonotonicInstant, mainProcess: ProcessID)?
    /// Whether an operator or a fault struck the new host (its generation crashed, it was
    /// killed or sent SIGTERM): a good new host may fail then.
    var newHostHarmed = false
    var violations: [String] = []
    var trace: [String] = []
    let tracing: Bool
    var events = 0

    init(setup: Setup, seed: UInt64, tracing: Bool = false) {
        self.setup = setup
        self.tracing = tracing
        random = SplitMix64(seed: seed)
        let (machine, actions) = SupervisionMachine.starting(setup.machine, at: now)
        hosts[Self.hostBefore] = Host(machine: machine, process: Self.hostBefore)
        delivering = true
        perform(actions, of: Self.hostBefore)
        drain()
    }

    // MARK: Time

    /// The next moment something happens by itself: a worker's milestone, an event heard
    /// later, a host's deadline.
    var nextMoment: MonotonicInstant? {
        let deadlines = hosts.values.filter(\.isAlive).compactMap(\.machine.nextDeadline)
        let milestones = workers.values.compactMap { worker -> MonotonicInstant? in
            if case .ended(let heard) = worker.life { return heard }
            guard worker.life.runs else { return nil }
            return [worker.milestoneAt, worker.crashAt].compactMap { $0 }.min()
        }
        return (deadlines + milestones + later.map(\.at) + [hostCrashAt?.at].compactMap { $0 }).min()
    }

    /// Lets time pass to `target`.
    mutating func advance(to target: MonotonicInstant) {
        var steps = 0
        while violations.isEmpty, let next = nextMoment, next <= target {
            steps += 1
            if steps > 20_000 {
                let deadlines = hosts.values.filter(\.isAlive).map { "host \($0.process): \($0.machine.nextDeadline.map(\.description) ?? "none") in \($0.machine.state.hostState)" }
                let due = workers.values.filter { $0.life.runs }.map { "generation \($0.number): \($0.life) at \($0.milestoneAt.map(\.description) ?? "-")" }
                violate("time does not move on at \(now): \((deadlines + due).joined(separator: "; "))")
                return
            }
            now = max(now, next)
            if let crash = hostCrashAt, crash.at <= now {
                hostCrashAt = nil
                hostEnded(crash.process, status: nil, reason: nil)
            }
            runWorkers()
            while let index = later.firstIndex(where: { $0.at <= now }) {
                let due = later.remove(at: index)
                deliver(due.event, to: due.host)
            }
            for process in hosts.keys.sorted(by: { $0.rawValue < $1.rawValue }) where hosts[process]?.isAlive == true {
                deliver(.tick, to: process)
            }
        }
        now = max(now, target)
        for process in hosts.keys.sorted(by: { $0.rawValue < $1.rawValue }) where hosts[process]?.isAlive == true {
            deliver(.tick, to: process)
        }
    }

    // MARK: Delivering

    /// Hands `event` to host `process` once the events before it are handled.
    mutating func deliver(_ event: SupervisionEvent, to process: ProcessID) {
        queue.append((process, event))
        guard !delivering else { return }
        delivering = true
        drain()
    }

    private mutating func drain() {
        while !queue.isEmpty {
            let (process, event) = queue.removeFirst()
            guard var host = hosts[process], host.isAlive else { continue }
            events += 1
            if tracing { trace.append("  host \(process) event \(event)") }
            let before = host.machine.state
            let actions = host.machine.handle(event, at: now)
            hosts[process] = host
            perform(actions, of: process)
            checkDecision(of: process, on: event, in: before, actions: actions)
            if queue.isEmpty { checkInvariants() }
        }
        delivering = false
    }

    // MARK: The drivers

    /// Performs `actions` of host `process`, as its driver does.
    mutating func perform(_ actions: [SupervisionAction], of process: ProcessID) {
        for action in actions {
            guard hosts[process]?.isAlive == true else { return }
            if tracing { trace.append("    host \(process) action \(action)") }
            switch action {
            case .start(let plan):
                start(plan, in: process)
            case .ask(let generation, let request):
                ask(generation, request)
            case .kill(let generation, _):
                end(generation, .signalled(.kill))
            case .endProcesses, .pingWatchdog, .checkRestart:
                break
            case .say(let announcement):
                hosts[process]?.said.append(announcement)
            case .notify(let notice):
                if notice == .mainProcess { mainProcess = process }
                if case .mainProcessBack(let hostBefore) = notice { mainProcess = hostBefore }
            case .hold(let builds):
                deliver(.holding(builds, asked: builds), to: process)
            case .handOver(let from, let to):
                handOver(from: from, to: to, in: process)
            case .discardHandOff(let from):
                hosts[process]?.handOffs[from] = nil
            case .keepRecord(_, let number):
                deliver(.recordKept(number: number, failure: nil), to: process)
            case .answer(let client, let answer):
                if answers[client] != nil { violate("client \(client) was answered twice") }
                answers[client] = answer
                checkAnswer(answer, to: client, by: process)
            case .checkHostBinary:
                deliver(.hostBinaryChecked(problem: setup.candidate == .notAPluginHost ? "no plugin-host" : nil), to: process)
            case .startNewHost(let plan):
                startNewHost(plan, by: process)
            case .handOverToNewHost(let from):
                guard let newHost, hosts[newHost]?.isAlive == true else { break }
                let count = hosts[process]?.handOffs[from]
                if let count { hosts[newHost]?.handOffs[from] = count }
                later.append((now + .milliseconds(1), newHost, .hostSaid(.handedOver(count == nil ? [] : ["\(Self.keeper)/count"]))))
            case .endNewHost:
                if let newHost { later.append((now + .milliseconds(1), newHost, .signal(.terminate, from: .supervisor))) }
            case .tellHostBefore(let word):
                guard hosts[Self.hostBefore]?.isAlive == true else { break }
                later.append((now + .milliseconds(1), Self.hostBefore, .hostSaid(word)))
            case .answerOperators(let answering):
                hosts[process]?.answersOperators = answering
            case .leaveSocketsInPlace:
                hosts[process]?.leavesSockets = true
            case .exit(let status, let reason):
                hostEnded(process, status: status, reason: reason)
            }
        }
    }

    /// The host before starts the file installed as the new host, as the candidate build lets it.
    private mutating func startNewHost(_ plan: NewHostPlan, by process: ProcessID) {
        if newHost != nil { violate("a second new host is started while one was") }
        guard setup.candidate != .cannotBeStarted else {
            deliver(.newHostFailed(.couldNotStart("Permission denied")), to: process)
            return
        }
        let started = ProcessID(rawValue: 200)
        newHost = started
        deliver(.newHostStarted(started), to: process)
        if setup.candidate == .crashesAtStart {
            hosts[started] = Host(machine: SupervisionMachine(configuration: setup.machine, now: now), process: started, ended: (nil, nil, now))
            later.append((now + .milliseconds(1), process, .newHostFailed(.newHostEnded(.signalled(.segmentationFault)))))
            return
        }
        let (machine, actions) = SupervisionMachine.takingOver(setup.machine, from: process, plan, at: now)
        hosts[started] = Host(machine: machine, process: started)
        perform(actions, of: started)
    }

    /// A host process ended: by its exit (`status`), or killed (`nil`). Its workers end with
    /// it, and the other host hears of it.
    mutating func hostEnded(_ process: ProcessID, status: ExitStatus?, reason: EndReason?) {
        guard hosts[process]?.isAlive == true else { return }
        hosts[process]?.ended = (status, reason, now)
        checkHostEnd(process, status: status, reason: reason)
        for number in workers.keys where workers[number]?.host == process && workers[number]?.life.runs == true {
            if workers[number]?.servedSince != nil, workers[number]?.servedUntil == nil { workers[number]?.servedUntil = now }
            workers[number]?.life = .gone
        }
        queue.removeAll { $0.0 == process }
        if hostCrashAt?.process == process { hostCrashAt = nil }
        later.removeAll { $0.host == process }
        if process == newHost, hosts[Self.hostBefore]?.isAlive == true {
            let termination: Termination = status.map { .exited($0.rawValue) } ?? .signalled(.segmentationFault)
            later.append((now + .milliseconds(1), Self.hostBefore, .newHostFailed(.newHostEnded(termination))))
        } else if process == Self.hostBefore, let newHost, hosts[newHost]?.isAlive == true {
            later.append((now + .milliseconds(1), newHost, .hostBeforeEnded))
        }
    }

    // MARK: Workers

    private mutating func start(_ plan: GenerationPlan, in process: ProcessID) {
        var worker = Worker(host: process, number: plan.number, cause: plan.cause)
        worker.milestoneAt = now + jitter(2...20)
        if workers[plan.number] != nil { violate("generation \(plan.number) is started twice (by host \(process))") }
        workers[plan.number] = worker
        deliver(.started(generation: plan.number, substitutes: [], rewritten: []), to: process)
    }

    /// Whether workers of `process` are of the new host, whose build the candidate is.
    private func isNewHosts(_ worker: Worker) -> Bool { worker.host != Self.hostBefore }

    private mutating func runWorkers() {
        for number in workers.keys.sorted() {
            guard let worker = workers[number] else { continue }
            if case .ended(let heard) = worker.life, heard <= now {
                workers[number]?.life = .gone
                if worker.handsOver { deliver(.handedOver(generation: number, items: ["\(Self.keeper)/count"]), to: worker.host) }
                if let evidence = worker.evidence { deliver(.ended(generation: number, evidence), to: worker.host) }
                continue
            }
            if let crashAt = worker.crashAt, crashAt <= now {
                workers[number]?.crashAt = nil
                // It stopped serving before the fault struck.
                guard worker.life == .serving else { continue }
                // In the new host's own code: nobody is blamed, and it gives up.
                crash(number, phase: .run, blamingKeeper: false)
                continue
            }
            if worker.life == .serving {
                workers[number]?.count += 1
                highestCount = max(highestCount, worker.count + 1)
            }
            guard let at = worker.milestoneAt, at <= now else { continue }
            workers[number]?.milestoneAt = nil
            reachMilestone(number)
        }
    }

    private mutating func reachMilestone(_ number: Int) {
        guard let worker = workers[number] else { return }
        switch worker.life {
        case .loading:
            if stopsAfterItsStep(number) { return }
            if worker.cause.loadsBeside {
                workers[number]?.life = .prepared
                let fails = isNewHosts(worker) && setup.candidate == .pluginFailsToLoad
                deliver(.candidate(generation: number, report(of: number, .loaded, failed: fails), plugins: snapshot(number)), to: worker.host)
            } else {
                workers[number]?.life = .bootstrapping
                scheduleMilestone(of: number, within: 2...20)
            }
        case .bootstrapping:
            if isNewHosts(worker) && setup.candidate == .crashesInBootstrap {
                crash(number, phase: .bootstrap)
                return
            }
            if stopsAfterItsStep(number) { return }
            if worker.cause.loadsBeside {
                workers[number]?.life = .bootstrapped
                deliver(.candidate(generation: number, report(of: number, .bootstrapped, failed: false), plugins: snapshot(number)), to: worker.host)
            } else {
                serve(number)
            }
        case .stopping:
            workers[number]?.handsOver = true
            endIntended(number, status: 0)
        case .prepared, .bootstrapped, .serving, .ended, .gone:
            break
        }
    }

    /// A worker asked to stop during a step stops once the step is done: whether it does.
    private mutating func stopsAfterItsStep(_ number: Int) -> Bool {
        guard workers[number]?.askedToStop == true else { return false }
        workers[number]?.life = .stopping
        scheduleMilestone(of: number, within: 1...10)
        return true
    }

    private mutating func serve(_ number: Int) {
        guard let worker = workers[number] else { return }
        workers[number]?.life = .serving
        workers[number]?.servedSince = now
        checkBeginsToServe(number)
        // A fault on trial strikes halfway through it, the first time the new host serves.
        if isNewHosts(worker), let trial = setup.machine.trial, worker.cause == .hostUpgrade {
            if setup.candidate == .generationCrashesOnTrial { workers[number]?.crashAt = now + trial / 2 }
            if setup.candidate == .hostCrashesOnTrial { hostCrashAt = (worker.host, now + trial / 2) }
        }
        deliver(.ready(generation: number, plugins: snapshot(number)), to: worker.host)
    }

    /// When the candidate build makes the new host's supervisor crash.
    var hostCrashAt: (process: ProcessID, at: MonotonicInstant)?

    mutating func ask(_ number: Int, _ request: WorkerLink.Request) {
        guard let worker = workers[number], worker.life.runs else { return }
        switch request {
        case .stop:
            workers[number]?.askedToStop = true
            switch worker.life {
            case .prepared, .bootstrapped, .serving:
                workers[number]?.life = .stopping
                scheduleMilestone(of: number, within: 1...30)
            case .loading, .bootstrapping, .stopping, .ended, .gone:
                break
            }
        case .verdict(.bootstrapBeside), .verdict(.bootstrapAfter):
            guard worker.life == .prepared else {
                violate("generation \(number) was told to bootstrap while \(worker.life)")
                return
            }
            if request == .verdict(.bootstrapBeside), !setup.beside {
                violate("generation \(number) bootstraps beside the serving one, though Keeper says \"upgrade\": \"after\"")
            }
            if request == .verdict(.bootstrapAfter), !worker.receivedHandOff {
                violate("generation \(number) bootstraps after the one before without its hand-off")
            }
            workers[number]?.life = .bootstrapping
            scheduleMilestone(of: number, within: 2...20)
        case .verdict(.serve):
            guard worker.life == .bootstrapped else {
                violate("generation \(number) was told to serve while \(worker.life)")
                return
            }
            serve(number)
        case .verdict(.abandon):
            endIntended(number, status: 1, failed: isNewHosts(worker) && setup.candidate == .pluginFailsToLoad)
        case .reload, .rescan, .removeGone:
            break
        }
    }

    private mutating func handOver(from: Int?, to: Int, in process: ProcessID) {
        guard let worker = workers[to] else { return }
        if worker.host != process { violate("host \(process) hands over to generation \(to), of another host") }
        if worker.receivedHandOff { violate("generation \(to) was sent a hand-off twice") }
        workers[to]?.receivedHandOff = true
        workers[to]?.count = from.flatMap { hosts[process]?.handOffs[$0] } ?? 0
        checkHandOff(from: from, to: to, in: process)
    }

    private mutating func endIntended(_ number: Int, status: Int32, failed: Bool = false) {
        guard let worker = workers[number] else { return }
        let evidence = EndingEvidence(
            termination: .exited(status), intendedExit: status, workerPhase: phase(of: worker.life),
            failedPlugin: failed ? PluginNumber(0) : nil, plugins: snapshot(number))
        finish(number, evidence)
    }

    /// The generation `number`, serving, crashes in code that names no plugin (the host's
    /// own, or a library's): nobody is blamed, and its host restarts it.
    mutating func crashServing(_ number: Int) { crash(number, phase: .run, blamingKeeper: false) }

    /// Worker `number` crashes in Keeper's code at `running`, or (`blamingKeeper` false) in code that names no plugin.
    private mutating func crash(_ number: Int, phase running: Phase, blamingKeeper: Bool = true) {
        guard let worker = workers[number] else { return }
        let record = blamingKeeper
            ? WorkerRecord(signal: Signal.segmentationFault.rawValue, culprit: PluginNumber(0), evidence: .faultingCode, phase: running, thread: .pluginCode)
            : WorkerRecord(signal: Signal.segmentationFault.rawValue, thread: .notTheHosts)
        let evidence = EndingEvidence(
            termination: .signalled(.segmentationFault), crash: record, running: [RunningCode(plugin: PluginNumber(0), phase: running)],
            workerPhase: phase(of: worker.life), plugins: snapshot(number))
        workers[number]?.handsOver = false
        finish(number, evidence)
    }

    /// Worker `number` ends as `termination` says (the supervisor's SIGKILL, a crash).
    mutating func end(_ number: Int, _ termination: Termination) {
        guard let worker = workers[number], worker.life.runs else { return }
        workers[number]?.handsOver = false
        finish(number, EndingEvidence(termination: termination, workerPhase: phase(of: worker.life), plugins: snapshot(number)))
    }

    private mutating func finish(_ number: Int, _ evidence: EndingEvidence) {
        guard workers[number]?.life.runs == true else { return }
        if workers[number]?.life == .serving || workers[number]?.life == .stopping, workers[number]?.servedSince != nil { workers[number]?.servedUntil = now }
        if workers[number]?.handsOver == true, let count = workers[number]?.count, let host = workers[number]?.host {
            hosts[host]?.handOffs[number] = count
            handedOver[number] = count
        }
        workers[number]?.evidence = evidence
        workers[number]?.life = .ended(heardAt: now + .milliseconds(1))
        workers[number]?.milestoneAt = nil
        workers[number]?.crashAt = nil
    }

    private func phase(of life: Worker.Life) -> WorkerPhase {
        switch life {
        case .loading: .loading
        case .prepared: .prepared
        case .bootstrapping: .bootstrapping
        case .bootstrapped: .bootstrapped
        case .serving: .running
        case .stopping, .ended, .gone: .stopping
        }
    }

    private func report(of number: Int, _ stage: CandidateReport.Stage, failed: Bool) -> CandidateReport {
        let keeper = CandidateReport.Plugin(name: Self.keeper, number: PluginNumber(0), upgrade: setup.beside ? .beside : .after)
        return CandidateReport(stage: stage, running: failed ? [] : [keeper], failed: failed ? [keeper] : [], unusableFiles: [])
    }

    func snapshot(_ number: Int) -> [PublishedPlugin] {
        let running = workers[number]?.life == .serving
        return [PublishedPlugin(
            name: Self.keeper, file: "plugins/libKeeper.so", version: "1.0.0",
            identity: FileIdentity(device: 1, inode: 7, size: 4096, modificationNanoseconds: 1, changeNanoseconds: 1),
            state: running ? .running : .published, providesService: running)]
    }

    private mutating func scheduleMilestone(of number: Int, within range: ClosedRange<Int>) {
        let at = now + jitter(range)
        workers[number]?.milestoneAt = at
    }

    mutating func jitter(_ range: ClosedRange<Int>) -> Duration {
        .milliseconds(Int.random(in: range, using: &random))
    }

    mutating func violate(_ rule: String) {
        violations.append("at \(now): \(rule)")
    }
}
