import PluginABI

/// `plugin-host --dir DIR`, in a worker process: scan, resolve, load and bootstrap,
/// report; then run the services, reload on SIGHUP, and shut down. What the generation
/// leaves out, loads instead, or waits for comes from the supervisor's plan.
///
/// The driving thread only drives and waits: plugin code runs on plugin threads, the host's
/// text goes through the supervisor, and every path the operator gave is made absolute
/// before any plugin code can change the working directory.
struct WorkerMain {
    let options: RunOptions
    let link: WorkerLink
    let plan: WorkerPlan
    /// The environment as the host started, before any plugin code could change it.
    let environment = Process.environment
    /// When the run started, from which plugin times are measured.
    let epoch = ContinuousClock.now
    /// What the builds before handed over, for the components as they bootstrap.
    let inbox = HandOffInbox()

    init(options: RunOptions, link: WorkerLink, plan: WorkerPlan) {
        var options = options
        let start = Process.workingDirectory ?? "/"
        func absolute(_ path: String) -> String { path.hasPrefix("/") ? path : start + "/" + path }
        options.configurationFile = options.configurationFile.map(absolute)
        options.timeline = options.timeline.map(absolute)
        options.search.base = start
        self.options = options
        self.link = link
        self.plan = plan
    }

    private var console: Console {
        Console { [link] text, stream in link.write(text, to: stream) }
    }

    /// Runs the whole lifecycle, prints the report and ends the worker with the run's
    /// status.
    func run() -> Never {
        let events = HostEvents { [link] events in
            link.listen { request in
                switch request {
                case .stop(let signal): events.post(.stop(signal: signal))
                case .reload: events.post(.reload)
                case .rescan: events.post(.rescan)
                case .verdict(let verdict): events.post(.verdict(verdict))
                case .removeGone: events.post(.removeGone)
                }
            }
        }
        if options.json { StandardStreams.divertOutputToError() }
        let started = start(events)
        var report = started.report
        for warning in ProcessState.restore(after: "loading and bootstrapping") { report.warnings.append(warning) }
        if link.stopRequested { report.stoppedBySignal = true }
        link.tell(.warnings(topic: "settings", report.settingsWarnings))
        link.enter(.report)
        print(report, candidateFailed: started.candidateFailed, saidBefore: started.saidBefore)
        if let timeline = options.timeline {
            do {
                try replaceFile(timeline, contents: TimelineSVG.document(of: report))
            } catch {
                console.write("plugin-host: error: cannot write the timeline: \(error)\n", to: .error)
                report.problems.append(Problem(.timelineUnwritable, file: timeline, "cannot write the timeline \(timeline): \(error)"))
            }
        }

        var lifecycle = LifecycleRunner(
            context: context(events), plugins: started.admitted, chain: started.chain, settings: started.settings,
            rescans: started.rescans)
        var problems: [Problem] = []
        if (report.succeeded || options.keepGoing || plan.strictness.leavesUnreadyOut) && !started.candidateFailed {
            problems += lifecycle.run()
            if link.stopRequested { problems += handOff(lifecycle) }
        } else {
            link.notify(.stopping(status: "Stopping: the plugins did not bootstrap"))
        }
        problems += lifecycle.shutDown()
        // The process ends next; freeing a thousand plugin records first would only cost
        // time, and would run plugin code (deinitializers) on this thread.
        RetainedUntilExit.keep(report, lifecycle.plugins, lifecycle.chain)
        // The atexit handlers are bounded like a shutdown hook, though never below a second:
        // exit has the C library's own work to do too.
        // After a stop request, what is left of the stop's time, and the rest of the grace.
        let exitLimit = lifecycle.stopDeadline.map { max($0 + OverrunPolicy.grace / 2 - .now, .milliseconds(100)) }
            ?? options.shutdownTimeout.map { max($0, .seconds(1)) }
        let succeeded = report.succeeded && problems.isEmpty && !started.candidateFailed
        link.exit(succeeded ? .success : .failure, within: exitLimit)
    }

