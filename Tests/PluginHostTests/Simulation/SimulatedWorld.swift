#if !STANDALONE_SIMULATOR
@testable import PluginHost
#endif

/// The world a supervisor lives in, simulated: plugin files on a disk, worker processes
/// that load, bootstrap, serve and stop on their own schedule, daemons they start, and a
/// clock. It drives the very ``SupervisionMachine`` the supervisor runs, as the supervisor's
/// driver does: it turns what its workers do into events, performs the machine's actions
/// (forks, kills, requests, held files), and checks the invariants after every step.
struct SimulatedWorld {
    /// A plugin of the simulated directory.
    struct Plugin {
        let name: String
        let requires: [String]
        let providesService: Bool
        var file: String { "plugins/lib\(name).so" }
    }

    /// The demo as a service: a store, a domain on it, an echo service, a ticker on the domain.
    static let plugins = [
        Plugin(name: "Persistence", requires: [], providesService: false),
        Plugin(name: "Domain", requires: ["Persistence"], providesService: false),
        Plugin(name: "Echo", requires: [], providesService: true),
        Plugin(name: "Ticker", requires: ["Domain"], providesService: true),
    ]

    /// A file's contents and what its build does.
    struct Inode {
        var identity: FileIdentity
        var build: FaultOperation.Build
    }

    /// A plugin as a simulated worker published it.
    struct Published {
        let plugin: Int
        let inode: UInt64
        /// The file's identity when the worker read it.
        let identity: FileIdentity
        var state: SupervisionPage.PluginState = .published
        var loaded = false
    }

    /// Where a simulated worker stands.
    enum Stage: Equatable {
        case loading, prepared, bootstrapping, serving, stopping, gone
    }

    /// A worker process of the simulation.
    struct Worker {
        /// Whether it makes no progress by itself: stopped by a signal, or hung in a plugin
        /// call, except while it stops on its own, where each hook has a deadline the worker
        /// itself keeps (a hook that overruns it is skipped).
        var isStuck: Bool { suspended || (hung && phase != .stopping) }

        let number: Int
        let cause: GenerationPlan.Cause
        var phase = Stage.loading
        var published: [Published] = []
        var runningBefore: [String: String] = [:]
        var hung = false
        var suspended = false
        var stopRequested = false
        var pendingRequests: [WorkerLink.Request] = []
        /// When it reaches its next milestone (loaded, bootstrapped, stopped).
        var milestoneAt: MonotonicInstant?
        var daemons: [Int: Bool] = [:]
        var askedUpgrades: Set<FileIdentity> = []
        var failedPlugin: PluginNumber?
        /// Set once it ended; its end is delivered at ``endsAt``.
        var ending: (termination: Termination, evidence: EndingEvidence)?
        var endsAt: MonotonicInstant?
        /// When its current step began, for a step that hangs.
        var stepStarted: MonotonicInstant
        var overrunAt: MonotonicInstant?
        var health: Bool = true
        /// Whether it said it was ready since it last started.
        var saidReady = false

        var isAlive: Bool { phase != .gone }
    }

    /// What the simulation is set up with.
    struct Setup {
        var machine = SupervisionMachine.Configuration()
        /// `--timeout`: how long a load or bootstrap may take.
        var loadTimeout: Duration = .seconds(30)
    }

    let setup: Setup
    private(set) var machine: SupervisionMachine
    private(set) var now: MonotonicInstant
    private var random: SplitMix64
    private(set) var inodes: [UInt64: Inode] = [:]
    /// The inode at each plugin's file; `nil` when removed.
    private(set) var paths: [UInt64?]
    private var nextInode: UInt64 = 100
    private var nextStamp: Int64 = 1_000
    private(set) var workers: [Int: Worker] = [:]
    /// The builds the driver holds open, and the file each is.
    private var held: [(build: PublishedPlugin, inode: UInt64)] = []
    private var refuseFork = false
    /// The operators' clients still connected, by number: what each asked, and whether it
    /// has its whole answer.
    private var clients: [Int: (request: FaultOperation.Request, answered: Bool)] = [:]
    private var nextClient = 0
    /// The exit status the host answered a `stop` with, if it did.
    private var stoppedAnswer: ExitStatus?
    /// When an operator last asked for a restart.
    private var restartAskedAt: MonotonicInstant?
    private var nextDaemon = 10_000
    /// How the host ended, when it has.
    private(set) var exit: (status: ExitStatus, reason: EndReason, at: MonotonicInstant)?
    /// What the invariants found wrong, in order.
    private(set) var violations: [String] = []
    /// Events handled so far.
    private(set) var eventCount = 0
    /// Every event and action, when asked for, to print a failing run.
    private(set) var trace: [String] = []
    /// The changes of the host's state seen: from, the kind of event, to.
    private(set) var transitions: Set<Transition> = []
    private let tracing: Bool

    // What the invariants remember.
    private var firstStopAt: MonotonicInstant?
    private var restartStarts: [MonotonicInstant] = []
    private var lastFailureAt: MonotonicInstant?
    private var restartsInARow = 0

