#if !STANDALONE_SIMULATOR
@testable import PluginHost
#endif

/// The simulated workers: what each loads from the plan it was forked with, how it
/// bootstraps, serves, rescans, reloads, stops and dies, and what it tells its supervisor.
extension SimulatedWorld {
    /// Every worker reaches what is due.
    mutating func runWorkers() {
        for number in workers.keys.sorted() {
            guard exit == nil, let worker = workers[number] else { continue }
            if case .ended(let end, let heardAt) = worker.life, heardAt <= now {
                // What it handed over as it stopped is the supervisor's, heard of just before its
                // end; the rest closes with it.
                for item in items.indices where items[item] == .worker(number) {
                    items[item] = worker.handedItems.contains(item) ? .supervisor(from: number) : .closed
                }
                if !worker.handedItems.isEmpty {
                    deliver(.handedOver(generation: number, items: worker.handedItems.map { "Echo/item-\($0)" }))
                }
                workers[number]?.life = .gone(end, heard: true)
                deliver(.ended(generation: number, end.evidence))
                continue
            }
            if let overrunAt = worker.overrunAt, overrunAt <= now, !worker.life.hasEnded {
                workers[number]?.overrunAt = nil
                let owner = worker.hungPlugin ?? 0
                workers[number]?.overranOwner = owner
                let phase: Phase = switch worker.life {
                case .loading: .load
                case .serving: .reload
                case .prepared, .bootstrapping, .bootstrapped, .stopping, .ended, .gone: .bootstrap
                }
                deliver(.overran(generation: number, Overrun(
                    owner: PluginNumber(owner), phase: phase, policy: .endHost,
                    allowed: setup.loadTimeout, stall: nil)))
                continue
            }
            if let due = worker.readiness.arrives, due <= now, !worker.life.hasEnded {
                workers[number]?.readiness = worker.readiness.noLongerDue()
                deliver(.ready(generation: number, plugins: snapshot(number)))
            }
            if let at = worker.milestoneAt, at <= now, !worker.isStuck, !worker.life.hasEnded {
                workers[number]?.milestoneAt = nil
                reachMilestone(number)
            }
        }
    }

    /// The worker that serves, as the supervisor can know it: it heard the worker is ready and
    /// has not heard of its end (a worker that just died is heard of a moment later), and did
    /// not ask it to stop; the newest if two are. What the host says is checked against it.
    var servingWorker: Int? {
        workers.values.filter { !$0.endSeen && $0.readySeen && !$0.askedToStop && !$0.killed }.map(\.number).max()
    }

    /// The worker that serves now, as the world knows it: ready, alive, not asked to stop, not
    /// stopping by itself. Operations hit it.
    var liveServingWorker: Int? {
        workers.values.filter { $0.life == .serving && !$0.askedToStop }
            .map(\.number).max()
    }

    /// What runs in `worker` now: the step of a plugin that hangs, or its services.
    func running(in worker: Worker) -> [RunningCode] {
        if let hung = worker.hungPlugin, worker.life.isInPluginStep {
            return [RunningCode(plugin: PluginNumber(hung), phase: worker.life == .loading ? .load : .bootstrap)]
        }
        return worker.services
    }

    // MARK: Starting