    // MARK: Handing over

    /// Takes what the generation before handed over, which the supervisor sent before this
    /// one may bootstrap.
    private func receiveHandOff() {
        guard plan.handOff >= 0 else { return }
        guard let (bytes, descriptors) = DescriptorChannel(descriptor: plan.handOff).receive(waitingUpTo: .seconds(5)) else {
            console.write("plugin-host: warning: nothing came of what the generation before handed over; the plugins start without it\n", to: .error)
            return
        }
        inbox.fill(HandOffPackage(bytes: bytes, descriptors: descriptors).unpack())
    }

    /// The supervisor asked the worker to stop: what the components hand over goes to it,
    /// which passes it on to the next generation, if one takes over.
    private func handOff(_ lifecycle: LifecycleRunner) -> [Problem] {
        guard plan.handOff >= 0 else { return [] }
        let (handed, problems) = lifecycle.handOff()
        let (package, dropped) = HandOffPackage.pack(handed)
        for what in dropped { console.write("plugin-host: warning: not handed over, past the bounds of a hand-off: \(what)\n", to: .error) }
        if !DescriptorChannel(descriptor: plan.handOff).send(package.bytes, descriptors: package.descriptors) {
            console.write("plugin-host: warning: what the plugins handed over could not reach the supervisor; it is closed\n", to: .error)
        }
        package.close()
        return problems
    }

    private func context(_ events: HostEvents) -> LifecycleRunner.Context {
        LifecycleRunner.Context(
            events: events, threads: PluginThreads(limit: nil, link: link), console: console,
            shutdownTimeout: options.shutdownTimeout, timeout: options.timeout,
            healthInterval: options.healthInterval.flatMap { $0 == .zero ? nil : $0 }, watch: options.watch,
            leavesUnreadyOut: plan.strictness.leavesUnreadyOut,
            readConfiguration: { [self] in readConfiguration(again: true).map(\.settings) },
            configurationFile: options.configurationFile,
            search: options.search, admission: admission)
    }

    /// What the start-up produced.
    private struct Start {
        var report: RunReport
        /// The files it did not add that the serving host's scans said already, in a
        /// generation that goes on from one: they are listed, not said again.
        var saidBefore: [Problem] = []
        /// The bootstrapped plugins, in bootstrap order.
        var admitted: [RunningPlugin] = []
        var chain = Bootstrapped()
        var settings: [String: Settings] = [:]
        /// What rescans start from.
        var rescans = RescanMemory(builds: BuildSelection<String>(), leftOut: [], notAdded: [])
        /// An upgrade's new worker that does not replace the generation before: the supervisor
        /// said so, or the host stops first.
        var candidateFailed = false
    }

    /// How plugins join this worker, with `--jobs` threads.
    private var admission: Admission {
        Admission(
            link: link,
            runner: ChainRunner(
                keepGoing: options.keepGoing, threads: PluginThreads(limit: options.jobs, link: link), timeout: options.timeout,
                epoch: epoch, environment: environment, sockets: plan.sockets, inbox: inbox))
    }