    init(setup: Setup, seed: UInt64, tracing: Bool = false) {
        self.setup = setup
        self.tracing = tracing
        random = SplitMix64(seed: seed)
        now = MonotonicInstant(nanoseconds: 1_000_000_000_000)
        paths = Array(repeating: nil, count: Self.plugins.count)
        let (machine, actions) = SupervisionMachine.starting(setup.machine, at: now)
        self.machine = machine
        for plugin in Self.plugins.indices { paths[plugin] = newInode(.good) }
        perform(actions, after: "start")
    }

    // MARK: Operations

    /// Applies `operation` at the current time.
    mutating func apply(_ operation: FaultOperation) {
        guard exit == nil else { return }
        if tracing { trace.append("op \(operation)") }
        switch operation {
        case .advance(let milliseconds):
            advance(to: now + .milliseconds(milliseconds))
        case .advanceToNextDeadline:
            let next = [machine.nextDeadline, nextWorldEvent].compactMap { $0 }.min()
            advance(to: (next ?? now) + .milliseconds(1))
        case .signal(let signal, let viaWorker):
            if viaWorker, let current = machine.currentGeneration, workers[current]?.isAlive == true {
                deliver(.signal(signal, from: .worker(generation: current)))
            } else {
                deliver(.signal(signal, from: .supervisor))
            }
        case .kill(let target, let death):
            guard let number = worker(target) else { return }
            die(number, death)
        case .crash(let target, let plugin):
            guard let number = worker(target), let running = workers[number]?.published else { return }
            let culprit = running.firstIndex { $0.plugin == plugin && $0.loaded } ?? running.firstIndex(where: \.loaded)
            end(number, .signalled(.segmentationFault), crash: WorkerRecord(
                signal: Signal.segmentationFault.rawValue, culprit: culprit.map(PluginNumber.init), evidence: .faultingCode, phase: .run,
                thread: .pluginCode))
        case .environmentBreaks(let plugin, let build):
            guard let current = machine.currentGeneration, let published = workers[current]?.published.first(where: { $0.plugin == plugin })
            else { return }
            inodes[published.inode]?.build = build
        case .hang(let target):
            guard let number = worker(target) else { return }
            workers[number]?.hung = true
            // A step under way runs past its limit.
            if let worker = workers[number], [.loading, .bootstrapping].contains(worker.phase) {
                workers[number]?.overrunAt = worker.stepStarted + setup.loadTimeout
                workers[number]?.milestoneAt = nil
            }
        case .suspend(let target):
            guard let number = worker(target), workers[number]?.suspended == false else { return }
            workers[number]?.suspended = true
            deliver(.suspended(generation: number, process: ProcessID(rawValue: Int32(number)), by: .stop, running: []))
        case .resume(let target):
            guard let number = worker(target), workers[number]?.suspended == true else { return }
            resume(number)
        case .health(let target, let good):
            guard let number = worker(target) else { return }
            workers[number]?.health = good
            deliver(.health(generation: number, goodUntil: good ? now + .seconds(3600) : nil))
        case .daemonize(let target):
            guard let number = worker(target) else { return }
            nextDaemon += 1
            workers[number]?.daemons[nextDaemon] = true
        case .replace(let plugin, let build):
            if let old = paths[plugin] { touchChangeTime(old) }
            paths[plugin] = newInode(build)
            deliver(.directoryChanged)
        case .rewriteInPlace(let plugin, let build):
            guard let inode = paths[plugin] else { return }
            nextStamp += 1
            inodes[inode]?.identity = FileIdentity(
                device: 1, inode: inode, size: 5_000 + nextStamp, modificationNanoseconds: nextStamp, changeNanoseconds: nextStamp)
            inodes[inode]?.build = build
            deliver(.directoryChanged)
            // Code mapped from it changes under every worker that loaded it: each crashes
            // soon, in whatever code runs.
            for (number, worker) in workers.sorted(by: { $0.key < $1.key })
            where worker.isAlive && worker.ending == nil && worker.published.contains(where: { $0.inode == inode && $0.loaded }) {
                die(number, .crashNamingPlugin)
            }
        case .remove(let plugin):
            guard let old = paths[plugin] else { return }
            touchChangeTime(old)
            paths[plugin] = nil
            deliver(.directoryChanged)
        case .refuseNextFork:
            refuseFork = true
        case .ask(let request):
            nextClient += 1
            clients[nextClient] = (request, false)
            let asked: ControlRequest = switch request {
            case .status: .status
            case .follow: .follow
            case .reload: .reload
            case .restart: .restart([])
            case .restartLeftOut: .restart(machine.status.plugins.filter { $0.state == .leftOut }.map(\.name))
            case .restartBrokenOnDisk: .restart([], brokenOnDisk: ["plugin P1 requires P0 ^1.0.0, but P0 2.0.0 is installed"])
            case .stop: .stop
            }
            deliver(.control(client: nextClient, asked))
        case .clientLeaves:
            guard let client = clients.keys.min() else { return }
            clients[client] = nil
            deliver(.clientLeft(client: client))
        }
    }