    mutating func start(_ plan: GenerationPlan) {
        if refuseFork {
            refuseFork = false
            deliver(.couldNotStart(generation: plan.number, reason: "fork the worker process: Resource temporarily unavailable (errno: 11)"))
            return
        }
        var selection = plan.builds
        // Closures, not the methods themselves: a method passed as a value files.copies the whole world.
        let rewritten = selection.substitutes.filter { wasRewritten($0) }
        selection.substitutes = selection.substitutes.compactMap { locate($0) }
        if let problem = WorldRules.strictnessProblem(
            plan.strictness, cause: plan.cause, watching: setup.machine.watching, keepingGoing: setup.machine.keepingGoing) {
            violate(problem)
        }
        let worker = Worker(number: plan.number, cause: plan.cause, startedAt: now, stepStarted: now)
        worker.configurationRead = configuration
        if WorldRules.loadsBeside(plan.cause) { worker.replaces = servingWorker }
        var leftOut: Set<String> = []
        var chosen: [(plugin: Int, inode: UInt64, source: String)] = []
        var broughtBack: [WorldTruth.Build] = []
        for (plugin, inode) in files.paths.enumerated() {
            guard let inode, let file = files.inodes[inode] else { continue }
            let name = Self.plugins[plugin].name
            if file.build == .junk {
                // Not a plugin: a host that does not watch refuses the directory at start; any
                // other reports it as not added (an upgrade's candidate tells the supervisor).
                worker.unusableAtStart.insert(plugin)
                if plan.cause == .start && !setup.machine.watching {
                    workers[plan.number] = worker
                    deliver(.started(generation: plan.number, substitutes: [], rewritten: rewritten))
                    endIntended(plan.number, status: 1)
                    return
                }
                leftOut.insert(name)
                continue
            }
            if selection.excludes(name, file.identity) {
                if let substitute = selection.substitute(for: name), let heldInode = UInt64(substitute.path.dropFirst(5)),
                    let heldIdentity = files.inodes[heldInode]?.identity {
                    chosen.append((plugin, heldInode, files.copyFiles.contains(heldInode) ? "record" : "held"))
                    broughtBack.append(WorldTruth.Build(plugin: plugin, identity: heldIdentity))
                } else {
                    leftOut.insert(name)
                }
            } else {
                chosen.append((plugin, inode, "file"))
            }
        }
        let gone = leftOut.union(WorldRules.dependents(of: leftOut, among: chosen.map(\.plugin)))
        for (plugin, inode, source) in chosen where !gone.contains(Self.plugins[plugin].name) {
            guard let identity = files.inodes[inode]?.identity else { continue }
            worker.published.append(Published(plugin: plugin, inode: inode, identity: identity, source: source))
        }
        worker.leftOutAtStart = gone
        worker.broughtBack = broughtBack
        worker.excludedAtStart = Set(plan.builds.excluded.compactMap { excluded in
            Self.plugin(named: excluded.name).map { WorldTruth.Build(plugin: $0, identity: excluded.identity) }
        })
        worker.milestoneAt = now + jitter(milliseconds: 2...20)
        workers[plan.number] = worker
        let used = selection.substitutes.filter { substitute in broughtBack.contains { $0.name == substitute.name } }
        deliver(.started(generation: plan.number, substitutes: used, rewritten: rewritten))
    }

    mutating func reachMilestone(_ number: Int) {
        guard let worker = workers[number] else { return }
        switch worker.life {
        case .loading:
            for index in worker.published.indices {
                let build = files.inodes[worker.published[index].inode]?.build ?? .good
                if build == .hangsInLoad {
                    worker.hang = .inPlugin(index)
                    worker.overrunAt = worker.stepStarted + setup.loadTimeout
                    workers[number] = worker
                    return
                }
                if build == .failsToLoad {
                    switch worker.cause {
                    case .restart, .restore:
                        continue
                    case .upgrade, .operatorRestart, .hostUpgrade:
                        // The candidate tells the supervisor what did not load.
                        if worker.failedPlugin == nil { worker.failedPlugin = PluginNumber(index) }
                        continue
                    case .start:
                        worker.failedPlugin = PluginNumber(index)
                        workers[number] = worker
                        endIntended(number, status: 1)
                        return
                    }
                }
                worker.published[index].loaded = true
            }
            if worker.askedToStop {
                worker.life = .stopping(byItself: false)
                worker.milestoneAt = now + jitter(milliseconds: 1...10)
                workers[number] = worker
                return
            }
            if WorldRules.loadsBeside(worker.cause) {
                let loaded = worker.published.filter(\.loaded)
                // A plugin the generation it replaces does not run has nothing to share: only
                // the orders of those that run there count.
                let runningThere = Set(worker.replaces.flatMap { workers[$0] }?.told.map(\.plugin) ?? [])
                worker.bootstrapsBeside = !loaded.isEmpty && loaded.allSatisfy { setup.beside.contains($0.plugin) || !runningThere.contains($0.plugin) }
                worker.life = .prepared
                workers[number] = worker
                deliver(.candidate(generation: number, candidateReport(of: worker, .loaded), plugins: snapshot(number)))
                return
            }
            if !WorldRules.loadsBeside(worker.cause), !worker.receivedHandOff {
                violate("generation \(number) bootstraps, and the supervisor never sent it what the generation before handed over (its worker would wait for it)")
            }
            worker.life = .bootstrapping
            worker.stepStarted = now
            worker.milestoneAt = now + jitter(milliseconds: 2...20)
            workers[number] = worker
        case .bootstrapping:
            for index in worker.published.indices where worker.published[index].loaded {
                let requiresFailed = Self.plugins[worker.published[index].plugin].requires.contains { required in
                    !worker.published.contains { Self.plugins[$0.plugin].name == required && $0.state == .running }
                }
                if requiresFailed { continue }
                switch files.inodes[worker.published[index].inode]?.build ?? .good {
                case .crashesInBootstrap:
                    workers[number] = worker
                    let record = WorkerRecord(signal: Signal.segmentationFault.rawValue, culprit: PluginNumber(index), evidence: .faultingCode, phase: .bootstrap, thread: .pluginCode)
                    end(number, .signalled(.segmentationFault), death: .crash(culprit: index), crash: record,
                        running: [RunningCode(plugin: PluginNumber(index), phase: .bootstrap)])
                    return
                case .throwsInBootstrap:
                    // A generation that goes on without the plugins that fail reports this one
                    // not added; an upgrade's candidate tells the supervisor.
                    if worker.cause == .restart || worker.cause == .restore { continue }
                    if WorldRules.loadsBeside(worker.cause) {
                        if worker.failedPlugin == nil { worker.failedPlugin = PluginNumber(index) }
                        continue
                    }
                    worker.failedPlugin = PluginNumber(index)
                    workers[number] = worker
                    endIntended(number, status: 1)
                    return
                case .good, .failsToLoad, .hangsInLoad, .junk:
                    worker.published[index].state = .running
                    worker.settingsOf[worker.published[index].plugin] = worker.configurationRead
                }
            }
            workers[number] = worker
            if worker.askedToStop {
                workers[number]?.life = .stopping(byItself: false)
                scheduleMilestone(of: number, within: 1...10)
                return
            }
            if WorldRules.loadsBeside(worker.cause) {
                workers[number]?.life = .bootstrapped
                deliver(.candidate(generation: number, candidateReport(of: worker, .bootstrapped), plugins: snapshot(number)))
                return
            }
            becomeReady(number)
        case .stopping:
            // Stopping as the supervisor asked, its plugins hand over what they hold: what they
            // were handed, and something of their own.
            if worker.askedToStop, !worker.suspended {
                let kept = items.indices.filter { items[$0] == .worker(number) }
                let fresh = (0..<Int.random(in: 0...2, using: &random)).map { _ in
                    items.append(.worker(number))
                    return items.count - 1
                }
                workers[number]?.handedItems = kept + fresh
            }
            endIntended(number, status: 0)
        case .prepared, .bootstrapped, .serving, .ended, .gone:
            break
        }
    }