    /// Scans, resolves, loads and bootstraps; prints nothing.
    private func start(_ events: HostEvents) -> Start {
        let clock = ContinuousClock()
        var start = Start(report: RunReport(directory: PluginSearchPath(options.search).description))
        start.report.generation = plan.number

        let configuration: Configuration
        switch readConfiguration() {
        case .failure(let problem):
            start.report.problems.append(problem)
            start.report.duration = clock.now - epoch
            return start
        case .success(let read):
            configuration = read
        }
        start.settings = configuration.settings

        link.enter(.survey)
        let survey = PluginSurvey(options.search, builds: plan.builds)
        let found = Set(survey.scan.candidates.map(\.name) + survey.leftOut.map(\.name))
        start.report.settingsWarnings = configuration.unknownPluginWarnings(
            found: found, in: start.report.directory, file: options.configurationFile ?? "")
        start.report.settingsWarnings += configuration.undeclaredKeyWarnings(
            of: survey.scan.candidates.map { ($0.name, $0.manifest.settings) }, file: options.configurationFile ?? "")
        start.report.notes = survey.shadowingNotes
        start.report.leftOut = survey.leftOut
        // How much the start may leave out is the machine's word (``Strictness``): a host that
        // watches treats a bad file at start as a later scan does, another refuses the directory.
        let strictness = plan.strictness
        // A plugin directory that cannot be read is no plugin: it refuses the start, watching
        // or not (a host that serves from no directory serves nothing); a later generation
        // goes on, and it is a warning in force.
        let directoryProblems = survey.directoryProblems
        let fileProblems = survey.scan.problems.filter { !directoryProblems.contains($0) }
        let refusing = strictness.goesOnFromServing ? [] : directoryProblems
        if strictness.goesOnFromServing { link.tell(.warnings(topic: "plugin directories", directoryProblems.map(\.message))) }
        start.report.problems = refusing
        if strictness.badFilesNotAdded { start.report.notAdded = fileProblems } else { start.report.problems += fileProblems }
        guard start.report.problems.isEmpty || (strictness.admission != .allOrNothing && refusing.isEmpty) else {
            start.report.problems += survey.resolution.problems
            start.report.plugins = survey.resolution.order.map { PluginOutcome(candidate: $0, status: .notRun) }
            start.report.duration = clock.now - epoch
            return start
        }

        var abandoned = false
        if !plan.waitsBeforeBootstrap { receiveHandOff() }
        let result = admission.admit(
            survey.resolution, onto: Bootstrapped(environment: environment, sockets: plan.sockets),
            settings: configuration.settings, strictness: strictness.admission
        ) { failedToLoad in
            guard plan.waitsBeforeBootstrap else { return true }
            // An upgrade: the new builds are loaded beside the running ones; the supervisor
            // says whether they bootstrap now, once the generation before has stopped, or not.
            let loaded = survey.resolution.order.filter { !failedToLoad.contains($0.name) }
            guard tell(report(.loaded, running: loaded, of: survey)) else {
                abandoned = true
                return false
            }
            link.enter(.prepared)
            switch waitForVerdict(events) {
            case .bootstrapBeside:
                // Beside the serving generation: nothing is handed over, what it holds is in use.
                return true
            case .bootstrapAfter:
                receiveHandOff()
                return true
            case .serve, .abandon:
                abandoned = true
                return false
            case nil:
                // The host stops: nothing bootstraps, and the stop goes on as any.
                return false
            }
        }
        start.report.plugins = result.outcome.plugins
        if strictness.badFilesNotAdded { start.report.notAdded += result.refused } else { start.report.problems += result.refused }
        if strictness.goesOnFromServing { start.saidBefore = fileProblems + result.refused }
        // A plugin that failed to load or bootstrap in a generation that goes on without it (a
        // restart, a rollback, an upgrade) is not added, as one a rescan could not add: the
        // status says why, a rescan tries it again, and the host's exit status is its stop's.
        let failed = result.problems.filter { problem in problem.plugin.map { name in !result.admitted.contains { $0.name == name } } ?? false }
        if !strictness.goesOnFromServing {
            start.report.problems += result.problems
        } else {
            start.report.notAdded += failed
            start.report.problems += result.problems.filter { !failed.contains($0) }
        }
        start.report.duration = clock.now - epoch
        start.report.settingsWarnings += Configuration.misspeltKeyWarnings(
            configuration.settings, of: result.admitted.filter { $0.candidate.manifest.settings == nil }.map(\.name),
            file: options.configurationFile ?? "", while: "while it bootstrapped")
        start.rescans = RescanMemory(
            builds: plan.builds, leftOut: survey.leftOut, notAdded: start.report.notAdded + (strictness.goesOnFromServing ? [] : failed))
        start.chain = result.outcome.bootstrapped
        start.admitted = result.admitted
        if plan.waitsBeforeBootstrap && !abandoned && !link.stopRequested {
            if tell(report(.bootstrapped, running: result.admitted.map(\.candidate), of: survey)) {
                link.enter(.bootstrapped)
                // Asked to stop first, it stops as any serving worker does.
                abandoned = waitForVerdict(events).map { $0 != .serve } ?? false
            } else {
                abandoned = true
            }
        }
        start.candidateFailed = abandoned
        return start
    }