    /// Checks an answer to client `id`: to one still connected, once, of the kind its
    /// request asks for.
    private mutating func receive(_ answer: ControlAnswer, by id: Int) {
        guard let client = clients[id] else {
            violate("the host answered client \(id), which had left or had its whole answer: \(answer)")
            return
        }
        let fits = switch (client.request, answer) {
        case (_, .refused): client.request != .status && client.request != .follow
        case (.status, .status), (.follow, .change), (.reload, .reload), (.restart, .restart), (.restartLeftOut, .restart), (.restartBrokenOnDisk, .restart),
             (.stop, .stopped): true
        default: false
        }
        if !fits { violate("client \(id) asked \(client.request) and was answered \(answer)") }
        if case .stopped(let status) = answer { stoppedAnswer = status }
        // A whole answer is written, then the connection closed.
        if answer.isFinal { clients[id] = nil }
    }

    /// Ends the run as an operator would: SIGTERM, then time enough for the host to end by
    /// its deadline. A host that does not end by then breaks an invariant.
    mutating func stopAndSettle() {
        if exit == nil, firstStopAt == nil { deliver(.signal(.terminate, from: .supervisor)) }
        let stopped = firstStopAt ?? now
        let allowed = (setup.machine.stopLimit ?? .seconds(3600)) + OverrunPolicy.grace + setup.machine.reapGrace + .milliseconds(50)
        advance(to: stopped + allowed)
        if exit == nil { violate("the host did not end within \(TextFormat.seconds(allowed)) of the stop request") }
    }

    /// Lets time pass with nothing going wrong: the host must come to serve, or end.
    mutating func settleWithoutFaults() {
        guard exit == nil else { return }
        // The faults are over: what a signal stopped is resumed.
        for number in workers.keys.sorted() where workers[number]?.suspended == true && workers[number]?.ending == nil { resume(number) }
        advance(to: now + .seconds(120))
        guard exit == nil else { return }
        switch machine.state {
        case .serving, .finished: break
        default: violate("with no fault for 120 s the host is neither serving nor ended: \(machine.state)")
        }
        for (id, client) in clients.sorted(by: { $0.key < $1.key }) where client.request != .follow {
            violate("with no fault for 120 s, client \(id) still waits for the answer to its \(client.request)")
        }
    }

    // MARK: Time

    /// The next instant a worker does something by itself.
    private var nextWorldEvent: MonotonicInstant? {
        workers.values.flatMap { worker in
            // A worker that ended only has its end to be seen; one stopped only its deadline.
            worker.ending != nil ? [worker.endsAt] : [worker.isStuck ? nil : worker.milestoneAt, worker.overrunAt]
        }.compactMap { $0 }.min()
    }

    /// Lets time pass to `target`: workers reach their milestones, deadlines fall due.
    private mutating func advance(to target: MonotonicInstant) {
        var guardCount = 0
        while exit == nil {
            guardCount += 1
            if guardCount > 10_000 {
                violate("time does not move on: events keep falling due at \(now) (the machine's next deadline: "
                    + "\(machine.nextDeadline.map(\.description) ?? "none"), the workers': \(nextWorldEvent.map(\.description) ?? "none"); "
                    + "state \(machine.state))")
                return
            }
            let next = [machine.nextDeadline, nextWorldEvent].compactMap { $0 }.filter { $0 <= target }.min()
            guard let next else { break }
            now = max(now, next)
            runWorkers()
            deliver(.tick)
        }
        now = max(now, target)
        if exit == nil { deliver(.tick) }
    }

    /// Every worker reaches what is due.
    private mutating func runWorkers() {
        for number in workers.keys.sorted() {
            guard exit == nil, let worker = workers[number] else { continue }
            if let endsAt = worker.endsAt, endsAt <= now, let ending = worker.ending {
                workers[number]?.endsAt = nil
                workers[number]?.phase = .gone
                deliver(.ended(generation: number, ending.evidence))
                continue
            }
            if let overrunAt = worker.overrunAt, overrunAt <= now, worker.ending == nil {
                workers[number]?.overrunAt = nil
                let loading = worker.published.firstIndex { !$0.loaded } ?? 0
                deliver(.overran(generation: number, Overrun(
                    owner: PluginNumber(loading), phase: worker.phase == .loading ? .load : .bootstrap, policy: .endHost,
                    allowed: setup.loadTimeout, stall: nil)))
                continue
            }
            if let at = worker.milestoneAt, at <= now, !worker.isStuck, worker.ending == nil {
                workers[number]?.milestoneAt = nil
                reachMilestone(number)
            }
        }
    }

    // MARK: Workers

