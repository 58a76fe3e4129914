/// The parent process of a run: it forks worker generations, which load and run the
/// plugins, and keeps for itself everything that must work whatever plugin code does to a
/// worker: the signals, the deadlines, the host's output, systemd's notifications, the
/// sockets plugins serve on, the exit status and the clean-up.
///
/// ```
///  supervisor ── fork ──▶ worker generation (own process group): survey, load, bootstrap, run, stop
///      │   ◀── supervision page: steps and deadlines, crash and exit records, output, readiness ──┘
///      │   ──▶ requests: stop (SIGINT, SIGTERM), reload (SIGHUP), rescan (--watch), a candidate's verdict
///      └─ decisions: one pure state machine (SupervisionMachine); this is its driver
/// ```
///
/// The supervisor runs no plugin code and loads no plugin, so nothing a plugin does to a
/// worker's signal handlers, masks, file descriptors, locks or threads can keep it from
/// ending a worker in time, naming the culprit, or starting the next one. It waits in
/// `poll` on a pipe its own signal handlers write to, and writes output only when `poll`
/// says a descriptor can take it, so a reader that stops reading cannot stall it.
///
/// It is a thin driver: it waits for input, turns what it saw into
/// ``SupervisionEvent``s, has the ``SupervisionMachine`` decide, and performs the
/// ``SupervisionAction``s it returns. It decides nothing itself.
struct Supervisor {
    /// What a run asks of its supervisor.
    struct Configuration {
        /// What supervision decides by: restarts, limits, deadlines.
        var machine = SupervisionMachine.Configuration()
        /// A worker's status after a crash or a plugin's `exit()`.
        var crashStatus = ExitStatus.crashed
        /// Where to send systemd's notifications, and how often its watchdog wants to hear
        /// from the host.
        var systemd = SystemdService(socket: nil, watchdog: nil)
        /// Directories whose `*.so` files the serving worker rescans when they change.
        var watching: [String] = []
        /// The sockets plugins serve on, held for the life of the host.
        var sockets: [NamedSocket] = []
        /// The control socket operators ask the host on, and the metrics endpoint.
        var control: ControlSocket?
        var metrics: NamedSocket?
        /// The plugin directories, as the operator named them.
        var directories: [String] = []
        /// How workers search them, which an operator's restart is checked against first.
        var search = SearchOptions(directories: [])
        /// Where the record of what the host proved is kept for these directories; `nil` when
        /// there is no state directory.
        var record: RecordFile?
        /// The arguments the host was started with, which a new host of a host upgrade is
        /// started with too.
        var arguments: [String] = []
        /// On a new host: the host before, which started it to take its place.
        var hostBefore: HostBefore?
    }

    private var configuration: Configuration
    private let run: @Sendable (WorkerLink, WorkerPlan) -> Never
    private let signals: (readEnd: FileDescriptor, handled: [Signal])
    /// Children the host had before any plugin ran (a shell's output reader): never ended.
    private let inheritedChildren: Set<ProcessID>
    /// The soft limit of open descriptors the host started with.
    private let descriptorLimit: UInt64

    private var machine: SupervisionMachine
    /// The workers not yet reaped, by generation.
    private var workers: [Int: WorkerProcess] = [:]
    /// The processes of generations reaped, until what they left is ended.
    private var reaped: [Int: ProcessID] = [:]
    private var output = PendingOutput()
    private var builds = HeldBuilds()
    /// What ended generations handed over, until the machine passes it on or lets it go.
    private var handOffs: [Int: HandOffPackage] = [:]
    /// The plugin directories watched for changes.
    private var directories: DirectoryWatch?
    /// Events seen while waiting, handled at the next turn.
    private var waiting: [SupervisionEvent] = []
    /// The control socket's and the metrics endpoint's connections.
    private var control: ControlServer
    /// Writes the record outside the loop; `nil` without a state directory.
    private var recordWriter: RecordWriter?
    /// How many events the machine took: with the process's processor time, what an event costs.
    private var eventsTaken = 0
    /// The plugin-host binary this supervisor runs, as it was when it started.
    private var binary = HostBinary.running()
    /// The new host of a host upgrade under way, until it ends.
    private var newHost: NewHost?
    /// Whether operators are answered here: not while a new host answers on the same socket.
    private var answeringOperators = true
    /// Whether the sockets' files stay when the host ends: another host serves on them.
    private var leavingSockets = false
    /// Whether the new host's end of the channel closed: it ends, and is reaped soon.
    private var newHostLinkClosed = false

