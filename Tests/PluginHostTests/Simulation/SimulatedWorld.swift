#if !STANDALONE_SIMULATOR
@testable import PluginHost
#endif

/// The world a supervisor lives in, simulated: plugin files on a disk, worker processes
/// that load, bootstrap, serve and stop on their own schedule, daemons they start, operators
/// who send signals and ask through the control socket, and a clock. It drives the very
/// ``SupervisionMachine`` the supervisor runs, as the supervisor's driver does: it turns what
/// its workers do into events, performs the machine's actions (forks, kills, requests, held
/// files, checks of the files on disk) and reports what it found as events.
///
/// It keeps the truth apart from the machine (``WorldTruth``: which build is faulty, who
/// faulted, what each worker runs, who sent a signal, what an operator asked) and checks
/// what the machine decides and says against it after every step (``SimulatedWorld+Checks``):
/// blame, convergence, the words of every line, `STATUS=`, the status and the metrics.
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

    /// The index of the plugin named `name`.
    static func plugin(named name: String) -> Int? { plugins.firstIndex { $0.name == name } }

    /// A file's contents and what its build does.
    /// A plugin as a simulated worker published it.
    struct Published {
        let plugin: Int
        let inode: UInt64
        /// The file's identity when the worker read it.
        let identity: FileIdentity
        /// Where the worker loaded it from: its plugin's file, a file the supervisor held from
        /// before, or the record's copy (as `from` in the status names them).
        var source = "file"
        var state: SupervisionPage.PluginState = .published
        var loaded = false

        var build: WorldTruth.Build { WorldTruth.Build(plugin: plugin, identity: identity) }
    }

    /// A worker process of the simulation, with the truth of what it did. A reference: the
    /// world changes its workers at every step, and copying one copies all it holds.
    final class Worker {
        /// Whether it makes no progress by itself: stopped by a signal, or hung in a plugin
        /// call, except while it stops on its own, where each hook has a deadline the worker
        /// itself keeps (a hook that overruns it is skipped).
        var isStuck: Bool { suspended || (hang != nil && !life.isStopping) }

        let number: Int
        let cause: GenerationPlan.Cause
        let startedAt: MonotonicInstant
        var life = WorldWorkerLife.loading
        var published: [Published] = []
        /// The plugin files it found that are no plugin (junk), by plugin index.
        var unusableAtStart: Set<Int> = []
        /// An upgrade's candidate: whether, by the world's reading of the manifests, it
        /// bootstraps beside the serving generation; `nil` until it loaded.
        var bootstrapsBeside: Bool?
        /// The worker that served when this upgrade's candidate started.
        var replaces: Int?
        var hang: WorldWorkerHang?
        /// The plugin (an index into ``published``) whose step hangs.
        var hungPlugin: Int? { hang?.plugin }
        /// Since when a signal keeps it stopped, and what ran then.
        var suspension: (since: MonotonicInstant, running: [RunningCode])?
        var suspended: Bool { suspension != nil }
        var runningWhenSuspended: [RunningCode] { suspension?.running ?? [] }
        /// Asked to stop by the supervisor, at any time.
        var askedToStop = false
        /// Told to bootstrap once the generation before stopped (an upgrade's candidate).
        var proceeded = false
        var pendingRequests: [WorkerLink.Request] = []
        /// When it reaches its next milestone (loaded, bootstrapped, stopped).
        var milestoneAt: MonotonicInstant?
        var daemons: [Int: Bool] = [:]
        var askedUpgrades: Set<FileIdentity> = []
        var failedPlugin: PluginNumber?
        /// How it ended, once it did.
        var end: WorldWorkerEnd? {
            switch life {
            case .ended(let end, _): end
            case .gone(let end, _): end
            case .loading, .prepared, .bootstrapping, .bootstrapped, .serving, .stopping: nil
            }
        }
        var death: WorldTruth.Death? { end?.death }
        /// Whether it stops, or stopped, by itself: no service to run on a host that does not
        /// watch.
        var stoppingByItself: Bool { life == .stopping(byItself: true) || end?.step == .stopping(byItself: true) }
        /// Why the supervisor would end it, as the world knows: the step that overran.
        var overranOwner: Int?
        /// When its current step began, for a step that hangs.
        var stepStarted: MonotonicInstant
        var overrunAt: MonotonicInstant?
        /// Its word that it is ready: once said, its report is out and its services run.
        var readiness = WorldWorkerReadiness.notReady
        var saidReady: Bool { readiness.saidAt != nil }
        /// How many plugins it had published when it said it was ready: a serving worker takes
        /// in no other, a plugin dropped in comes with a new generation.
        var publishedWhenReady = 0
        /// The running plugins whose files it last told the supervisor are gone.
        var goneTold: Set<String> = []
        /// The plugins new to it that it last asked a new generation to bring in, with the
        /// build each file held then.
        var comingIn: [Int: FileIdentity] = [:]
        /// The plugins its start left out (their builds excluded with nothing held in their
        /// place, or requiring one that is), by name.
        var leftOutAtStart: Set<String> = []
        /// The plugins brought back from held builds at its start.
        var broughtBack: [WorldTruth.Build] = []
        /// The builds its plan left out, which it remembers for its life.
        var excludedAtStart: Set<WorldTruth.Build> = []

        /// Whether the supervisor heard of its end, and that it is ready.
        var endSeen: Bool {
            if case .gone(_, heard: true) = life { true } else { false }
        }
        var readySeen: Bool { readiness.isHeard }
        /// Why the supervisor sent it SIGKILL, as the world knows, once it did: it serves no more.
        var killedBecause: WorldTruth.Kill?
        var killed: Bool { killedBecause != nil }
        /// The builds it last told the supervisor it runs, and the plugins it told are left out:
        /// the supervisor can know no better.
        var told: [WorldTruth.Build] = []
        var toldLeftOut: Set<String> = []
        /// The build each plugin's file held when it last told a held build runs in place of
        /// the file's: what it said is of that build.
        var fileBuildsWhenTold: [String: WorldTruth.Build] = [:]
        /// Every plugin it last told of, and those it told are not added.
        var toldNames: Set<String> = []
        var toldNotAdded: Set<String> = []
        /// Which version of the configuration it read last (at its start, or a reload), and the
        /// version each plugin runs with (the one read when it bootstrapped; a reload gives
        /// plugins with a reload hook the new one), by plugin index.
        var configurationRead = 0
        var settingsOf: [Int: Int] = [:]
        /// The plugins it last told run with settings older than the configuration, which take
        /// effect when they start again (Ticker has no reload hook).
        var toldSettingsAwaitingAStart: Set<String> = []
        /// The plugins (indices into the world's) whose health check finds them unhealthy.
        var unhealthy: Set<Int> = []
        /// Whether it took over from the generation it replaces (an upgrade's, once ready).
        var tookOver = false
        /// Whether the supervisor sent it what the generation before handed over.
        var receivedHandOff = false
        /// The items it handed over as it stopped, which the supervisor hears of before its end.
        var handedItems: [Int] = []

        init(number: Int, cause: GenerationPlan.Cause, startedAt: MonotonicInstant, stepStarted: MonotonicInstant) {
            self.number = number
            self.cause = cause
            self.startedAt = startedAt
            self.stepStarted = stepStarted
        }

        var isAlive: Bool {
            if case .gone = life { false } else { true }
        }

        /// Why the supervisor ends it when it sends SIGKILL at `now`, as the world knows: a step
        /// that overran, a signal that kept it stopped for `suspensionLimit` (`--timeout`), a
        /// stop it did not finish in time, or nothing lost by ending it.
        func supervisorsKill(at now: MonotonicInstant, suspensionLimit: Duration?) -> WorldTruth.Kill {
            if let owner = overranOwner { return .overran(owner: owner) }
            if let suspension, let limit = suspensionLimit, now - suspension.since >= limit { return .stayedSuspended(running: suspension.running) }
            return askedToStop ? .stopDeadline(whileSuspended: suspended) : .notNeeded
        }

        /// The builds it published, in order.
        var builds: [WorldTruth.Build] { published.map(\.build) }

        /// The builds it runs.
        var running: [WorldTruth.Build] { published.filter { $0.state == .running }.map(\.build) }

        /// Its services, waiting for work: what runs while it serves.
        var services: [RunningCode] {
            published.indices.filter { published[$0].state == .running && SimulatedWorld.plugins[published[$0].plugin].providesService }
                .map { RunningCode(plugin: PluginNumber($0), phase: .run) }
        }
    }

    /// What the simulation is set up with.
    struct Setup {
        var machine = SupervisionMachine.Configuration()
        /// `--timeout`: how long a load or bootstrap may take.
        var loadTimeout: Duration = .seconds(30)
        /// The plugins whose manifest allows bootstrapping beside the build before
        /// (`"upgrade": "beside"`), by index; the others say `"after"`.
        var beside: Set<Int> = []
        /// Whether the state directory can be written: when not, the driver keeps no record
        /// and no copies, and a host started after this one knows nothing it proved.
        var keepsRecord = true
        /// How long the first generation's word that it is ready takes to reach the supervisor
        /// once its report is out and its services run: a plugin may crash meanwhile, and the
        /// word is then never sent.
        var readyLatency: Duration = .zero
    }

    let setup: Setup
    var machine: SupervisionMachine
    var now: MonotonicInstant
    var random: SplitMix64
    /// The plugin directory's files and the record's copies.
    var files: WorldFiles
    var workers: [Int: Worker] = [:]
    /// The builds the world, as the driver, holds open, and the file each is.
    var held: [(build: PublishedPlugin, inode: UInt64)] = []
    /// The generations started whose end (or refused fork) the machine has not yet heard of.
    var liveAsHeard: Set<Int> = []
    /// The builds the driver holds, as the machine last heard (its answer to a hold, or what
    /// it holds from its start).
    var heldAsHeard: [PublishedPlugin] = []
    /// The builds the world held, let go at a hold because their held files read other bytes
    /// (written in place) and nothing else held them: they cannot come back.
    var lostToRewrite: Set<WorldTruth.Build> = []
    /// The operator's rollback the machine heard last, and what the truth says it brings back
    /// of each plugin (its build that runs, and the build before); `nil` targets: it must be refused.
    var rollbackExpected: (client: Int, targets: [Int: (running: WorldTruth.Build, target: WorldTruth.Build)]?)?
    var refuseFork = false
    /// The operators' clients, what they asked and what they were answered.
    var clients = WorldClients()
    /// When an operator last asked for a restart.
    var restartAskedAt: MonotonicInstant?
    var nextDaemon = 10_000
    /// How the host ended, when it has.
    var exit: (status: ExitStatus, reason: EndReason, at: MonotonicInstant)?
    /// What the invariants found wrong, in order.
    var violations: [String] = []
    /// Events handled so far.
    var eventCount = 0
    /// Every event and action, when asked for, to print a failing run.
    var trace: [String] = []
    /// The changes of the host's state seen: from, the kind of event, to.
    var transitions: Set<Transition> = []
    let tracing: Bool
    /// Events waiting to be handled, in order, as the driver queues what performing gave.
    var queue: [SupervisionEvent] = []
    var delivering = false

    /// Who holds each item plugins handed over: a worker, the supervisor (what a generation
    /// handed over, not yet passed on), or nobody (closed).
    enum ItemOwner: Equatable {
        case worker(Int)
        case supervisor(from: Int)
        case closed
    }
    var items: [ItemOwner] = []

    /// The truth, and what the checks remember of it.
    var truth = WorldTruth()
    /// Builds whose behaviour the environment changed, with nothing on disk to say so.
    var environmentChanged: Set<WorldTruth.Build> = []
    /// The signals operators sent, and the stop requests they made.
    var signals = WorldSignals()
    /// The version of the configuration file: an operator changes a setting of every plugin
    /// before each reload asked (Ticker has no reload hook, so its change waits for a start).
    var configuration = 0
    /// The reloads: the requests that wait, the one under way, those made and told.
    var reloads = WorldReloads()
    /// The record of what the host proved, as the machine last asked to keep it, and whether it
    /// is yet to be checked against the truth (it was asked for, or the truth changed).
    var recordDecided = BuildRecord()
    /// The state directory: the record on disk, its writes, the records under other keys.
    var stateDirectory: WorldStateDirectory
    /// The record the host started with.
    var recordAtStart = BuildRecord()
    /// The plugins this host saw run in a generation that served.
    var servedServices: Set<Int> = []
    var recordCheckedAt: Int?
    /// The restarts, as the world counts them: the failure the next one answers, and those
    /// that started.
    var restarts = WorldRestarts()
    /// The last end the world judged for a restart or an upgrade: the worker, and the builds
    /// the rules blame for it.
    var lastJudged: (worker: Int, blamed: [WorldTruth.Build])?
    /// The last upgrade's candidate judged to have failed after the generation before stopped:
    /// a restore follows, meant to bring back the builds held from before of what it blamed.
    var restoreJudged: Int?
    /// The trials that failed by the last judgement (a failure blamed on their build, an
    /// unhealthy check, an operator's rollback): the next generation brings back the builds
    /// they replaced, where the world holds them as they were.
    var trialsFailed: [WorldTruth.Trial] = []
    /// The generations started to roll back builds on trial: they begin no trial.
    var rollbackGenerations: Set<Int> = []

    init(setup: Setup, seed: UInt64, tracing: Bool = false) {
        self.setup = setup
        self.tracing = tracing
        random = SplitMix64(seed: seed)
        now = MonotonicInstant(nanoseconds: 1_000_000_000_000)
        files = WorldFiles(plugins: Self.plugins.count)
        stateDirectory = WorldStateDirectory(spelling: Int(seed % UInt64(DirectorySpelling.all.count)))
        let (machine, actions) = SupervisionMachine.starting(setup.machine, at: now)
        self.machine = machine
        delivering = true
        perform(actions)
        drainQueue()
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
        case .signal(let signal, let recipient):
            send(signal, to: recipient)
        case .kill(let target, let death):
            guard let number = worker(target) else { return }
            die(number, death)
        case .crash(let target, let plugin):
            guard let number = worker(target), let running = workers[number]?.published else { return }
            let culprit = running.firstIndex { $0.plugin == plugin && $0.loaded } ?? running.firstIndex(where: \.loaded)
            end(number, .signalled(.segmentationFault), death: .crash(culprit: culprit), crash: WorkerRecord(
                signal: Signal.segmentationFault.rawValue, culprit: culprit.map(PluginNumber.init), evidence: .faultingCode, phase: .run,
                thread: .pluginCode), running: workers[number]?.services ?? [])
        case .environmentBreaks(let plugin, let build):
            guard let current = liveServingWorker ?? machine.currentGeneration,
                let published = workers[current]?.published.first(where: { $0.plugin == plugin })
            else { return }
            // What the environment breaks is how a build behaves, never whether its file is a
            // plugin: that is the file's contents.
            files.inodes[published.inode]?.build = build == .junk ? .failsToLoad : build
            // Nothing on disk tells the host: a build that failed before is not tried again
            // for it, nor one that ran is known to fail now. The build changed is the one the
            // worker loaded, and the one its file holds now (written in place since).
            environmentChanged.insert(published.build)
            if let identity = files.inodes[published.inode]?.identity { environmentChanged.insert(WorldTruth.Build(plugin: plugin, identity: identity)) }
        case .hang(let target):
            guard let number = worker(target), let worker = workers[number] else { return }
            if worker.hang == nil { workers[number]?.hang = .nextPluginCall }
            // A step under way runs past its limit: the plugin it is in.
            if worker.life.isInPluginStep {
                let inStep = worker.life == .loading
                    ? worker.published.firstIndex { !$0.loaded } : worker.published.firstIndex { $0.loaded && $0.state != .running }
                workers[number]?.hang = .inPlugin(inStep ?? 0)
                workers[number]?.overrunAt = worker.stepStarted + setup.loadTimeout
                workers[number]?.milestoneAt = nil
            }
        case .suspend(let target):
            guard let number = worker(target), let worker = workers[number], !worker.suspended else { return }
            let running = running(in: worker)
            workers[number]?.suspension = (now, running)
            deliver(.suspended(generation: number, process: ProcessID(rawValue: Int32(number)), by: .stop, running: []))
        case .resume(let target):
            guard let number = worker(target), workers[number]?.suspended == true else { return }
            resume(number)
        case .health(let target, let good):
            guard let number = worker(target) else { return }
            // The generation that serves tells how long each plugin took to answer (a figure
            // made from the time, so that the run's randomness is not drawn on).
            if number == liveServingWorker, let worker = workers[number] {
                var durations: [String: Double] = [:]
                for published in worker.published where published.state == .running {
                    durations[Self.plugins[published.plugin].name] = Double((now.nanoseconds / 1_000_000 + Int64(published.plugin)) % 997) / 1000
                }
                truth.toldHealthChecks(durations)
                deliver(.news(generation: number, .health(durations)))
            }
            deliver(.health(generation: number, goodUntil: good ? now + .seconds(3600) : nil))
        case .unhealthy(let plugin):
            guard let number = liveServingWorker, workers[number]?.running.contains(where: { $0.plugin == plugin }) == true else { return }
            workers[number]?.unhealthy.insert(plugin)
            tellConditions(number)
        case .daemonize(let target):
            guard let number = worker(target) else { return }
            nextDaemon += 1
            workers[number]?.daemons[nextDaemon] = true
        case .replace(let plugin, let build):
            if let old = files.paths[plugin] { files.touchChangeTime(old) }
            files.paths[plugin] = files.newInode(build)
            deliver(.directoryChanged)
        case .rewriteInPlace(let plugin, let build):
            guard let inode = files.paths[plugin] else { return }
            files.rewriteInPlace(inode, with: build)
            deliver(.directoryChanged)
            // Code mapped from it changes under every worker that loaded it: each crashes
            // soon, in whatever code runs.
            for (number, worker) in workers.sorted(by: { $0.key < $1.key })
            where worker.life.runs && worker.published.contains(where: { $0.inode == inode && $0.loaded }) {
                die(number, .crashNamingPlugin)
            }
        case .remove(let plugin):
            guard let old = files.paths[plugin] else { return }
            files.touchChangeTime(old)
            files.paths[plugin] = nil
            deliver(.directoryChanged)
        case .refuseNextFork:
            refuseFork = true
        case .ask(let request):
            ask(request)
        case .clientLeaves:
            guard let client = clients.firstLeaves() else { return }
            deliver(.clientLeft(client: client))
        case .killSupervisor:
            restartSupervisor()
        case .tearRecord:
            stateDirectory.tear()
        case .freezeState(let seconds):
            stateDirectory.freeze(until: now + .seconds(seconds))
        }
    }

    /// SIGKILL of the supervisor, and the service manager's start of a new one: the host that
    /// starts is checked as any start after an end, then the run goes on with it.
    private mutating func restartSupervisor() {
        guard exit == nil else { return }
        // The writer writes what it was handed, and the new supervisor waits for it before it
        // reads the record (the wait is no part of the truth: nothing runs meanwhile).
        settleRecordWrites()
        // The service manager's unit, or an operator, names the directory another way: the
        // driver reads the record it keeps under that spelling's key.
        let spelling = (stateDirectory.spelling + 1 + eventCount) % DirectorySpelling.all.count
        if let before = stateDirectory.hostStarted(toldBy: spelling), tracing {
            trace.append("  the new supervisor is started with \(DirectorySpelling.all[spelling]), its record keyed \(stateDirectory.key), not \(before)")
        }
        // A record damaged, or none kept (the state directory cannot be written): nothing outlives the host.
        let forgotten = stateDirectory.torn || !setup.keepsRecord
        if tracing { trace.append("  the supervisor is killed; a new one starts" + (forgotten ? ", with no record" : "")) }
        if !forgotten { checkStartAfterEnd(because: "SIGKILL of the supervisor", at: now) }
        guard violations.isEmpty else { return }
        let record = forgotten ? BuildRecord() : recordAsRead()
        let onDisk = Set(Self.plugins.indices.compactMap { files.buildOnDisk($0)?.build })
        let copied = Set(files.copies.keys)
        truth.supervisorRestarted(at: now, torn: forgotten, fileHolds: onDisk.contains, hasCopy: copied.contains)
        self = SimulatedWorld(restartedFrom: self, record: record)
    }

    /// The record as a driver starting now reads it: without the permanent builds it has no
    /// copy of (the driver never writes those), then without the builds whose files changed
    /// (`BuildRecord.forgettingChangedFiles`).
    func recordAsRead() -> BuildRecord {
        let onDisk = Set(Self.plugins.indices.compactMap { files.buildOnDisk($0)?.build })
        var written = stateDirectory.record
        written.permanent = written.permanent.filter { entry in
            Self.plugin(named: entry.name).map { files.copies[WorldTruth.Build(plugin: $0, identity: entry.identity)] != nil } ?? false
        }
        return written.forgettingChangedFiles { name, _, identity in
            Self.plugin(named: name).map { onDisk.contains(WorldTruth.Build(plugin: $0, identity: identity)) } ?? false
        }
    }

    /// The world after its supervisor was killed and started again with `record`: the same
    /// files, copies and truth at the same moment; its workers, what it held open, its clients
    /// and what they asked ended with the process.
    init(restartedFrom before: SimulatedWorld, record: BuildRecord) {
        setup = before.setup
        tracing = before.tracing
        random = before.random
        now = before.now
        files = before.files
        nextDaemon = before.nextDaemon
        truth = before.truth
        environmentChanged = before.environmentChanged
        violations = before.violations
        eventCount = before.eventCount
        trace = before.trace
        transitions = before.transitions
        items = before.items.map { _ in .closed }
        stateDirectory = before.stateDirectory
        stateDirectory.hostRead(record)
        recordDecided = record
        recordAtStart = record
        // The driver holds each permanent build's copy from its start.
        for entry in record.permanent {
            guard let plugin = Self.plugin(named: entry.name), let copy = files.copies[WorldTruth.Build(plugin: plugin, identity: entry.identity)] else { continue }
            held.append((entry.published, copy))
        }
        let (machine, actions) = SupervisionMachine.starting(setup.machine, record: record, at: now)
        self.machine = machine
        heldAsHeard = held.map(\.build)
        liveAsHeard = []
        delivering = true
        perform(actions)
        drainQueue()
    }

    /// An operator sends `signal` to `recipient`.
    private mutating func send(_ signal: Signal, to recipient: FaultOperation.Recipient) {
        if recipient == .hostThenService {
            let copy = signals.send()
            deliverCopy(of: signal, from: .supervisor, send: copy)
            advance(to: now + .milliseconds(Int64(1 + random.next() % 5)))
            if exit == nil { send(signal, to: .service, as: copy) }
            return
        }
        send(signal, to: recipient, as: signals.send())
    }

    /// Delivers the copies of the signal an operator sent (`send`) to `recipient`.
    private mutating func send(_ signal: Signal, to recipient: FaultOperation.Recipient, as send: Int) {
        let speaking = (liveServingWorker ?? machine.currentGeneration).flatMap { workers[$0]?.life.runs == true ? $0 : nil }
        let toWorker = recipient != .supervisor ? speaking : nil
        let toSupervisor = recipient != .worker || toWorker == nil
        if toSupervisor { deliverCopy(of: signal, from: .supervisor, send: send) }
        if let toWorker {
            if workers[toWorker]?.suspended == true {
                signals.hold(signal, send: send, in: toWorker)
            } else {
                deliverCopy(of: signal, from: .worker(generation: toWorker), send: send)
            }
        }
    }

    /// A copy of the signal an operator sent (`send`) reaches the host. A stop signal is a
    /// request once, whichever copy comes first; a SIGHUP is a request to reload unless it is
    /// the copy of one the other process got within the window (a signal to the whole service).
    mutating func deliverCopy(of signal: Signal, from source: SignalSource, send: Int) {
        // A stop signal only a worker got asks for a stop of its own only while none was asked:
        // once the supervisor stops the host, the copy a worker passes on is the same stop.
        let fromWorker = if case .worker = source { true } else { false }
        signals.copyArrives(of: signal, send: send, fromWorker: fromWorker, at: now)
        if signal == .hangUp {
            let same = reloads.lastHangUp.map { $0.fromWorker != fromWorker && now - $0.at < setup.machine.repeatedSignalWindow } ?? false
            if !same { reloads.lastHangUp = (fromWorker, now) }
            // It is a request from when the host handles it: a copy a worker passes on while
            // the host acts is handled after what it does now.
            reloads.hangUpsCounting.append(!same && !signals.stopAsked)
        }
        deliver(.signal(signal, from: source))
    }

    /// An operator's client connects and asks.
    private mutating func ask(_ request: FaultOperation.Request) {
        // A restart of the plugins the world knows are left out names them.
        let client = clients.connect(
            asking: request, naming: request == .restartLeftOut ? Set(truth.evidence.keys.map(\.name)).sorted() : nil,
            brokenOnDisk: request == .restartBrokenOnDisk)
        // The operator names the directory in a way of its own: it finds the host's socket.
        let spelling = DirectorySpelling.all[client % DirectorySpelling.all.count]
        if spelling.socketName != DirectorySpelling.all[stateDirectory.spelling].socketName {
            violate("an operator's request with \(spelling) would not find the control socket of the host started with \(DirectorySpelling.all[stateDirectory.spelling])")
        }
        let asked: ControlRequest
        switch request {
        case .status: asked = .status
        case .wait: asked = .wait
        case .follow: asked = .follow
        case .reload:
            asked = .reload
            configuration += 1
            if exit == nil, !signals.stopAsked { reloads.asked.append(now) }
        case .restart: asked = .restart([])
        case .restartLeftOut:
            asked = .restart(clients.names(restartedBy: client) ?? [])
        case .restartBrokenOnDisk:
            asked = .restart([])
        case .stop:
            asked = .stop
            signals.stopAskedByClient(at: now)
        case .accept: asked = .accept([])
        case .rollback: asked = .rollBack([], to: nil)
        case .acceptOne, .rollbackOne:
            // Most often a plugin on trial; otherwise any, which the host refuses.
            let onTrial = truth.trials(at: now).map(\.build.name)
            let name = !onTrial.isEmpty && random.next() % 3 != 0
                ? onTrial[Int(random.next() % UInt64(onTrial.count))] : Self.plugins[Int(random.next() % UInt64(Self.plugins.count))].name
            asked = request == .acceptOne ? .accept([name]) : .rollBack([name], to: nil)
        case .rollbackTo:
            // Most often a version the truth keeps permanent; otherwise one it never had.
            let plugin = Int(random.next() % UInt64(Self.plugins.count))
            let kept = truth.permanent(of: plugin, at: now)
            let version = !kept.isEmpty && random.next() % 4 != 0
                ? kept[Int(random.next() % UInt64(kept.count))].version : Self.version(stamp: files.nextStamp + 1)
            asked = .rollBack([Self.plugins[plugin].name], to: version)
        }
        deliver(.control(client: client, asked))
    }

    /// Ends the run as an operator would: SIGTERM, then time enough for the host to end by
    /// its deadline. A host that does not end by then breaks an invariant.
    mutating func stopAndSettle() {
        if exit == nil, !signals.stopAsked { send(.terminate, to: .supervisor) }
        let stopped = signals.stopRequests.first?.at ?? now
        let allowed = stopAllowance
        advance(to: stopped + allowed)
        if exit == nil { violate("the host did not end within \(TextFormat.seconds(allowed)) of the stop request") }
    }

    /// How long a host with no more faults may take to come to rest: time enough for each
    /// plugin's faulty builds to fail at their deadline and be left out after a backoff.
    var settlingTime: Duration {
        .seconds(120) + (setup.loadTimeout + setup.machine.restart.maximumDelay + (setup.machine.stopLimit ?? .zero)) * Self.plugins.count * 2
    }

    /// How long the host may take to end after a stop request: the stop's limit and grace,
    /// the reap's grace, and the end's own budget for reaping.
    var stopAllowance: Duration {
        (setup.machine.stopLimit ?? .seconds(3600)) + OverrunPolicy.grace + setup.machine.reapGrace + .milliseconds(50)
    }

    /// Lets time pass with nothing going wrong: the host must come to serve what a correct
    /// host would, or end for a reason the truth justifies.
    mutating func settleWithoutFaults() {
        guard exit == nil else { return }
        // The faults are over: what a signal stopped is resumed.
        for number in workers.keys.sorted() where workers[number]?.suspended == true && workers[number]?.life.hasEnded != true { resume(number) }
        advance(to: now + settlingTime)
        guard exit == nil else { return }
        checkSettled()
    }

    // MARK: Time

    /// The next instant a worker, or the record's writer, does something by itself.
    var nextWorldEvent: MonotonicInstant? {
        var next: MonotonicInstant?
        func consider(_ instant: MonotonicInstant?) {
            if let instant, next.map({ instant < $0 }) ?? true { next = instant }
        }
        consider(stateDirectory.write?.finishesAt)
        for worker in workers.values {
            // A worker that ended only has its end to be seen; one stopped only its deadline.
            if worker.life.hasEnded {
                if case .ended(_, let heardAt) = worker.life { consider(heardAt) }
            } else {
                if !worker.isStuck { consider(worker.milestoneAt) }
                consider(worker.overrunAt)
                consider(worker.readiness.arrives)
            }
        }
        return next
    }

    /// Lets time pass to `target`: workers reach their milestones, deadlines fall due.
    mutating func advance(to target: MonotonicInstant) {
        var guardCount = 0
        // Time stops at the first violation: what follows it proves nothing, and a machine
        // that loops (an upgrade after an upgrade) would otherwise run to the target.
        while exit == nil, violations.isEmpty {
            guardCount += 1
            if guardCount > 10_000 {
                violate("time does not move on: events keep falling due at \(now) (the machine's next deadline: "
                    + "\(machine.nextDeadline.map(\.description) ?? "none"), the workers': \(nextWorldEvent.map(\.description) ?? "none"); "
                    + "state \(machine.state))")
                return
            }
            let deadline = machine.nextDeadline.flatMap { $0 <= target ? $0 : nil }
            let event = nextWorldEvent.flatMap { $0 <= target ? $0 : nil }
            guard let next = [deadline, event].compactMap({ $0 }).min() else { break }
            now = max(now, next)
            finishRecordWrite()
            runWorkers()
            deliver(.tick)
        }
        now = max(now, target)
        if exit == nil { deliver(.tick) }
    }

    // MARK: The machine

    /// Hands `event` to the machine now, after those queued before it, as the driver does:
    /// the events performing an action gives are handled once the actions before them are.
    mutating func deliver(_ event: SupervisionEvent) {
        queue.append(event)
        guard !delivering else { return }
        delivering = true
        drainQueue()
    }

    private mutating func drainQueue() {
        while !queue.isEmpty, exit == nil {
            handle(queue.removeFirst())
        }
        queue = []
        delivering = false
    }

    /// Has the machine decide on `event`, performs what it decided, and checks the invariants.
    private mutating func handle(_ event: SupervisionEvent) {
        eventCount += 1
        let traced = trace.count
        if tracing { trace.append("  event \(describe(event))") }
        if case .control(_, .restart) = event { restartAskedAt = now }
        if case .signal(.hangUp, _) = event, !reloads.hangUpsCounting.isEmpty, reloads.hangUpsCounting.removeFirst(), exit == nil {
            configuration += 1
            reloads.asked.append(now)
        }
        if case .news(_, .reload(let applied, let reasons)) = event { reloads.told(applied: applied, reasons: reasons, at: now) }
        if case .holding(let builds, _) = event { heldAsHeard = builds }
        switch event {
        case .news(let number, .plugins(let conditions)):
            workers[number]?.told = conditions.filter(\.state.runs).compactMap { condition in
                Self.plugin(named: condition.name).flatMap { plugin in condition.build.map { WorldTruth.Build(plugin: plugin, identity: $0) } }
            }
            workers[number]?.toldLeftOut = Set(conditions.filter { $0.state == .leftOut }.map(\.name))
            workers[number]?.toldNotAdded = Set(conditions.filter { $0.state == .notAdded }.map(\.name))
            workers[number]?.toldNames = Set(conditions.map(\.name))
        case .news(let number, .warnings("settings without a reload hook", let list)):
            workers[number]?.toldSettingsAwaitingAStart = Set(list.compactMap { $0.split(separator: " ").dropFirst().first.map(String.init) })
        case .ready(let number, _):
            if let saidAt = workers[number]?.readiness.saidAt { workers[number]?.readiness = .heard(saidAt: saidAt) }
        case .couldNotStart(let number, _), .ended(let number, _):
            liveAsHeard.remove(number)
        default:
            break
        }
        let stateBefore = machine.state
        judgeBefore(event)
        let actions = machine.handle(event, at: now)
        if machine.state.hostState != stateBefore.hostState {
            transitions.insert(Transition(from: "\(stateBefore.hostState)", event: event.kind, to: "\(machine.state.hostState)"))
        }
        checkDecision(on: event, in: stateBefore, actions: actions)
        perform(actions)
        // A tick that did nothing but ping the watchdog says nothing.
        if tracing, case .tick = event, actions.allSatisfy({ $0 == .pingWatchdog }), trace.count <= traced + 1 + actions.count {
            trace.removeSubrange(traced...)
        }
        // What performing gave is yet to be handled: the machine and the world agree once it is.
        if queue.isEmpty { checkInvariants(after: event) }
    }

    /// Performs `actions` in order, as the driver does.
    mutating func perform(_ actions: [SupervisionAction]) {
        for action in actions {
            guard exit == nil else { return }
            if tracing { trace.append("    action \(describe(action))") }
            check(action)
            switch action {
            case .start(let plan):
                liveAsHeard.insert(plan.number)
                start(plan)
            case .handOver(let from, let to):
                passOn(from: from, to: to)
            case .discardHandOff(let from):
                for item in items.indices where items[item] == .supervisor(from: from) { items[item] = .closed }
            case .ask(let generation, let request):
                ask(generation, request)
            case .kill(let generation, _):
                workers[generation]?.killedBecause = workers[generation]?.supervisorsKill(at: now, suspensionLimit: setup.machine.suspensionLimit)
                killedBySupervisor(generation)
            case .endProcesses(let generation):
                for daemon in workers[generation]?.daemons.keys.sorted() ?? [] { workers[generation]?.daemons[daemon] = false }
            case .say, .notify, .pingWatchdog:
                break
            case .hold(let builds):
                deliver(.holding(hold(builds), asked: builds))
            case .checkRestart(let client, _, _):
                deliver(.restartChecked(client: client, problems: clients.restartBreaksOnDisk(client)
                    ? ["plugin Ticker (plugins/libTicker.so) requires Domain ^1.0.0, but Domain 2.0.0 is installed"] : []))
            case .keepRecord(let record, let number):
                recordDecided = record
                recordCheckedAt = nil
                keep(record, number: number)
            case .answer(let client, let answer):
                receive(answer, by: client)
            case .checkHostBinary, .startNewHost, .handOverToNewHost, .endNewHost, .tellHostBefore, .answerOperators, .leaveSocketsInPlace:
                // Found out by the checks: no operator of this world asks for a host upgrade.
                break
            case .exit(let status, let reason):
                // What the driver handed its writer is written, within its end's budget or after.
                settleRecordWrites()
                exit = (status, reason, now)
                checkExit(status, reason)
                for number in workers.keys {
                    if let worker = workers[number], worker.isAlive { worker.life = .gone(worker.end, heard: false) }
                    for daemon in workers[number]?.daemons.keys.sorted() ?? [] { workers[number]?.daemons[daemon] = false }
                }
            }
        }
    }

    /// The driver's `HeldBuilds.hold`: a build held already stays held while its file reads its
    /// bytes; another is opened from
    /// its file when the file is still that build, else from a live worker that loaded it
    /// (the descriptor it keeps), while those bytes are unchanged.
    private mutating func hold(_ builds: [PublishedPlugin]) -> [PublishedPlugin] {
        var next: [(build: PublishedPlugin, inode: UInt64)] = []
        for build in builds {
            guard let identity = build.identity else { continue }
            if let kept = held.first(where: { $0.build.name == build.name && $0.build.identity?.hasSameContents(as: identity) == true }),
                files.inodes[kept.inode]?.identity.hasSameContents(as: identity) == true {
                next.append(kept)
            } else if let plugin = Self.plugin(named: build.name), let inode = files.paths[plugin],
                files.inodes[inode]?.identity.hasSameContents(as: identity) == true {
                next.append((build, inode))
            } else if let plugin = Self.plugin(named: build.name), let inode = loadedByLiveWorker(plugin, identity) {
                next.append((build, inode))
            } else if let plugin = Self.plugin(named: build.name), let copy = files.copies[WorldTruth.Build(plugin: plugin, identity: identity)] {
                next.append((build, copy))
            }
            guard let plugin = Self.plugin(named: build.name) else { continue }
            let truly = WorldTruth.Build(plugin: plugin, identity: identity)
            let wasHeld = held.contains { $0.build.name == build.name && $0.build.identity?.hasSameContents(as: identity) == true }
            if next.contains(where: { $0.build.name == build.name && $0.build.identity?.hasSameContents(as: identity) == true }) {
                lostToRewrite.remove(truly)
            } else if wasHeld {
                lostToRewrite.insert(truly)
            }
        }
        held = next
        return next.map(\.build)
    }

    /// The driver's `BuildCopies.keep`: each permanent build the record names keeps its copy,
    /// or gets one made from what the world holds of it as it ran; the others are removed. A
    /// copy is a file of its own that nothing writes, with the build's contents.
    mutating func keepCopies(of record: BuildRecord) {
        var kept: [WorldTruth.Build: UInt64] = [:]
        for entry in record.permanent {
            guard let plugin = Self.plugin(named: entry.name) else { continue }
            let build = WorldTruth.Build(plugin: plugin, identity: entry.identity)
            if let copy = files.copies[build] {
                kept[build] = copy
            } else if let source = held.first(where: { $0.build.name == entry.name && $0.build.identity?.hasSameContents(as: entry.identity) == true }),
                let file = files.inodes[source.inode], file.identity.hasSameContents(as: entry.identity) {
                kept[build] = files.newCopy(of: entry.identity, behaving: file.build)
            }
        }
        // A worker may still run a copy the record no longer names: its file stays.
        files.copies = kept
    }

    /// The file of `plugin`'s build `identity` that a live worker loaded, while it still reads those bytes.
    private func loadedByLiveWorker(_ plugin: Int, _ identity: FileIdentity) -> UInt64? {
        for number in workers.keys.sorted() {
            guard let worker = workers[number], worker.isAlive else { continue }
            for published in worker.published where published.plugin == plugin && published.loaded
                && published.identity.hasSameContents(as: identity) && files.inodes[published.inode]?.identity.hasSameContents(as: identity) == true {
                return published.inode
            }
        }
        return nil
    }

    /// The driver's `HeldBuilds.wasRewritten`: the substitute's build is held, and its held
    /// file reads other bytes now.
    func wasRewritten(_ substitute: BuildSubstitute) -> Bool {
        heldCopy(of: substitute).map { !$0.intact } ?? false
    }

    /// The driver's `HeldBuilds.locate`: the substitute with the path of its held file,
    /// when that file still has its contents.
    func locate(_ substitute: BuildSubstitute) -> BuildSubstitute? {
        guard let copy = heldCopy(of: substitute), copy.intact else { return nil }
        var located = substitute
        located.path = "held:\(copy.inode)"
        located.fromCopy = files.copyFiles.contains(copy.inode)
        return located
    }

    /// The inode held for `substitute`'s build, and whether it still has that build's contents.
    private func heldCopy(of substitute: BuildSubstitute) -> (inode: UInt64, intact: Bool)? {
        guard let entry = held.first(where: { $0.build.name == substitute.name && $0.build.identity?.hasSameContents(as: substitute.identity) == true }),
            let now = files.inodes[entry.inode]?.identity
        else { return nil }
        return (entry.inode, now.hasSameContents(as: substitute.identity))
    }

    mutating func violate(_ text: String) {
        violations.append(text)
    }

    // MARK: Describing

    func describe(_ event: SupervisionEvent) -> String {
        switch event {
        case .ready(let number, _): "ready(\(number))"
        case .upgradeRequested(let number, _): "upgradeRequested(\(number))"
        case .holding(let builds, _): "holding(\(builds.map { "\($0.name)@\($0.identity?.inode ?? 0)" }))"
        case .started(let number, let substitutes, let rewritten):
            "started(\(number), substitutes: \(substitutes.map { "\($0.name)@\($0.identity.inode)" }), rewritten: \(rewritten.map { "\($0.name)@\($0.identity.inode)" }))"
        case .ended(let number, let evidence): "ended(\(number), \(evidence.termination), crash: \(evidence.crash?.culprit?.description ?? "-"), rewritten: \(evidence.rewrittenInPlace))"
        default: "\(event)"
        }
    }

    func describe(_ action: SupervisionAction) -> String {
        switch action {
        case .start(let plan): "start(\(plan.number), \(plan.cause), excluded: \(plan.builds.excluded.map { "\($0.name)@\($0.identity.inode)/\($0.identity.modificationNanoseconds)" }), substitutes: \(plan.builds.substitutes.map { "\($0.name)@\($0.identity.inode)" }))"
        case .hold(let builds): "hold(\(builds.map { "\($0.name)@\($0.identity?.inode ?? 0)" }))"
        case .say(let announcement): "say(\(announcement.line))"
        case .answer(let client, let answer): "answer(\(client), \(answer.summary))"
        default: "\(action)"
        }
    }
}

private extension ControlAnswer {
    /// The answer in a few words, for a trace.
    var summary: String {
        switch self {
        case .status(let status): "status \(status.state)"
        case .change(let what, let status): "change \(what): \(status.state) \(status.plugins.map { "\($0.name):\($0.state.rawValue)" })"
        case .metrics: "metrics"
        default: "\(self)"
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
