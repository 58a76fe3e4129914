import PluginABI

/// `plugin-host --dir DIR`, in the worker process: scan, resolve, load and bootstrap,
/// report; then run the services, reload on SIGHUP, and shut down.
///
/// The driving thread only drives and waits: plugin code runs on plugin threads, the host's
/// text goes through the supervisor, and every path the operator gave is made absolute
/// before any plugin code can change the working directory.
struct RunCommand {
    let options: RunOptions
    let link: WorkerLink
    /// The environment as the host started, before any plugin code could change it.
    let environment = Process.environment
    /// When the run started, from which plugin times are measured.
    let epoch = ContinuousClock.now

    init(options: RunOptions, link: WorkerLink) {
        var options = options
        let start = Process.workingDirectory ?? "/"
        func absolute(_ path: String) -> String { path.hasPrefix("/") ? path : start + "/" + path }
        options.configurationFile = options.configurationFile.map(absolute)
        options.timeline = options.timeline.map(absolute)
        self.options = options
        self.link = link
    }

    private var console: Console {
        Console { [link] text, stream in link.write(text, to: stream == .output ? .output : .error) }
    }

    /// Runs the whole lifecycle, prints the report and ends the worker with the run's
    /// status.
    func run() -> Never {
        let events = HostEvents()
        link.listen { request in
            switch request {
            case .stop(let signal): events.post(.stop(signal: signal))
            case .reload: events.post(.reload)
            case .rescan: events.post(.rescan)
            }
        }
        if options.json { StandardStreams.divertOutputToError() }
        let started = bootstrap()
        var report = started.report
        for warning in ProcessState.restore(after: "loading and bootstrapping") { report.warnings.append(warning) }
        if link.stopRequested { report.stoppedBySignal = true }
        link.enter(.report)
        print(report)
        if let timeline = options.timeline {
            do {
                try replaceFile(timeline, contents: TimelineSVG.document(of: report))
            } catch {
                console.write("plugin-host: error: cannot write the timeline: \(error)\n", to: .error)
                report.problems.append(Problem(.timelineUnwritable, file: timeline, "cannot write the timeline \(timeline): \(error)"))
            }
        }

        let lifecycle = LifecycleRunner(
            context: LifecycleRunner.Context(
                events: events, threads: PluginThreads(limit: nil, link: link), console: console,
                shutdownTimeout: options.shutdownTimeout, timeout: options.timeout,
                healthInterval: options.healthInterval.flatMap { $0 == .zero ? nil : $0 }, watch: options.watch,
                readConfiguration: { [self] in readConfiguration().map(\.settings) },
                additions: PluginAdditions(search: options.search, runner: runner)),
            members: started.members, chain: started.chain, settings: started.settings, scan: started.scan)
        var problems: [Problem] = []
        if report.succeeded || options.keepGoing {
            problems += lifecycle.run()
        } else {
            link.notify("STOPPING=1\nSTATUS=Stopping: the plugins did not bootstrap")
        }
        problems += lifecycle.shutDown()
        // The process ends next; freeing a thousand plugin records first would only cost
        // time, and would run plugin code (deinitializers) on this thread.
        RetainedUntilExit.keep(report, started.members, lifecycle)
        // The atexit handlers are bounded like a shutdown hook, though never below a second:
        // exit has the C library's own work to do too.
        let exitLimit = options.shutdownTimeout.map { max($0, .seconds(1)) }
        link.exit(report.succeeded && problems.isEmpty ? .success : .failure, within: exitLimit)
    }

    /// What the start-up produced.
    private struct Start {
        var report: RunReport
        /// The bootstrapped plugins, in bootstrap order, and their components.
        var members: [LifecycleRunner.Member] = []
        var chain = Bootstrapped()
        var settings: [String: Settings] = [:]
        /// What the survey found.
        var scan = PluginDirectory.Scan()
    }

    /// The loader and bootstrapper of the run, with `--jobs` threads.
    private var runner: ChainRunner {
        ChainRunner(
            keepGoing: options.keepGoing, threads: PluginThreads(limit: options.jobs, link: link), timeout: options.timeout,
            epoch: epoch, environment: environment)
    }

    /// Scans, resolves, loads and bootstraps; prints nothing.
    private func bootstrap() -> Start {
        let clock = ContinuousClock()
        var start = Start(report: RunReport(directory: PluginSearchPath(options.search).description))

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
        let survey = PluginSurvey(options.search)
        start.scan = survey.scan
        let resolution = survey.resolution
        let found = Set(survey.scan.candidates.map(\.name))
        for name in configuration.settings.keys.sorted() where !found.contains(name) {
            start.report.warnings.append(
                "configuration file \(options.configurationFile ?? "") has settings for plugin \(name.debugEscaped), "
                    + "which is not in \(start.report.directory); check the spelling")
        }
        start.report.notes = survey.shadowingNotes
        start.report.problems = survey.problems
        guard start.report.problems.isEmpty || options.keepGoing else {
            start.report.plugins = resolution.order.map { PluginOutcome(candidate: $0, status: .notRun) }
            start.report.duration = clock.now - epoch
            return start
        }
        guard link.publish(plugins: resolution.order.map(\.label)) != nil else {
            start.report.problems.append(Problem(
                .directoryUnreadable, file: start.report.directory,
                "\(resolution.order.count) plugins are more than one host can track (\(SupervisionPage.pluginCapacity)); split them over several hosts"))
            return start
        }

        var runner = runner
        runner.settings = configuration.settings
        let outcome = runner.run(resolution)
        start.report.plugins = outcome.plugins
        start.report.problems += outcome.problems
        start.report.duration = clock.now - epoch
        start.chain = outcome.bootstrapped
        start.members = outcome.plugins.enumerated().compactMap { index, plugin -> LifecycleRunner.Member? in
            guard plugin.status == .bootstrapped, let component = plugin.component else { return nil }
            return LifecycleRunner.Member(index: index, candidate: plugin.candidate, component: component, lifecycle: plugin.lifecycle)
        }
        return start
    }

    private func readConfiguration() -> Result<Configuration, Problem> {
        guard let file = options.configurationFile else { return .success(Configuration()) }
        do {
            return .success(try Configuration(contentsOf: file))
        } catch {
            return .failure(error)
        }
    }

    private func print(_ report: RunReport) {
        console.write(TextReport.errors(of: report), to: .error)
        if options.json {
            console.write(JSONReport.document(of: report).rendered() + "\n", to: .output)
        } else if report.succeeded || !report.plugins.isEmpty {
            console.write(TextReport.summary(of: report), to: .output)
        }
    }
}