    /// Starts the first worker generation and supervises until the host ends, then exits
    /// with the run's status.
    static func start(_ configuration: Configuration, worker run: @escaping @Sendable (WorkerLink, WorkerPlan) -> Never) -> Never {
        let handled: [Signal] = [.interrupt, .terminate, .hangUp, .childEnded, .wake, .upgradeHost]
        let readEnd: FileDescriptor
        do {
            readEnd = try SignalPipe.install(for: handled)
        } catch {
            StandardStreams.write("plugin-host: error: cannot start the supervisor: \(error)\n", to: 2)
            for socket in configuration.sockets { socket.close() }
            ProcessControl.exitImmediately(ExitStatus.failure.rawValue)
        }
        let inherited = Set(ProcessControl.children())
        ProcessControl.adoptOrphans()
        var supervisor = Supervisor(configuration, signals: (readEnd, handled), inheritedChildren: inherited, run: run)
        supervisor.supervise()
    }

    private init(
        _ configuration: Configuration, signals: (readEnd: FileDescriptor, handled: [Signal]), inheritedChildren: Set<ProcessID>,
        run: @escaping @Sendable (WorkerLink, WorkerPlan) -> Never
    ) {
        self.configuration = configuration
        self.signals = signals
        self.inheritedChildren = inheritedChildren
        self.run = run
        descriptorLimit = DescriptorLimit.current.soft
        directories = configuration.watching.isEmpty ? nil : DirectoryWatch(directories: configuration.watching)
        control = ControlServer(socket: configuration.control, metrics: configuration.metrics, owner: currentUser)
        var settings = configuration.machine
        settings.watching = !configuration.watching.isEmpty
        settings.watchdog = configuration.systemd.watchdog
        let copies = configuration.record.map(BuildCopies.init(beside:))
        settings.record = configuration.record?.path
        var record = BuildRecord()
        // A record of these directories kept under another name (another spelling of them, by a
        // host that named records by the text of --dir) is this one: taken over, once.
        if let file = configuration.record, let earlier = file.earlier() {
            do {
                try file.takeOver(earlier)
                output.append(Array("plugin-host: note: took over the record of these directories kept at \(earlier) (named after another spelling of them); it is kept at \(file.path) from now on\n".utf8),
                              to: .standardError, acknowledging: nil)
            } catch {
                output.append(Array("plugin-host: warning: cannot take over the record of these directories kept at \(earlier): \(error); starting without it\n".utf8),
                              to: .standardError, acknowledging: nil)
            }
        }
        switch configuration.record?.readAfterWrites() {
        case .record(let kept)?:
            record = kept.forgettingChangedFiles { _, file, identity in
                (try? FileStatus(path: file))?.identity.hasSameContents(as: identity) == true
            }
            // A permanent build can run only from its copy, held from now on.
            var lost: [String] = []
            var usable: [BuildRecord.Build] = []
            for build in record.permanent {
                guard let copy = build.copy, let file = copies?.open(build) else {
                    if build.copy != nil { lost.append("\(build.name) \(build.version)") }
                    continue
                }
                builds.hold(build.published, fromCopy: file, identity: copy)
                usable.append(build)
            }
            record.permanent = usable
            if !lost.isEmpty {
                output.append(Array("plugin-host: warning: the copies the record keeps of \(lost.joined(separator: ", ")) are gone or changed (\(copies?.directory ?? "")); they cannot run in place of another build\n".utf8),
                              to: .standardError, acknowledging: nil)
            }
        case .damaged(let why)?:
            output.append(Array("plugin-host: warning: the record at \(configuration.record?.path ?? "") is damaged (\(why)); ignoring it: what it held is forgotten\n".utf8),
                          to: .standardError, acknowledging: nil)
        case .unreadable(let problem)?:
            output.append(Array("plugin-host: warning: cannot read the record at \(configuration.record?.path ?? ""): \(problem); starting without what it holds\n".utf8),
                          to: .standardError, acknowledging: nil)
        case .none?, nil:
            break
        }
        if let file = configuration.record, let copies {
            recordWriter = RecordWriter(file: file, copies: copies, written: record, signals: signals)
        }
        // The builds the host before held, whose files came last with its hello.
        if let before = configuration.hostBefore {
            let files = before.descriptors.suffix(before.hello.held.count)
            for (held, descriptor) in zip(before.hello.held, files) {
                guard let build = held.published, let identity = held.heldIdentity else { continue }
                let path = held.fromCopy ? "/proc/self/fd/\(descriptor)" : held.file
                builds.adopt(build, file: ReadOnlyFile(adopting: descriptor, path: path), identity: identity, fromCopy: held.fromCopy)
            }
        }
        let (machine, actions) = if let before = configuration.hostBefore {
            SupervisionMachine.takingOver(settings, record: record, from: ProcessID(rawValue: before.hello.hostBefore), before.hello.plan, at: .now)
        } else {
            SupervisionMachine.starting(settings, record: record, at: .now)
        }
        self.machine = machine
        waiting = perform(actions)
    }