    private mutating func start(_ plan: GenerationPlan) {
        if refuseFork {
            refuseFork = false
            deliver(.couldNotStart(generation: plan.number, reason: "fork the worker process: Resource temporarily unavailable (errno: 11)"))
            return
        }
        var selection = plan.builds
        selection.substitutes = selection.substitutes.compactMap(locate)
        var worker = Worker(number: plan.number, cause: plan.cause, runningBefore: plan.runningBefore, stepStarted: now)
        var leftOut: Set<String> = []
        var chosen: [(plugin: Int, inode: UInt64)] = []
        for (plugin, inode) in paths.enumerated() {
            guard let inode, let file = inodes[inode] else { continue }
            let name = Self.plugins[plugin].name
            if file.build == .junk {
                // Not a plugin: a host that does not watch refuses the directory at start; any
                // other reports it as not added; an upgrade cannot run a plugin that runs now.
                if (plan.cause == .start && !setup.machine.watching) || (plan.cause == .upgrade && plan.runningBefore[name] != nil) {
                    worker.phase = .loading
                    workers[plan.number] = worker
                    endIntended(plan.number, status: 1)
                    return
                }
                leftOut.insert(name)
                continue
            }
            if selection.excludes(name, file.identity) {
                if let substitute = selection.substitute(for: name), let heldInode = UInt64(substitute.path.dropFirst(5)) {
                    chosen.append((plugin, heldInode))
                } else {
                    leftOut.insert(name)
                }
            } else {
                chosen.append((plugin, inode))
            }
        }
        let dependents = Dependents.leaving(with: leftOut, among: chosen, name: { Self.plugins[$0.plugin].name }, requires: { Self.plugins[$0.plugin].requires })
        let gone = leftOut.union(dependents.map { Self.plugins[$0.plugin.plugin].name })
        for (plugin, inode) in chosen where !gone.contains(Self.plugins[plugin].name) {
            guard let identity = inodes[inode]?.identity else { continue }
            // Invariant: no generation starts with a build that is left out.
            if machine.quarantine.contains(where: { $0.name == Self.plugins[plugin].name && $0.identity.hasSameContents(as: identity) }) {
                violate("generation \(plan.number) loads \(Self.plugins[plugin].name) (inode \(inode)), a build that is left out")
            }
            worker.published.append(Published(plugin: plugin, inode: inode, identity: identity))
        }
        worker.milestoneAt = now + jitter(milliseconds: 2...20)
        workers[plan.number] = worker
        if plan.cause == .restart || plan.cause == .restore { checkRestart() }
    }

    /// The driver's `HeldBuilds.locate`: the substitute with the path of its held file,
    /// when that file still has its contents.
    private func locate(_ substitute: BuildSelection.Substitute) -> BuildSelection.Substitute? {
        guard let entry = held.first(where: { $0.build.name == substitute.name && $0.build.identity?.hasSameContents(as: substitute.identity) == true }),
            let now = inodes[entry.inode]?.identity, now.hasSameContents(as: substitute.identity)
        else { return nil }
        var located = substitute
        located.path = "held:\(entry.inode)"
        return located
    }

    private mutating func reachMilestone(_ number: Int) {
        guard var worker = workers[number] else { return }
        switch worker.phase {
        case .loading:
            for index in worker.published.indices {
                let build = inodes[worker.published[index].inode]?.build ?? .good
                if build == .hangsInLoad {
                    worker.hung = true
                    worker.overrunAt = worker.stepStarted + setup.loadTimeout
                    workers[number] = worker
                    return
                }
                if build == .failsToLoad {
                    let name = Self.plugins[worker.published[index].plugin].name
                    switch worker.cause {
                    case .restart, .restore:
                        continue
                    case .start, .upgrade:
                        if worker.cause == .upgrade && worker.runningBefore[name] == nil { continue }
                        worker.failedPlugin = PluginNumber(index)
                        workers[number] = worker
                        endIntended(number, status: 1)
                        return
                    }
                }
                worker.published[index].loaded = true
            }
            if worker.stopRequested {
                worker.phase = .stopping
                worker.milestoneAt = now + jitter(milliseconds: 1...10)
                workers[number] = worker
                return
            }
            if worker.cause == .upgrade {
                worker.phase = .prepared
                workers[number] = worker
                deliver(.prepared(generation: number))
                return
            }
            worker.phase = .bootstrapping
            worker.stepStarted = now
            worker.milestoneAt = now + jitter(milliseconds: 2...20)
            workers[number] = worker
        case .bootstrapping:
            for index in worker.published.indices where worker.published[index].loaded {
                let name = Self.plugins[worker.published[index].plugin].name
                let requiresFailed = Self.plugins[worker.published[index].plugin].requires.contains { required in
                    !worker.published.contains { Self.plugins[$0.plugin].name == required && $0.state == .running }
                }
                if requiresFailed { continue }
                switch inodes[worker.published[index].inode]?.build ?? .good {
                case .crashesInBootstrap:
                    workers[number] = worker
                    let record = WorkerRecord(signal: Signal.segmentationFault.rawValue, culprit: PluginNumber(index), evidence: .faultingCode, phase: .bootstrap, thread: .pluginCode)
                    end(number, .signalled(.segmentationFault), crash: record, running: [RunningCode(plugin: PluginNumber(index), phase: .bootstrap)])
                    return
                case .throwsInBootstrap:
                    if worker.cause == .restart || worker.cause == .restore { continue }
                    worker.failedPlugin = PluginNumber(index)
                    workers[number] = worker
                    endIntended(number, status: 1)
                    return
                case .good, .failsToLoad, .hangsInLoad, .junk:
                    worker.published[index].state = .running
                }
                _ = name
            }
            workers[number] = worker
            if worker.stopRequested {
                workers[number]?.phase = .stopping
                scheduleMilestone(of: number, within: 1...10)
                return
            }
            workers[number]?.phase = .serving
            workers[number]?.saidReady = true
            deliver(.ready(generation: number, status: status(of: number), plugins: snapshot(number)))
            serveOrEnd(number)
        case .stopping:
            endIntended(number, status: 0)
        case .prepared, .serving, .gone:
            break
        }
    }