    /// The worker serves, and says it is ready.
    private mutating func becomeReady(_ number: Int) {
        workers[number]?.life = .serving
        workers[number]?.readiness = .said(at: now, arrives: nil)
        workers[number]?.publishedWhenReady = workers[number]?.published.count ?? 0
        // With nothing to serve it stops by itself once it said it is ready: what it is asked
        // then, it no longer does.
        serveOrEnd(number)
        tellConditions(number)
        // The first generation's word may be on its way a while, its services running.
        if workers[number]?.cause == .start, setup.readyLatency > .zero {
            workers[number]?.readiness = .said(at: now, arrives: now + setup.readyLatency)
            return
        }
        deliver(.ready(generation: number, plugins: snapshot(number)))
    }

    // MARK: An upgrade's candidate

    /// What an upgrade's candidate tells the supervisor at `stage`: facts only.
    func candidateReport(of worker: Worker, _ stage: CandidateReport.Stage) -> CandidateReport {
        var running: [CandidateReport.Plugin] = []
        var failed: [CandidateReport.Plugin] = []
        for (index, published) in worker.published.enumerated() {
            let plugin = CandidateReport.Plugin(
                name: Self.plugins[published.plugin].name, number: PluginNumber(index),
                upgrade: setup.beside.contains(published.plugin) ? .beside : .after)
            let runs = stage == .loaded ? published.loaded : published.state == .running
            if runs { running.append(plugin) } else { failed.append(plugin) }
        }
        return CandidateReport(
            stage: stage, running: running, failed: failed, unusableFiles: worker.unusableAtStart.sorted().map { Self.plugins[$0].file })
    }

    /// By the world's own account, the first plugin (by name) that the generation `worker`
    /// replaces runs, and that `worker` cannot run at `stage` though it found its file: it
    /// did not load, or bootstrap, or the file is no plugin. Its index among what `worker`
    /// published, when it did.
    func lostPlugin(in worker: Worker, at stage: CandidateReport.Stage) -> (name: String, index: Int?)? {
        guard let replaced = worker.replaces.flatMap({ workers[$0] }) else { return nil }
        for name in Set(replaced.told.map(\.name)).sorted() {
            guard let plugin = Self.plugin(named: name) else { continue }
            if let index = worker.published.firstIndex(where: { $0.plugin == plugin }) {
                let runs = stage == .loaded ? worker.published[index].loaded : worker.published[index].state == .running
                if !runs { return (name, index) }
            } else if worker.unusableAtStart.contains(plugin) {
                return (name, nil)
            }
        }
        return nil
    }