    // MARK: The loop

    private mutating func supervise() -> Never {
        while true {
            for worker in workers.values { worker.page.supervisorWakesAt = MonotonicInstant(nanoseconds: 0) }
            var events = waiting
            waiting = []
            events += SignalPipe.received(on: signals.readEnd).map { SupervisionEvent.signal($0, from: .supervisor) }
            events += observeWorkers()
            events.append(.tick)
            for event in events { handle(event) }
            wait(until: nextWake())
        }
    }

    /// Has the machine decide on `event`, performs what it decided, and so on for the events
    /// that performing it gave (the facts it found: a worker started or not, the builds it
    /// holds, what the files on disk would break).
    private mutating func handle(_ event: SupervisionEvent) {
        var queue = [event]
        while !queue.isEmpty {
            eventsTaken += 1
            queue += perform(machine.handle(queue.removeFirst(), at: .now))
        }
    }

    // MARK: Turning what happened into events

    /// What each live worker did since the last look: signals it forwarded, its messages,
    /// whether it asks for an upgrade, its health, its deadlines, and
    /// whether it stopped, resumed or ended.
    private mutating func observeWorkers() -> [SupervisionEvent] {
        var events: [SupervisionEvent] = []
        var ended: [ProcessID: Termination] = [:]
        for worker in workers.values {
            while let change = ProcessControl.change(of: worker.process) {
                switch change {
                case .ended(let termination):
                    ended[worker.process] = termination
                case .stopped(let signal):
                    worker.suspended = true
                    events.append(.suspended(generation: worker.generation, process: worker.process, by: signal, running: worker.runningActivities))
                case .continued:
                    worker.suspended = false
                    events.append(.resumed(generation: worker.generation, process: worker.process))
                }
                if ended[worker.process] != nil { break }
            }
        }
        // Orphans of ended workers end too; a worker may end between the two looks; so does a
        // record's writer.
        for (process, termination) in ProcessControl.reapAll() {
            if process == recordWriter?.process {
                events += recordWriter?.ended(process, termination) ?? []
            } else if let host = newHost, process == host.process {
                host.link.channel.close()
                newHost = nil
                events.append(.newHostFailed(.newHostEnded(termination)))
            } else {
                ended[process] = termination
            }
        }
        let now = MonotonicInstant.now
        for worker in workers.values.sorted(by: { $0.generation < $1.generation }) {
            let page = worker.page
            let forwarded = page.forwarded
            while forwarded.stops > worker.forwardedStops {
                worker.forwardedStops += 1
                events.append(.signal(forwarded.stopSignal, from: .worker(generation: worker.generation)))
            }
            while forwarded.reloads > worker.forwardedReloads {
                worker.forwardedReloads += 1
                events.append(.signal(.hangUp, from: .worker(generation: worker.generation)))
            }
            events += takeMessage(of: worker)
            let requests = page.count(.upgrade)
            if requests > worker.upgradeRequests {
                worker.upgradeRequests = requests
                events.append(.upgradeRequested(generation: worker.generation, plugins: worker.plugins))
            }
            let health = page.healthyUntil
            if health != worker.healthReported {
                worker.healthReported = health
                events.append(.health(generation: worker.generation, goodUntil: health))
            }
            if let termination = ended[worker.process] {
                events += takeMessage(of: worker)
                // What it handed over as it stopped waits in the channel, its descriptors in flight.
                if let channel = worker.handOff {
                    if let (bytes, descriptors) = channel.receive(waitingUpTo: nil) {
                        let package = HandOffPackage(bytes: bytes, descriptors: descriptors)
                        handOffs[worker.generation]?.close()
                        handOffs[worker.generation] = package
                        events.append(.handedOver(generation: worker.generation, items: package.labels.map(\.description)))
                    }
                    channel.close()
                    worker.handOff = nil
                }
                events.append(.ended(generation: worker.generation, worker.evidence(of: termination)))
                workers[worker.generation] = nil
                reaped[worker.generation] = worker.process
                page.unmap()
            } else if !worker.killed, !worker.overrunReported, let (owner, step) = worker.overrun(at: now) {
                worker.overrunReported = true
                events.append(.overran(generation: worker.generation, Overrun(
                    owner: owner, phase: step.phase, policy: step.policy,
                    allowed: step.deadline - step.started, stall: owner == nil ? stall(of: worker) : nil)))
            }
        }
        return events
    }