    /// A worker with no service to run, on a host that does not watch, ends by itself.
    private mutating func serveOrEnd(_ number: Int) {
        guard let worker = workers[number], worker.phase == .serving, !setup.machine.watching else { return }
        let services = worker.published.contains { $0.state == .running && Self.plugins[$0.plugin].providesService }
        if !services {
            workers[number]?.phase = .stopping
            scheduleMilestone(of: number, within: 1...5)
        }
    }

    private mutating func ask(_ number: Int, _ request: WorkerLink.Request) {
        guard let worker = workers[number], worker.isAlive, worker.ending == nil else { return }
        if case .stop = request, worker.suspended { resume(number) }
        guard let worker = workers[number], !worker.suspended else {
            workers[number]?.pendingRequests.append(request)
            return
        }
        // What hangs is a plugin call: a reload with no plugin to call completes.
        if worker.hung, request != .reload || worker.published.contains(where: { $0.loaded && $0.state == .running }) {
            // What hangs is the next plugin call: told to bootstrap, the worker's bootstrap
            // never returns and runs past its limit; anything else it never gets to.
            if request == .proceed, worker.phase == .prepared {
                workers[number]?.phase = .bootstrapping
                workers[number]?.stepStarted = now
                workers[number]?.overrunAt = now + setup.loadTimeout
            }
            // A reload's hooks are plugin calls with a deadline: the first runs past it.
            if request == .reload, worker.phase == .serving, worker.overrunAt == nil {
                workers[number]?.overrunAt = now + setup.loadTimeout
            }
            return
        }
        switch request {
        case .stop:
            switch worker.phase {
            case .loading, .bootstrapping:
                workers[number]?.stopRequested = true
            case .prepared, .serving:
                workers[number]?.phase = .stopping
                scheduleMilestone(of: number, within: 1...30)
            case .stopping, .gone:
                break
            }
        case .proceed:
            guard worker.phase == .prepared else { break }
            workers[number]?.phase = .bootstrapping
            workers[number]?.stepStarted = now
            scheduleMilestone(of: number, within: 2...20)
        case .reload:
            guard worker.phase == .serving else { break }
            deliver(.notification(generation: number, .reloading(monotonicMicroseconds: now.nanoseconds / 1000)))
            deliver(.news(generation: number, .reload(applied: true, reasons: [])))
            rescan(number)
            if workers[number]?.phase == .serving { deliver(.ready(generation: number, status: status(of: number), plugins: snapshot(number))) }
        case .rescan:
            guard worker.phase == .serving else { break }
            rescan(number)
        }
    }

    /// The worker compares the directory with what it runs: a running plugin's file that
    /// changed asks for an upgrade; new files are added, removed ones removed.
    private mutating func rescan(_ number: Int) {
        guard var worker = workers[number] else { return }
        for published in worker.published where published.state == .running {
            // A running plugin's file turned into junk: the worker keeps the build it loaded.
            guard let inode = paths[published.plugin], let file = inodes[inode], file.build != .junk else { continue }
            let identity = file.identity
            if identity != published.identity, !worker.askedUpgrades.contains(identity) {
                worker.askedUpgrades.insert(identity)
                workers[number] = worker
                deliver(.upgradeRequested(generation: number, plugins: snapshot(number)))
                return
            }
        }
        for index in worker.published.indices where worker.published[index].state == .running && paths[worker.published[index].plugin] == nil {
            worker.published[index].state = .removed
        }
        let present = Set(worker.published.filter { $0.state == .running }.map(\.plugin))
        for (plugin, inode) in paths.enumerated() {
            guard let inode, let file = inodes[inode], file.build != .junk, !present.contains(plugin),
                !worker.published.contains(where: { $0.plugin == plugin && $0.inode == inode }),
                Self.plugins[plugin].requires.allSatisfy({ required in worker.published.contains { Self.plugins[$0.plugin].name == required && $0.state == .running } })
            else { continue }
            if machine.quarantine.contains(where: { $0.name == Self.plugins[plugin].name && $0.identity.hasSameContents(as: file.identity) }) { continue }
            worker.published.append(Published(plugin: plugin, inode: inode, identity: file.identity, state: .published, loaded: true))
            switch file.build {
            case .crashesInBootstrap:
                workers[number] = worker
                let culprit = PluginNumber(worker.published.count - 1)
                end(number, .signalled(.segmentationFault),
                    crash: WorkerRecord(signal: Signal.segmentationFault.rawValue, culprit: culprit, evidence: .faultingCode, phase: .bootstrap, thread: .pluginCode),
                    running: [RunningCode(plugin: culprit, phase: .bootstrap)])
                return
            case .good:
                worker.published[worker.published.count - 1].state = .running
            case .failsToLoad, .hangsInLoad, .throwsInBootstrap, .junk:
                break
            }
        }
        workers[number] = worker
        deliver(.notification(generation: number, .status(status(of: number))))
    }