    /// What an upgrade's new worker tells the supervisor at `stage`: the plugins that run
    /// (loaded, or bootstrapped), those of `survey` it found a file of that do not, and the
    /// files it could not use.
    private func report(_ stage: CandidateReport.Stage, running: [PluginCandidate], of survey: PluginSurvey) -> CandidateReport {
        var numbers: [String: PluginNumber] = [:]
        for number in link.page.plugins { numbers[link.page.entry(of: number).name] = number }
        let runs = Set(running.map(\.name))
        func plugin(_ candidate: PluginCandidate) -> CandidateReport.Plugin {
            CandidateReport.Plugin(name: candidate.name, number: numbers[candidate.name], upgrade: candidate.manifest.upgrade)
        }
        return CandidateReport(
            stage: stage, running: running.map(plugin), failed: survey.scan.candidates.filter { !runs.contains($0.name) }.map(plugin),
            unusableFiles: survey.scan.problems.compactMap(\.file))
    }

    /// Tells the supervisor what this new worker loaded or bootstrapped. A report the page
    /// cannot carry is said, and the worker gives up rather than wait for a word that cannot
    /// come.
    private func tell(_ report: CandidateReport) -> Bool {
        guard link.tell(.candidate(report)) else {
            console.write("plugin-host: error: the new worker cannot tell the supervisor what it \(report.stage.rawValue): the report of "
                + "\(report.running.count + report.failed.count) plugins is larger than the supervision page carries "
                + "(\(SupervisionPage.outputCapacity / 1_048_576) MiB); it gives up, and the running plugins keep serving\n", to: .error)
            return false
        }
        return true
    }

    /// Waits for the supervisor's word on what this new worker reported; `nil` when the host
    /// is asked to stop first.
    private func waitForVerdict(_ events: HostEvents) -> CandidateVerdict? {
        var postponed: [HostEvents.Event] = []
        defer { for event in postponed { events.post(event) } }
        while let event = events.next() {
            switch event {
            case .verdict(let verdict): return verdict
            case .stop:
                postponed.append(event)
                return nil
            case .reload, .rescan, .serviceEnded, .removeGone: postponed.append(event)
            }
        }
        return nil
    }

    /// The configuration: the file read now, or what was read of it when the host started
    /// when it can be read only once.
    ///
    /// - Parameter again: Whether the operator asked to read it again (SIGHUP): refused for
    ///   a file that can be read only once.
    private func readConfiguration(again: Bool = false) -> Result<Configuration, Problem> {
        guard let file = options.configurationFile else { return .success(Configuration()) }
        do {
            guard let snapshot = options.configurationSnapshot else { return .success(try Configuration(contentsOf: file)) }
            guard !again else {
                return .failure(Problem(
                    .configurationInvalid, file: file,
                    "configuration file \(file) is a pipe, read once when the host started, and cannot be read again; "
                        + "give --config a regular file to reload settings"))
            }
            return .success(try Configuration(path: file, bytes: snapshot))
        } catch {
            return .failure(error)
        }
    }

    private func print(_ report: RunReport, candidateFailed: Bool, saidBefore: [Problem]) {
        // What the serving host's scans said of files it could not add is not said again (a
        // file is said once until it changes); the failures of the plugins loaded here are.
        var unsaid = report
        unsaid.notAdded.removeAll { saidBefore.contains($0) }
        console.write(TextReport.errors(of: unsaid), to: .error)
        guard !candidateFailed else { return }
        if options.json {
            console.write(JSONReport.document(of: report).rendered() + "\n", to: .output)
        } else if report.succeeded || !report.plugins.isEmpty {
            console.write(TextReport.summary(of: report), to: .output)
        }
    }
}