    /// Takes the worker's waiting message, if any: text is queued for writing (the worker
    /// waits until it is written), a notification becomes an event.
    private mutating func takeMessage(of worker: WorkerProcess) -> [SupervisionEvent] {
        guard !output.holds(worker.generation), let (number, message) = worker.page.pendingMessage(after: worker.messagesTaken)
        else { return [] }
        worker.messagesTaken = number
        switch message {
        case .output(let bytes):
            output.append(bytes, to: .standardOutput, acknowledging: .init(generation: worker.generation, message: number))
            return []
        case .error(let bytes):
            output.append(bytes, to: .standardError, acknowledging: .init(generation: worker.generation, message: number))
            return []
        case .notification(.ready):
            // What the plugins' state is, systemd hears from the supervisor's own record.
            worker.page.acknowledge(number)
            return [.ready(generation: worker.generation, plugins: worker.plugins)]
        case .notification(let notification):
            worker.page.acknowledge(number)
            return [.notification(generation: worker.generation, notification)]
        case .news(let bytes):
            worker.page.acknowledge(number)
            switch WorkerNews(encoded: bytes) {
            case .candidate(let report)?: return [.candidate(generation: worker.generation, report, plugins: worker.plugins)]
            case let news?: return [.news(generation: worker.generation, news)]
            case nil: return []
            }
        }
    }

    /// What holds up a worker's driving thread, as far as can be told from outside.
    private func stall(of worker: WorkerProcess) -> Stall {
        if output.holds(worker.generation) { return .outputNotRead }
        guard let stall = WorkerRecords.askStall(of: worker.process, page: worker.page), let culprit = stall.culprit else { return .hostCode }
        return .pluginCode(culprit)
    }

    // MARK: Performing what the machine decided