    private mutating func resume(_ number: Int) {
        workers[number]?.suspended = false
        deliver(.resumed(generation: number, process: ProcessID(rawValue: Int32(number))))
        let pending = workers[number]?.pendingRequests ?? []
        workers[number]?.pendingRequests = []
        if workers[number]?.milestoneAt == nil, let phase = workers[number]?.phase, [.loading, .bootstrapping, .stopping].contains(phase),
            workers[number]?.hung == false {
            workers[number]?.milestoneAt = now + .milliseconds(1)
        }
        for request in pending { ask(number, request) }
    }

    /// A worker dies as `death` says.
    private mutating func die(_ number: Int, _ death: FaultOperation.Death) {
        guard let worker = workers[number], worker.ending == nil, worker.phase != .gone else { return }
        let services = worker.published.indices.filter {
            worker.published[$0].state == .running && Self.plugins[worker.published[$0].plugin].providesService
        }.map { RunningCode(plugin: PluginNumber($0), phase: .run) }
        let any = worker.published.indices.randomElement(using: &random).map(PluginNumber.init)
        switch death {
        case .crashNamingPlugin:
            end(number, .signalled(.segmentationFault), crash: WorkerRecord(
                signal: Signal.segmentationFault.rawValue, culprit: any, evidence: .faultingCode, phase: .run, thread: .pluginCode),
                running: services)
        case .crashNamingNobody:
            end(number, .signalled(.segmentationFault), crash: WorkerRecord(signal: Signal.segmentationFault.rawValue, thread: .notTheHosts), running: services)
        case .exitCall:
            end(number, .exited(70), exitCall: WorkerRecord(status: 0, culprit: any, evidence: .stack, phase: .run, thread: .pluginCode), running: services)
        case .underscoreExit:
            end(number, .exited(0), running: services)
        case .killedWhileIdle:
            end(number, .signalled(.kill), running: services)
        case .killedInShortCall:
            end(number, .signalled(.kill), running: services + (any.map { [RunningCode(plugin: $0, phase: .health)] } ?? []))
        }
    }

    private mutating func endIntended(_ number: Int, status: Int32) {
        end(number, .exited(status), intended: status)
    }

    /// The worker ends now; the supervisor sees it a moment later.
    private mutating func end(
        _ number: Int, _ termination: Termination, intended: Int32? = nil, crash: WorkerRecord? = nil, exitCall: WorkerRecord? = nil,
        running: [RunningCode] = []
    ) {
        guard let worker = workers[number], worker.ending == nil else { return }
        let rewritten = worker.published.indices.filter { index in
            let published = worker.published[index]
            guard published.loaded, let inode = paths[published.plugin], inode == published.inode,
                let now = inodes[inode]?.identity else { return false }
            return !now.hasSameContents(as: published.identity)
        }.map(PluginNumber.init)
        let phase: WorkerPhase = switch worker.phase {
        case .loading: .loading
        case .prepared: .prepared
        case .bootstrapping: .bootstrapping
        case .serving: .running
        case .stopping, .gone: .stopping
        }
        let evidence = EndingEvidence(
            termination: termination, intendedExit: intended, crash: crash, exitCall: exitCall, running: running, workerPhase: phase,
            failedPlugin: worker.failedPlugin, plugins: snapshot(number), rewrittenInPlace: rewritten, stall: nil)
        workers[number]?.ending = (termination, evidence)
        workers[number]?.endsAt = now + .milliseconds(1)
        workers[number]?.milestoneAt = nil
        workers[number]?.overrunAt = nil
    }

    private func snapshot(_ number: Int) -> [PublishedPlugin] {
        guard let worker = workers[number] else { return [] }
        return worker.published.map { published in
            let plugin = Self.plugins[published.plugin]
            return PublishedPlugin(
                name: plugin.name, file: plugin.file, version: "1.0.\(published.identity.modificationNanoseconds)",
                identity: published.identity, requires: plugin.requires, state: published.state,
                providesService: plugin.providesService && published.state == .running)
        }
    }

    private func status(of number: Int) -> String {
        "\(workers[number]?.published.filter { $0.state == .running }.count ?? 0) plugins running"
    }

    /// The worker an operation hits.
    private func worker(_ target: FaultOperation.Target) -> Int? {
        let alive = workers.values.filter { $0.isAlive && $0.ending == nil }.map(\.number).sorted()
        switch target {
        case .current: return machine.currentGeneration.flatMap { alive.contains($0) ? $0 : nil } ?? alive.last
        case .newest: return alive.last
        case .oldest: return alive.first
        }
    }

    // MARK: Files

    private mutating func newInode(_ build: FaultOperation.Build) -> UInt64 {
        nextInode += 1
        nextStamp += 1
        inodes[nextInode] = Inode(
            identity: FileIdentity(device: 1, inode: nextInode, size: 5_000 + nextStamp, modificationNanoseconds: nextStamp, changeNanoseconds: nextStamp),
            build: build)
        return nextInode
    }

    /// A name of the file was replaced or removed: its change time moves, not its contents.
    private mutating func touchChangeTime(_ inode: UInt64) {
        nextStamp += 1
        guard let identity = inodes[inode]?.identity else { return }
        inodes[inode]?.identity = FileIdentity(
            device: identity.device, inode: identity.inode, size: identity.size, modificationNanoseconds: identity.modificationNanoseconds,
            changeNanoseconds: nextStamp)
    }