    /// By the world's own account ("Upgrades": a candidate that would change nothing gives
    /// up): an upgrade's candidate that would run at `stage` exactly the builds the generation
    /// it replaces told it runs, nothing more and nothing less. With the first plugin, in the
    /// order it published them, that does not run at `stage`, if one does not.
    func changesNothing(_ worker: Worker, at stage: CandidateReport.Stage) -> (failed: (name: String, index: Int)?, Void)? {
        guard worker.cause == .upgrade, let replaced = worker.replaces.flatMap({ workers[$0] }) else { return nil }
        let runs = worker.published.filter { stage == .loaded ? $0.loaded : $0.state == .running }.map(\.build)
        guard runs.count == replaced.told.count, Set(runs) == Set(replaced.told) else { return nil }
        let failed = worker.published.indices.first { index in
            !(stage == .loaded ? worker.published[index].loaded : worker.published[index].state == .running)
        }
        return (failed.map { (Self.plugins[worker.published[$0].plugin].name, $0) }, ())
    }

    /// The supervisor's word to a candidate that waits: checked against what the world knows
    /// it can run and what its manifests say, then carried out.
    private mutating func hear(_ verdict: CandidateVerdict, in number: Int) {
        guard let worker = workers[number] else { return }
        guard let stage = worker.life.awaitedWord else {
            violate("generation \(number) was told \(verdict) while it waited for no word")
            return
        }
        let lost = lostPlugin(in: worker, at: stage)
        let nothingNew = lost == nil ? changesNothing(worker, at: stage) : nil
        if verdict != .abandon, nothingNew != nil {
            violate("generation \(number) was told \(verdict), though it would run only what the generation it replaces runs")
        }
        switch verdict {
        case .abandon:
            if let nothingNew {
                // It ends as the host means; by the truth, the first plugin that did not come is to blame.
                end(number, .exited(1), death: .intended(failedPlugin: nothingNew.failed?.index), intended: 1)
                return
            }
            guard let lost else {
                violate("generation \(number) was told to give up, though it runs every plugin the generation it replaces runs, and something more")
                endIntended(number, status: 1)
                return
            }
            // It ends as the host means; by the truth, the plugin it lost is to blame.
            end(number, .exited(1), death: .intended(failedPlugin: lost.index), intended: 1)
        case .bootstrapBeside, .bootstrapAfter:
            if stage != .loaded { violate("generation \(number) was told to bootstrap once it had bootstrapped") }
            if let lost { violate("generation \(number) was told to bootstrap, though it cannot load plugin \(lost.name), which runs now") }
            let beside = verdict == .bootstrapBeside
            if let expected = worker.bootstrapsBeside, beside != expected {
                violate(expected
                    ? "generation \(number) waits for the serving generation to stop, though every plugin it loaded allows bootstrapping beside it"
                    : "generation \(number) bootstraps beside the serving generation, though a plugin it loaded says \"upgrade\": \"after\"")
            }
            if !beside, !worker.receivedHandOff {
                violate("generation \(number) was told to bootstrap before the supervisor sent it what the generation before handed over")
            }
            workers[number]?.life = .bootstrapping
            workers[number]?.stepStarted = now
            scheduleMilestone(of: number, within: 2...20)
        case .serve:
            if stage != .bootstrapped { violate("generation \(number) was told to serve before it bootstrapped") }
            if let lost { violate("generation \(number) was told to serve, though it cannot run plugin \(lost.name), which runs now") }
            becomeReady(number)
        }
    }