    /// Performs `actions` in order.
    ///
    /// - Returns: The events performing them gave (a worker that could not be started).
    private mutating func perform(_ actions: [SupervisionAction]) -> [SupervisionEvent] {
        var events: [SupervisionEvent] = []
        // The followers of one change are shown one status: its document is written once.
        var written: (status: HostStatus, document: StatusDocument)?
        for action in actions {
            switch action {
            case .start(let plan):
                events.append(start(plan))
            case .ask(let generation, let request):
                workers[generation]?.ask(request)
            case .kill(let generation, let probing):
                guard let worker = workers[generation] else { break }
                if probing { worker.stall = stall(of: worker) }
                worker.kill()
            case .endProcesses(let generation):
                guard let process = reaped.removeValue(forKey: generation) else { break }
                sayEnded(ProcessControl.endProcesses(inGroup: process, orphansExcept: ownChildren))
            case .say(let announcement):
                output.append(Array((announcement.line + "\n").utf8), to: .standardError, acknowledging: nil)
            case .notify(let notice):
                configuration.systemd.notify(notice)
            case .pingWatchdog:
                configuration.systemd.pingWatchdog()
            case .hold(let asked):
                let kept = recordWriter?.written.permanent ?? []
                let held = builds.hold(asked, loadedBy: workers.values.map(\.process)) { [copies = recordWriter?.copies] build in
                    guard let entry = kept.first(where: { $0.published.isSameBuild(as: build) }), let identity = entry.copy,
                        let file = copies?.open(entry)
                    else { return nil }
                    return (file, identity)
                }
                events.append(.holding(held, asked: asked))
            case .handOver(let from, let to):
                let package = from.flatMap { handOffs.removeValue(forKey: $0) } ?? .empty
                if let channel = workers[to]?.handOff, !channel.send(package.bytes, descriptors: package.descriptors) {
                    output.append(Array("plugin-host: warning: what generation \(from.map(String.init) ?? "-") handed over could not be passed on to generation \(to); it is closed\n".utf8),
                                  to: .standardError, acknowledging: nil)
                }
                package.close()
            case .discardHandOff(let from):
                handOffs.removeValue(forKey: from)?.close()
            case .keepRecord(let record, let number):
                events += recordWriter?.keep(record, number: number, held: builds) ?? []
            case .checkRestart(let client, let selection, let running):
                let problems = RestartCheck.versionProblems(in: configuration.search, builds: selection.said, running: running)
                events.append(.restartChecked(client: client, problems: problems))
            case .answer(let client, let answer):
                var shown: StatusDocument?
                if let status = answer.carriedStatus {
                    if written?.status != status { written = (status, document(status)) }
                    shown = written?.document
                }
                events += control.send(answer, to: client, document: shown, at: .now)
            case .checkHostBinary:
                events.append(.hostBinaryChecked(problem: binary.problemAsNewHost()))
            case .startNewHost(let plan):
                events.append(startNewHost(plan))
            case .handOverToNewHost(let from):
                _ = newHost?.link.handOver(handOffs[from] ?? .empty)
            case .endNewHost:
                if let host = newHost { _ = ProcessControl.send(.terminate, to: host.process) }
            case .tellHostBefore(let word):
                _ = configuration.hostBefore?.link.tell(word)
            case .answerOperators(let answering):
                answeringOperators = answering
            case .leaveSocketsInPlace:
                leavingSockets = true
            case .exit(let status, _):
                finish(status)
            }
        }
        return events
    }

    /// Forks a generation with the builds and sockets it needs.
    ///
    /// - Returns: That it started, with the held builds it was handed; or why it could not.
    private mutating func start(_ decided: GenerationPlan) -> SupervisionEvent {
        var plan = WorkerPlan(
            number: decided.number, builds: decided.builds.said, waitsBeforeBootstrap: decided.waitsBeforeBootstrap, strictness: decided.strictness)
        let rewritten = plan.builds.substitutes.filter(builds.wasRewritten)
        plan.builds.substitutes = plan.builds.substitutes.compactMap(builds.locate)
        plan.sockets = Dictionary(configuration.sockets.map { ($0.name, $0.descriptor) }, uniquingKeysWith: { first, _ in first })
        plan.systemdListens = configuration.systemd.socket != nil
        // The worker keeps none of the supervisor's own descriptors: a plugin must not
        // accept on the control socket, nor answer its clients.
        var closing = [directories?.descriptor, configuration.systemd.socket?.descriptor].compactMap { $0 } + control.descriptors
        // Nor the channels of other generations, nor what they handed over, nor the record's writer's.
        closing += workers.values.compactMap { $0.handOff.map { FileDescriptor(rawValue: $0.descriptor) } }
        if let writer = recordWriter?.interest?.descriptor { closing.append(writer) }
        if let link = hostLink { closing.append(link.descriptor) }
        closing += handOffs.values.flatMap { $0.descriptors.map(FileDescriptor.init(rawValue:)) }
        let channel = try? DescriptorChannel.pair()
        if let channel {
            plan.handOff = channel.1.descriptor
            closing.append(FileDescriptor(rawValue: channel.0.descriptor))
        }
        defer { channel?.1.close() }
        do {
            let worker = try WorkerProcess.start(
                plan, signals: signals, closing: closing, descriptorLimit: descriptorLimit,
                crashStatus: configuration.crashStatus, run: run)
            worker.handOff = channel?.0
            workers[plan.number] = worker
            let used = plan.builds.substitutes.filter { substitute in
                (try? FileStatus(path: substitute.file)).map { plan.builds.excludes(substitute.name, $0.identity) } ?? false
            }
            return .started(generation: plan.number, substitutes: used, rewritten: rewritten)
        } catch {
            channel?.0.close()
            return .couldNotStart(generation: plan.number, reason: "\(error)")
        }
    }