    /// The worker reaches its next milestone after a moment within `range` milliseconds.
    private mutating func scheduleMilestone(of number: Int, within range: ClosedRange<Int>) {
        let at = now + jitter(milliseconds: range)
        workers[number]?.milestoneAt = at
    }

    private mutating func jitter(milliseconds range: ClosedRange<Int>) -> Duration {
        .milliseconds(Int.random(in: range, using: &random))
    }

    // MARK: The machine

    /// Hands `event` to the machine now, performs what it decides, and checks the invariants.
    private mutating func deliver(_ event: SupervisionEvent) {
        guard exit == nil else { return }
        eventCount += 1
        let traced = trace.count
        if tracing { trace.append("  event \(describe(event))") }
        if case .signal(let signal, _) = event, signal.asksToStop, firstStopAt == nil { firstStopAt = now }
        if case .control(_, .stop) = event, firstStopAt == nil { firstStopAt = now }
        // An operator's restart starts at once: it cuts a backoff short.
        if case .control(_, .restart) = event { restartAskedAt = now }
        let restartsBefore = machine.restarts.count
        let stateBefore = machine.state.name
        let stateBeforeEvent = machine.state
        let actions = machine.handle(event, at: now)
        if machine.state.name != stateBefore { transitions.insert(Transition(from: stateBefore, event: event.kind, to: machine.state.name)) }
        if case .ended(let number, _) = event, machine.restarts.count > restartsBefore {
            // A restart was decided: how many in a row, as the world saw the generations serve.
            if let readyAt = readyTimes[number], now - readyAt >= setup.machine.restart.maximumDelay { restartsInARow = 0 }
            restartsInARow += 1
            lastFailureAt = now
        }
        // A restart while a generation serves whose files would break a running plugin is
        // refused at once, and disturbs nothing.
        if case .control(let client, .restart(_, let broken)) = event, !broken.isEmpty, case .serving = stateBeforeEvent {
            if actions.contains(where: { if case .start = $0 { true } else { false } }) {
                violate("a restart whose files on disk break a running plugin started a generation while one served")
            }
            if !actions.contains(where: { if case .answer(client, .refused) = $0 { true } else { false } }) {
                violate("a restart whose files on disk break a running plugin was not refused at once")
            }
        }
        perform(actions, after: describe(event))
        // A tick that did nothing but ping the watchdog says nothing.
        if tracing, case .tick = event, actions.allSatisfy({ $0 == .pingWatchdog }), trace.count <= traced + 1 + actions.count {
            trace.removeSubrange(traced...)
        }
        checkInvariants(after: event)
    }

    private var readyTimes: [Int: MonotonicInstant] = [:]

    private mutating func perform(_ actions: [SupervisionAction], after cause: String) {
        for action in actions {
            guard exit == nil else { return }
            if tracing { trace.append("    action \(describe(action))") }
            switch action {
            case .start(let plan):
                start(plan)
            case .ask(let generation, let request):
                ask(generation, request)
            case .kill(let generation, _):
                if let worker = workers[generation], worker.ending == nil, worker.phase != .gone {
                    end(generation, .signalled(.kill), running: [])
                }
            case .endProcesses(let generation):
                for daemon in workers[generation]?.daemons.keys.sorted() ?? [] { workers[generation]?.daemons[daemon] = false }
            case .say:
                break
            case .notify(let notification):
                if case .ready = notification { checkReady() }
            case .pingWatchdog:
                break
            case .hold(let builds):
                hold(builds)
            case .answer(let client, let answer):
                receive(answer, by: client)
            case .exit(let status, let reason):
                exit = (status, reason, now)
                checkExit(status, reason)
                for number in workers.keys {
                    workers[number]?.phase = .gone
                    for daemon in workers[number]?.daemons.keys.sorted() ?? [] { workers[number]?.daemons[daemon] = false }
                }
            }
        }
    }

    private mutating func hold(_ builds: [PublishedPlugin]) {
        var next: [(build: PublishedPlugin, inode: UInt64)] = []
        for build in builds {
            guard let identity = build.identity else { continue }
            if let kept = held.first(where: { $0.build.isSameBuild(as: build) }) {
                next.append(kept)
            } else if let plugin = Self.plugins.firstIndex(where: { $0.name == build.name }), let inode = paths[plugin],
                inodes[inode]?.identity.hasSameContents(as: identity) == true {
                next.append((build, inode))
            }
        }
        held = next
    }

    // MARK: Invariants

    private mutating func violate(_ text: String) {
        violations.append(text)
    }