    /// The worker tells what became of every plugin, as its conditions.
    mutating func tellConditions(_ number: Int) {
        guard let worker = workers[number] else { return }
        var conditions = worker.published.filter { $0.state == .running }.map { published in
            let unhealthy = worker.unhealthy.contains(published.plugin)
            return PluginCondition(
                name: Self.plugins[published.plugin].name, state: unhealthy ? .unhealthy : .serving, file: Self.plugins[published.plugin].file,
                version: Self.version(stamp: published.identity.modificationNanoseconds), reason: unhealthy ? "its health check failed: lost its data" : nil,
                build: published.identity)
        }
        let runs = Set(conditions.map(\.name))
        for name in worker.leftOutAtStart.sorted() {
            conditions.append(PluginCondition(name: name, state: .leftOut, file: "plugins/lib\(name).so", reason: "left out"))
        }
        // A held build runs in place of a file whose build its plan left out: both are told.
        workers[number]?.fileBuildsWhenTold = [:]
        for build in worker.broughtBack where runs.contains(build.name) && files.buildOnDisk(build.plugin).map({ worker.excludedAtStart.contains($0.build) }) == true {
            workers[number]?.fileBuildsWhenTold[build.name] = files.buildOnDisk(build.plugin)?.build
            conditions.append(PluginCondition(
                name: build.name, state: .leftOut, file: Self.plugins[build.plugin].file,
                reason: "its build \(files.buildOnDisk(build.plugin)!.build.version) failed; the build that ran before, \(build.version), runs in its place until the file changes"))
        }
        // A plugin whose load or bootstrap failed in this worker, and whose file is still there,
        // is not added, with why (a rescan tries it again).
        var failed: Set<String> = []
        for published in worker.published where published.state == .published && files.paths[published.plugin] != nil {
            let name = Self.plugins[published.plugin].name
            guard !runs.contains(name), !worker.leftOutAtStart.contains(name), failed.insert(name).inserted else { continue }
            conditions.append(PluginCondition(
                name: name, state: .notAdded, file: Self.plugins[published.plugin].file,
                reason: "plugin \(name) (\(Self.plugins[published.plugin].file)) failed to start; not added"))
        }
        // A plugin new to it, which it asked a new generation to bring in: coming in.
        for (plugin, identity) in worker.comingIn.sorted(by: { $0.key < $1.key }) where !runs.contains(Self.plugins[plugin].name) && !failed.contains(Self.plugins[plugin].name) {
            conditions.append(PluginCondition(
                name: Self.plugins[plugin].name, state: .comingIn, file: Self.plugins[plugin].file, version: Self.version(stamp: identity.modificationNanoseconds),
                reason: "a new worker brings it in beside the running plugins", build: identity))
        }
        deliver(.news(generation: number, .plugins(conditions)))
    }

    /// A worker with no service to run, on a host that does not watch, ends by itself.
    private mutating func serveOrEnd(_ number: Int) {
        guard let worker = workers[number], worker.life == .serving, !setup.machine.watching else { return }
        let services = worker.published.contains { $0.state == .running && Self.plugins[$0.plugin].providesService }
        if !services {
            workers[number]?.life = .stopping(byItself: true)
            scheduleMilestone(of: number, within: 1...5)
        }
    }