    /// Starts the file at the host's path as the new host of a host upgrade, handing it the
    /// sockets and what `plan` says.
    private mutating func startNewHost(_ plan: NewHostPlan) -> SupervisionEvent {
        var hello = TakeOverHello(
            hostBefore: ProcessControl.current.rawValue, generationBefore: plan.generationBefore, firstGeneration: plan.firstGeneration,
            running: plan.running, sockets: [], control: configuration.control?.path, metrics: nil,
            notifySocket: configuration.systemd.address, watchdogMicroseconds: configuration.systemd.watchdog.map { Int64($0 / .microseconds(1)) })
        var descriptors: [Int32] = []
        for socket in configuration.sockets {
            hello.sockets.append(TakeOverHello.Socket(name: socket.name, address: socket.address, createdFile: socket.createdFile))
            descriptors.append(socket.descriptor)
        }
        if let control = configuration.control { descriptors.append(control.descriptor.rawValue) }
        if let metrics = configuration.metrics {
            hello.metrics = TakeOverHello.Socket(name: metrics.name, address: metrics.address, createdFile: metrics.createdFile)
            descriptors.append(metrics.descriptor)
        }
        for entry in builds.all {
            guard let identity = entry.build.identity else { continue }
            hello.held.append(TakeOverHello.HeldBuild(entry.build, buildIdentity: identity, heldIdentity: entry.identity, fromCopy: entry.fromCopy))
            descriptors.append(entry.file.descriptor)
        }
        do {
            let host = try NewHost.start(binary.path, arguments: configuration.arguments, hello: hello, descriptors: descriptors)
            newHost = host
            newHostLinkClosed = false
            return .newHostStarted(host.process)
        } catch {
            return .newHostFailed(.couldNotStart(error.description))
        }
    }

    /// The channel of a host upgrade, on either end.
    private var hostLink: HostChannel? {
        if let newHost { return newHostLinkClosed ? nil : newHost.link }
        return configuration.hostBefore?.link
    }

    /// The children that are no orphan of a generation's: those the host had before any plugin
    /// ran, the live workers, a record's writer, and a new host.
    private var ownChildren: Set<ProcessID> {
        inheritedChildren.union(workers.values.map(\.process)).union(recordWriter?.process.map { [$0] } ?? [])
            .union(newHost.map { [$0.process] } ?? [])
    }

    /// The status document of `status`, with what the driver sees now.
    private mutating func document(_ status: HostStatus) -> StatusDocument {
        var facts = StatusDocument.Facts(
            process: ProcessControl.current, wallNow: WallClock.secondsSinceEpoch, monotonicNow: .now)
        facts.supervisorCPUSeconds = ProcessControl.processorSeconds
        facts.supervisorEvents = eventsTaken
        facts.workers = workers.mapValues(\.process)
        facts.sockets = configuration.sockets.map { ($0.name, $0.address) }
        facts.control = configuration.control?.path
        facts.directories = configuration.directories
        facts.record = configuration.record?.path
        let onDisk = binary.onDisk()
        facts.host = StatusDocument.Host(
            path: binary.path, version: binary.version, buildID: binary.buildID, fileChanged: onDisk.changed, fileVersion: onDisk.says?.version)
        facts.buildIDs = builds.buildIDs(of: status.plugins.compactMap { plugin in plugin.build.map { ($0, plugin.file) } })
        for plugin in status.plugins {
            guard let file = plugin.file, facts.onDisk[file] == nil else { continue }
            facts.onDisk[file] = .some((try? FileStatus(path: file))?.identity)
        }
        return StatusDocument(status: status, facts: facts)
    }