    private mutating func checkInvariants(after event: SupervisionEvent) {
        // Every generation the machine knows alive has a worker, and every worker alive is
        // known: none is forgotten, so none is left running.
        let machineLive = Set(machine.liveGenerations.map(\.number))
        let worldLive = Set(workers.values.filter(\.isAlive).map(\.number))
        if exit == nil, machineLive != worldLive {
            violate("the machine knows generations \(machineLive.sorted()) alive, the world has workers \(worldLive.sorted()) (after \(describe(event)))")
        }
        // No process of an ended generation is left.
        for worker in workers.values where !worker.isAlive && worker.endsAt == nil && worker.ending != nil {
            if worker.daemons.values.contains(true) {
                violate("generation \(worker.number) ended, and a process it started still runs (after \(describe(event)))")
            }
        }
        // At most a serving generation and a candidate run at once, besides those being killed.
        let alive = machine.liveGenerations.filter(\.isAlive)
        if alive.count > 2 { violate("\(alive.count) generations run at once: \(alive.map(\.number))") }
        // What the host says serves is a worker that lives and said it was ready.
        if case .serving(let number) = machine.state {
            if let worker = workers[number], !worker.isAlive || !worker.saidReady {
                violate("the host says generation \(number) serves, but its worker \(worker.isAlive ? "never said it was ready" : "is gone")")
            }
            if readyTimes[number] == nil { readyTimes[number] = now }
        }
        forgetEnded()
    }

    /// Drops the workers that ended long ago.
    private mutating func forgetEnded() {
        guard workers.count > 8 else { return }
        for number in workers.keys.sorted().dropLast(4) where workers[number]?.isAlive == false && workers[number]?.daemons.values.contains(true) == false {
            workers[number] = nil
            readyTimes[number] = nil
        }
    }

    /// READY=1 only when a generation that lives and said so serves.
    private mutating func checkReady() {
        guard case .serving(let number) = machine.state else {
            violate("READY=1 sent while the host is \(machine.state)")
            return
        }
        if workers[number]?.isAlive != true { violate("READY=1 for generation \(number), whose worker is gone") }
    }

    /// Restarts respect the limit and the backoff.
    private mutating func checkRestart() {
        let policy = setup.machine.restart
        // An operator's restart is started at once, whatever the limit and the backoff say.
        if restartAskedAt == now { return }
        restartStarts.append(now)
        restartStarts.removeAll { now - $0 >= policy.window }
        if restartStarts.count > policy.limit {
            violate("\(restartStarts.count) restarts within \(TextFormat.seconds(policy.window)), more than the limit \(policy.limit)")
        }
        if let lastFailureAt {
            let wait = policy.wait(beforeRestartInARow: restartsInARow)
            if now - lastFailureAt < wait {
                violate("restart \(restartsInARow) in a row started \(TextFormat.seconds(now - lastFailureAt)) after the failure; the backoff asks for \(TextFormat.seconds(wait))")
            }
        }
    }

    /// The host ends only for a documented reason, with a status that reason allows, and
    /// after a stop request within its deadline.
    private mutating func checkExit(_ status: ExitStatus, _ reason: EndReason) {
        // Everyone who asked has an answer: a stop, the status the host ends with.
        for (id, client) in clients.sorted(by: { $0.key < $1.key }) where client.request != .follow {
            violate("the host ended without answering client \(id)'s \(client.request)")
        }
        if let stoppedAnswer, stoppedAnswer != status {
            violate("the host answered a stop with status \(stoppedAnswer.rawValue), and ended with \(status.rawValue)")
        }
        if !reason.statuses.contains(status.rawValue) {
            violate("the host ended with status \(status.rawValue), which \(reason) does not allow")
        }
        if let firstStopAt {
            let allowed = (setup.machine.stopLimit ?? .seconds(3600)) + OverrunPolicy.grace + setup.machine.reapGrace + .milliseconds(50)
            if now - firstStopAt > allowed {
                violate("the host ended \(TextFormat.seconds(now - firstStopAt)) after the stop request; its deadline allows \(TextFormat.seconds(allowed))")
            }
        }
        switch reason {
        case .stopped, .stoppedAtOnce:
            if firstStopAt == nil { violate("the host ended as stopped (\(reason)) though no stop was asked for") }
        case .finished, .failedBeforeReady, .notRestartable, .restartLimit, .nothingLeftToServe, .cannotStartWorker:
            break
        }
    }

    // MARK: Describing

    private func describe(_ event: SupervisionEvent) -> String {
        switch event {
        case .ready(let number, let status, _): "ready(\(number), \(status))"
        case .upgradeRequested(let number, _): "upgradeRequested(\(number))"
        case .ended(let number, let evidence): "ended(\(number), \(evidence.termination), crash: \(evidence.crash?.culprit?.description ?? "-"), rewritten: \(evidence.rewrittenInPlace))"
        default: "\(event)"
        }
    }

    private func describe(_ action: SupervisionAction) -> String {
        switch action {
        case .start(let plan): "start(\(plan.number), \(plan.cause), excluded: \(plan.builds.excluded.map { "\($0.name)@\($0.identity.inode)" }), substitutes: \(plan.builds.substitutes.map { "\($0.name)@\($0.identity.inode)" }))"
        case .hold(let builds): "hold(\(builds.map { "\($0.name)@\($0.identity?.inode ?? 0)" }))"
        case .say(let line): "say(\(line))"
        default: "\(action)"
        }
    }
}

/// A change of the supervisor's state: from, on what kind of event, to.
struct Transition: Hashable, Comparable, Sendable {
    let from: String
    let event: String
    let to: String

    static func < (lhs: Transition, rhs: Transition) -> Bool {
        (lhs.from, lhs.to, lhs.event) < (rhs.from, rhs.to, rhs.event)
    }
}

/// A small, fast generator of pseudo-random numbers that a seed replays exactly.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