    /// The supervisor sends generation `to` what generation `from` handed over: each item is
    /// then that worker's, or closed when it is gone. A generation is sent one hand-off, before
    /// it bootstraps; what a generation handed over goes once, to one that bootstraps after it.
    mutating func passOn(from: Int?, to: Int) {
        guard let worker = workers[to] else { return }
        if worker.receivedHandOff { violate("generation \(to) was sent a hand-off twice") }
        let step = worker.life.lastKnownStep
        if step == .bootstrapping || step == .serving || step.isStopping {
            violate("generation \(to) was sent a hand-off after it began to bootstrap")
        }
        workers[to]?.receivedHandOff = true
        if let replaced = worker.replaces, replaced != from, WorldRules.loadsBeside(worker.cause),
            items.contains(.supervisor(from: replaced)) {
            violate("generation \(to) takes over from generation \(replaced) without what \(replaced) handed over (it was sent \(from.map { "generation \($0)'s" } ?? "nothing"))")
        }
        guard let from else { return }
        if from >= to { violate("generation \(to) was sent what generation \(from), not one before it, handed over") }
        if workers[from]?.isAlive == true { violate("generation \(to) was sent what generation \(from) handed over while \(from) still ran") }
        let alive = worker.life.runs
        for item in items.indices where items[item] == .supervisor(from: from) { items[item] = alive ? .worker(to) : .closed }
    }

    // MARK: Requests

    mutating func ask(_ number: Int, _ request: WorkerLink.Request) {
        if case .stop = request { workers[number]?.askedToStop = true }
        if request == .verdict(.bootstrapAfter) { workers[number]?.proceeded = true }
        guard let worker = workers[number], worker.life.runs else { return }
        if case .stop = request, worker.suspended { resume(number) }
        guard let worker = workers[number], !worker.suspended else {
            workers[number]?.pendingRequests.append(request)
            return
        }
        // What hangs is a plugin call: a reload with no plugin to call completes, and a rescan
        // calls a plugin only to add one (see ``rescan(_:)``).
        if worker.hang != nil, request != .rescan, request != .removeGone, request != .reload || worker.published.contains(where: { $0.loaded && $0.state == .running }) {
            // What hangs is the next plugin call: told to bootstrap, the worker's bootstrap
            // never returns and runs past its limit; anything else it never gets to.
            if case .verdict(let verdict) = request, verdict == .bootstrapBeside || verdict == .bootstrapAfter, worker.life == .prepared {
                workers[number]?.life = .bootstrapping
                workers[number]?.stepStarted = now
                workers[number]?.hang = .inPlugin(worker.hungPlugin ?? 0)
                workers[number]?.overrunAt = now + setup.loadTimeout
            }
            // A reload's hooks are plugin calls with a deadline: the first runs past it.
            if request == .reload, worker.life == .serving, worker.overrunAt == nil {
                workers[number]?.hang = .inPlugin(worker.hungPlugin ?? 0)
                workers[number]?.overrunAt = now + setup.loadTimeout
            }
            return
        }
        switch request {
        case .stop:
            switch worker.life {
            case .loading, .bootstrapping:
                // It stops once the step is done.
                break
            case .prepared, .bootstrapped, .serving:
                workers[number]?.life = .stopping(byItself: false)
                scheduleMilestone(of: number, within: 1...30)
            case .stopping, .ended, .gone:
                break
            }
        case .verdict(let verdict):
            hear(verdict, in: number)
        case .reload:
            guard worker.life == .serving else { break }
            deliver(.notification(generation: number, .reloading(monotonicMicroseconds: now.nanoseconds / 1000)))
            // It reads the configuration again: each plugin with a reload hook takes its new
            // settings; Ticker, without one, runs with those it bootstrapped with, and the worker
            // says so of each reload until it starts again.
            worker.configurationRead = configuration
            var awaiting: [String] = []
            for published in worker.published where published.state == .running {
                if Self.plugins[published.plugin].name == "Ticker" {
                    if (worker.settingsOf[published.plugin] ?? 0) < configuration { awaiting.append("Ticker") }
                } else {
                    worker.settingsOf[published.plugin] = configuration
                }
            }
            deliver(.news(generation: number, .warnings(topic: "settings without a reload hook", awaiting.map { name in
                "plugin \(name) (plugins/lib\(name).so) has no reload hook: its changed setting \"interval\" takes effect when it starts again (a restart of the host, or an upgrade of the plugin)"
            })))
            deliver(.news(generation: number, .reload(applied: true, reasons: [])))
            // A reload is of the configuration: what the plan left out stays out, and an upgrade
            // asked once is not asked again.
            rescan(number)
            if workers[number]?.life == .serving {
                tellConditions(number)
                deliver(.ready(generation: number, plugins: snapshot(number)))
            }
        case .rescan:
            guard worker.life == .serving else { break }
            rescan(number)
        case .removeGone:
            // Its hooks have deadlines the worker keeps: a removal completes.
            guard worker.life == .serving else { break }
            removeGone(number)
        }
    }

    /// The worker compares the directory with what it runs: a running plugin's file that
    /// changed, or a plugin file that is new, asks for an upgrade; removed ones are removed.
    mutating func rescan(_ number: Int) {
        guard var worker = workers[number] else { return }
        // Plugins whose file is gone are told of, once: they leave as the supervisor says.
        let gone = goneFiles(of: worker)
        if gone != worker.goneTold {
            worker.goneTold = gone
            workers[number] = worker
            if !gone.isEmpty { deliver(.news(generation: number, .filesGone(gone.sorted()))) }
            guard let again = workers[number] else { return }
            worker = again
        }
        var asked = false
        for published in worker.published where published.state == .running {
            // A running plugin's file turned into junk: the worker keeps the build it loaded.
            guard let inode = files.paths[published.plugin], let file = files.inodes[inode], file.build != .junk else { continue }
            let identity = file.identity
            if identity != published.identity, worker.askedUpgrades.insert(identity).inserted { asked = true }
        }
        // A plugin that does not run, dropped in or back (its file may hold a build this worker
        // loaded before): the worker runs no new code, and asks a new generation for it when
        // each plugin it requires runs or comes with it.
        let runningPlugins = Set(worker.published.filter { $0.state == .running }.map(\.plugin))
        // The file of a plugin that does not run, that could come in: a plugin, not left out
        // by the worker's plan (its exclusions hold for its life).
        func newFile(_ plugin: Int) -> WorldFiles.Inode? {
            guard !runningPlugins.contains(plugin), let inode = files.paths[plugin], let file = files.inodes[inode], file.build != .junk,
                !machineExcluded(plugin, file.identity, in: number)
            else { return nil }
            return file
        }
        func comes(_ plugin: Int) -> Bool {
            runningPlugins.contains(plugin)
                || newFile(plugin) != nil && Self.plugins[plugin].requires.allSatisfy { Self.plugin(named: $0).map(comes) ?? false }
        }
        worker.comingIn = [:]
        for plugin in Self.plugins.indices where !runningPlugins.contains(plugin) && comes(plugin) {
            guard let file = newFile(plugin) else { continue }
            worker.comingIn[plugin] = file.identity
            if worker.askedUpgrades.insert(file.identity).inserted { asked = true }
        }
        workers[number] = worker
        if asked { deliver(.upgradeRequested(generation: number, plugins: snapshot(number))) }
        // As the worker tells its plugins after a rescan: what comes in included.
        tellConditions(number)
    }

    /// The plugins `worker` runs whose files are gone, by name.
    func goneFiles(of worker: Worker) -> Set<String> {
        Set(worker.published.filter { $0.state == .running && files.paths[$0.plugin] == nil }.map { Self.plugins[$0.plugin].name })
    }

    /// The worker removes, in place, the plugins whose files are gone now, with the plugins
    /// that require them, as the supervisor said.
    mutating func removeGone(_ number: Int) {
        guard let worker = workers[number] else { return }
        worker.goneTold = []
        let running = worker.published.indices.filter { worker.published[$0].state == .running }
        let gone = goneFiles(of: worker)
        let leaving = gone.union(WorldRules.dependents(of: gone, among: running.map { worker.published[$0].plugin }))
        for index in running where leaving.contains(Self.plugins[worker.published[index].plugin].name) {
            worker.published[index].state = .removed
        }
        workers[number] = worker
        guard !leaving.isEmpty else { return }
        // Each plugin removed is announced, with what runs now.
        tellConditions(number)
        for name in leaving.sorted() { deliver(.notification(generation: number, .status("Removed plugin \(name)"))) }
    }

    /// Whether worker `number`'s plan left out this build of `plugin` (a worker remembers
    /// its plan's exclusions for its life).
    private func machineExcluded(_ plugin: Int, _ identity: FileIdentity, in number: Int) -> Bool {
        workers[number]?.excludedAtStart.contains(WorldTruth.Build(plugin: plugin, identity: identity)) == true
    }

    mutating func resume(_ number: Int) {
        workers[number]?.suspension = nil
        deliver(.resumed(generation: number, process: ProcessID(rawValue: Int32(number))))
        let pending = workers[number]?.pendingRequests ?? []
        workers[number]?.pendingRequests = []
        if workers[number]?.milestoneAt == nil, let life = workers[number]?.life, life.isInPluginStep || life.isStopping,
            workers[number]?.hang == nil {
            workers[number]?.milestoneAt = now + .milliseconds(1)
        }
        for request in pending { ask(number, request) }
        // The files.copies of signals to the whole service it got while stopped, passed on now.
        for held in signals.release(in: number) where workers[number]?.life.hasEnded != true {
            deliverCopy(of: held.signal, from: .worker(generation: number), send: held.send)
        }
    }

    // MARK: Ending

    /// A worker dies as `death` says.
    mutating func die(_ number: Int, _ death: FaultOperation.Death) {
        guard let worker = workers[number], worker.life.runs else { return }
        let running = running(in: worker)
        let any = worker.published.indices.randomElement(using: &random)
        switch death {
        case .crashNamingPlugin:
            end(number, .signalled(.segmentationFault), death: .crash(culprit: any), crash: WorkerRecord(
                signal: Signal.segmentationFault.rawValue, culprit: any.map(PluginNumber.init), evidence: .faultingCode, phase: .run,
                thread: .pluginCode), running: running)
        case .crashNamingNobody:
            end(number, .signalled(.segmentationFault), death: .crash(culprit: nil),
                crash: WorkerRecord(signal: Signal.segmentationFault.rawValue, thread: .notTheHosts), running: running)
        case .exitCall:
            guard let any else {
                end(number, .exited(0), death: .underscoreExit, running: running)
                return
            }
            end(number, .exited(70), death: .exitCall(culprit: any),
                exitCall: WorkerRecord(status: 0, culprit: PluginNumber(any), evidence: .stack, phase: .run, thread: .pluginCode), running: running)
        case .underscoreExit:
            end(number, .exited(0), death: .underscoreExit, running: running)
        case .killedWhileIdle:
            end(number, .signalled(.kill), death: .killedFromOutside, running: running)
        case .killedInShortCall:
            end(number, .signalled(.kill), death: .killedFromOutside,
                running: running + (any.map { [RunningCode(plugin: PluginNumber($0), phase: .health)] } ?? []))
        }
    }

    /// The supervisor sent SIGKILL: why, as the world knows it.
    mutating func killedBySupervisor(_ number: Int) {
        guard let worker = workers[number], worker.life.runs else { return }
        guard let kill = worker.killedBecause else { return }
        end(number, .signalled(.kill), death: .killedBySupervisor(kill), running: worker.suspended ? worker.runningWhenSuspended : running(in: worker))
    }

    mutating func endIntended(_ number: Int, status: Int32) {
        end(number, .exited(status), death: .intended(failedPlugin: workers[number]?.failedPlugin?.index), intended: status)
    }

    /// The worker ends now; the supervisor sees it a moment later.
    mutating func end(
        _ number: Int, _ termination: Termination, death: WorldTruth.Death, intended: Int32? = nil, crash: WorkerRecord? = nil,
        exitCall: WorkerRecord? = nil, running: [RunningCode] = []
    ) {
        guard let worker = workers[number], !worker.life.hasEnded else { return }
        // "Plugins added and removed while running": a serving worker never ends because of a
        // plugin it had not loaded when it became ready.
        let culprit: Int? = switch death {
        case .crash(let culprit): culprit
        case .exitCall(let culprit): culprit
        case .intended(let failed): failed
        case .killedBySupervisor(.overran(let owner)): owner
        case .underscoreExit, .killedFromOutside, .killedBySupervisor: nil
        }
        if worker.saidReady, let culprit, culprit >= worker.publishedWhenReady {
            violate("generation \(number) served and ends because of its plugin #\(culprit), which it had not loaded when it became ready")
        }
        let rewritten = worker.published.indices.filter { index in
            let published = worker.published[index]
            guard published.loaded, let inode = files.paths[published.plugin], inode == published.inode,
                let now = files.inodes[inode]?.identity else { return false }
            return !now.hasSameContents(as: published.identity)
        }.map(PluginNumber.init)
        let phase: WorkerPhase = switch worker.life {
        case .loading: .loading
        case .prepared: .prepared
        case .bootstrapped: .bootstrapped
        case .bootstrapping: .bootstrapping
        case .serving: .running
        case .stopping, .ended, .gone: .stopping
        }
        let evidence = EndingEvidence(
            termination: termination, intendedExit: intended, crash: crash, exitCall: exitCall, running: running, workerPhase: phase,
            failedPlugin: worker.failedPlugin, plugins: snapshot(number), rewrittenInPlace: rewritten, stall: nil)
        workers[number]?.life = .ended(
            WorldWorkerEnd(termination: termination, evidence: evidence, death: death, running: running, rewrittenUnderIt: intended == nil && !rewritten.isEmpty,
                step: worker.life),
            heardAt: now + .milliseconds(1))
        workers[number]?.milestoneAt = nil
        // A word of its readiness not sent yet never is.
        if let readiness = workers[number]?.readiness { workers[number]?.readiness = readiness.noLongerDue() }
        workers[number]?.overrunAt = nil
    }

    func snapshot(_ number: Int) -> [PublishedPlugin] {
        guard let worker = workers[number] else { return [] }
        return worker.published.map { published in
            let plugin = Self.plugins[published.plugin]
            return PublishedPlugin(
                name: plugin.name, file: plugin.file, version: Self.version(stamp: published.identity.modificationNanoseconds),
                identity: published.identity, requires: plugin.requires, state: published.state,
                providesService: plugin.providesService && published.state == .running)
        }
    }

    /// The worker an operation hits.
    func worker(_ target: FaultOperation.Target) -> Int? {
        let alive = workers.values.filter { $0.life.runs }.map(\.number).sorted()
        switch target {
        case .current: return liveServingWorker.flatMap { alive.contains($0) ? $0 : nil } ?? alive.last
        case .newest: return alive.last
        case .oldest: return alive.first
        }
    }

    // MARK: Files

    /// The worker reaches its next milestone after a moment within `range` milliseconds.
    mutating func scheduleMilestone(of number: Int, within range: ClosedRange<Int>) {
        let at = now + jitter(milliseconds: range)
        workers[number]?.milestoneAt = at
    }

    mutating func jitter(milliseconds range: ClosedRange<Int>) -> Duration {
        .milliseconds(Int.random(in: range, using: &random))
    }
}