    private mutating func sayEnded(_ processes: [ProcessID]) {
        guard !processes.isEmpty else { return }
        output.append(Array((
            "plugin-host: note: ended \(processes.count) process\(processes.count == 1 ? "" : "es") that plugins started and "
                + "left running (\(processes.map(\.description).joined(separator: ", ")))\n").utf8),
            to: .standardError, acknowledging: nil)
    }

    /// Ends what is left, removes the sockets' files, writes what is waiting, and exits
    /// with `status`.
    private mutating func finish(_ status: ExitStatus) -> Never {
        let budget = machine.configuration.ending
        // What the host proved is written before it ends, for as long as the budget allows.
        if let unwritten = recordWriter?.finish(within: budget.record) {
            output.append(Array("plugin-host: warning: the record at \(configuration.record?.path ?? "") is not all written: \(unwritten) (its state directory does not answer)\n".utf8),
                          to: .standardError, acknowledging: nil)
        }
        for worker in workers.values { worker.kill() }
        let deadline = MonotonicInstant.now + budget.reap
        while !workers.isEmpty, MonotonicInstant.now < deadline {
            for (process, _) in ProcessControl.reapAll() {
                guard let worker = workers.values.first(where: { $0.process == process }) else { continue }
                workers[worker.generation] = nil
                reaped[worker.generation] = process
            }
            ProcessControl.sleep(nanoseconds: 2_000_000)
        }
        for process in reaped.values { sayEnded(ProcessControl.endProcesses(inGroup: process, orphansExcept: nil)) }
        sayEnded(ProcessControl.endProcesses(inGroup: nil, orphansExcept: ownChildren))
        for socket in configuration.sockets { socket.close(removingFile: !leavingSockets) }
        control.flush(until: .now + budget.answers)
        control.close(removingFiles: !leavingSockets)
        output.drain(givingUpAfter: budget.outputStall)
        ProcessControl.exitImmediately(status.rawValue)
    }

    // MARK: Waiting

    /// When the loop must wake by itself next: the machine's next deadline, the limit of a
    /// worker's step, a moment after a worker was killed (to reap it).
    private func nextWake() -> MonotonicInstant? {
        var next = min(machine.nextDeadline ?? .distantFuture, control.nextDeadline ?? .distantFuture)
        for worker in workers.values {
            if worker.killed {
                next = min(next, .now + .milliseconds(100))
            } else if !worker.overrunReported, let limit = worker.nextStepLimit {
                next = min(next, limit)
            }
        }
        return next == .distantFuture ? nil : next
    }

    /// Publishes when the loop wakes next, so that a worker posting an earlier deadline
    /// signals it, then waits for a signal, for output to be writable, for a directory to
    /// change, or for that time.
    private mutating func wait(until wake: MonotonicInstant?) {
        for worker in workers.values { worker.page.supervisorWakesAt = wake ?? .distantFuture }
        // A step posted while the wake time was being worked out is seen now, or its poster
        // saw the new wake time and signalled.
        if let again = nextWake(), again < (wake ?? .distantFuture) {
            for worker in workers.values { worker.page.supervisorWakesAt = MonotonicInstant(nanoseconds: 0) }
            return
        }
        var interests = [Poll.Interest(descriptor: signals.readEnd, writing: false)]
        let outputAt = output.descriptor.map { descriptor in
            interests.append(Poll.Interest(descriptor: descriptor, writing: true))
            return interests.count - 1
        }
        let directoriesAt = directories.map { watch in
            interests.append(Poll.Interest(descriptor: watch.descriptor, writing: false))
            return interests.count - 1
        }
        let writerAt = recordWriter?.interest.map { writer in
            interests.append(Poll.Interest(descriptor: writer.descriptor, writing: false))
            if writer.writing { interests.append(Poll.Interest(descriptor: writer.descriptor, writing: true)) }
            return interests.count - 1
        }
        let linkAt = hostLink.map { link in
            interests.append(Poll.Interest(descriptor: link.descriptor, writing: false))
            return interests.count - 1
        }
        let controlAt = interests.count
        interests += control.interests(accepting: answeringOperators)
        let ready = Poll.wait(for: interests, timeout: wake.map { max(.zero, $0 - .now) })
        let now = MonotonicInstant.now
        if let linkAt, ready[linkAt], let link = hostLink {
            let (words, closed) = link.receive()
            for (word, package) in words {
                if let package, let before = configuration.hostBefore {
                    handOffs[before.hello.generationBefore]?.close()
                    handOffs[before.hello.generationBefore] = package
                }
                waiting.append(.hostSaid(word))
            }
            if closed, newHost != nil { newHostLinkClosed = true }
            if closed, configuration.hostBefore != nil {
                // Closed once; the host before's end is an event once.
                configuration.hostBefore?.link.channel.close()
                configuration.hostBefore = nil
                waiting.append(.hostBeforeEnded)
            }
        }
        let (requests, log) = control.serve(Array(ready[controlAt...]), accepting: answeringOperators, at: now)
        waiting += requests + control.expire(at: now)
        for line in log { output.append(Array((line + "\n").utf8), to: .standardError, acknowledging: nil) }
        if let outputAt, ready[outputAt], let written = output.writeHead() {
            workers[written.generation]?.page.acknowledge(written.message)
        }
        if let directoriesAt, ready[directoriesAt], directories?.takeChanges() == true {
            waiting.append(.directoryChanged)
        }
        if writerAt != nil {
            recordWriter?.flush()
            waiting += recordWriter?.receive() ?? []
        }
    }
}

/// Text waiting to be written, in order; only the first piece is written, a pipe buffer
/// at a time, when its descriptor can take it.
private struct PendingOutput {
    /// A message of a worker the supervisor acknowledges once it is written.
    struct Acknowledgement {
        let generation: Int
        let message: Int64
    }

    private struct Piece {
        let descriptor: FileDescriptor
        let bytes: [UInt8]
        var written = 0
        let acknowledgement: Acknowledgement?
    }

    private var pieces: [Piece] = []

    var descriptor: FileDescriptor? { pieces.first?.descriptor }

    /// Whether a piece of generation `number`'s output is waiting: that worker waits for it.
    func holds(_ generation: Int) -> Bool { pieces.contains { $0.acknowledgement?.generation == generation } }

    mutating func append(_ bytes: [UInt8], to descriptor: FileDescriptor, acknowledging message: Acknowledgement?) {
        pieces.append(Piece(descriptor: descriptor, bytes: bytes, acknowledgement: message))
    }

    /// Writes some of the first piece; returns its acknowledgement when it is done.
    mutating func writeHead() -> Acknowledgement? {
        guard var head = pieces.first else { return nil }
        let written = DescriptorWriter.writeSome(head.bytes, from: head.written, to: head.descriptor)
        head.written = written.map { head.written + $0 } ?? head.bytes.count
        guard head.written >= head.bytes.count else {
            pieces[0] = head
            return nil
        }
        pieces.removeFirst()
        return head.acknowledgement
    }

    /// Writes everything, as slowly as its readers read; gives up on the rest only when
    /// nothing could be written for `stall` (a reader that stopped reading).
    mutating func drain(givingUpAfter stall: Duration) {
        var progressAt = MonotonicInstant.now
        while let descriptor {
            let left = progressAt + stall - .now
            guard left > .zero else { return }
            let ready = Poll.wait(for: [Poll.Interest(descriptor: descriptor, writing: true)], timeout: left)
            guard ready.first == true else { continue }
            let before = (pieces.count, pieces.first?.written)
            _ = writeHead()
            if pieces.count != before.0 || pieces.first?.written != before.1 { progressAt = .now }
        }
    }
}
