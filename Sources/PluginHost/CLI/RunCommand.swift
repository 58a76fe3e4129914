import PluginABI

/// `plugin-host --dir DIR`: scan, resolve, load and bootstrap, report; then run the
/// services, reload on SIGHUP, and shut down.
struct RunCommand {
    let options: RunOptions

    /// Scans, resolves, loads and bootstraps; prints nothing.
    ///
    /// - Returns: The report, and the bootstrapped plugins in bootstrap order.
    func bootstrap(events: HostEvents? = nil) async -> (report: RunReport, bootstrapped: [(candidate: PluginCandidate, component: any Bootstrapping)]) {
        let clock = ContinuousClock()
        let start = clock.now
        var report = RunReport(directory: PluginSearchPath(options.search).description)
        var bootstrapped: [(candidate: PluginCandidate, component: any Bootstrapping)] = []

        let configuration: Configuration
        switch readConfiguration() {
        case .failure(let problem):
            report.problems.append(problem)
            report.duration = clock.now - start
            return (report, [])
        case .success(let read):
            configuration = read
        }

        let survey = PluginSurvey(options.search)
        let resolution = survey.resolution
        let found = Set(survey.scan.candidates.map(\.name))
        for name in configuration.settings.keys.sorted() where !found.contains(name) {
            report.warnings.append(
                "configuration file \(options.configurationFile ?? "") has settings for plugin \(name.debugEscaped), "
                    + "which is not in \(report.directory); check the spelling")
        }
        report.notes = survey.shadowingNotes
        report.problems = survey.problems
        guard report.problems.isEmpty || options.keepGoing else {
            report.plugins = resolution.order.map { PluginOutcome(candidate: $0, status: .notRun) }
            report.duration = clock.now - start
            return (report, [])
        }

        let runner = ChainRunner(
            settings: configuration.settings, keepGoing: options.keepGoing, jobs: options.jobs,
            pluginGuard: PluginGuard(timeout: options.timeout), epoch: start,
            stopRequested: { events?.stopRequested ?? false })
        let outcome = await runner.run(Array(resolution.order), graphFailures: resolution.failures)
        report.plugins = outcome.plugins
        report.problems += outcome.problems
        report.duration = clock.now - start
        for plugin in outcome.plugins where plugin.status == .bootstrapped {
            if let component = plugin.component { bootstrapped.append((plugin.candidate, component)) }
        }
        return (report, bootstrapped)
    }

    /// Runs the whole lifecycle, prints the report and returns the exit status.
    func run() async -> ExitStatus {
        let events = HostEvents()
        events.listen()
        let jsonOutput = options.json ? StandardStreams.divertOutputToError() : nil
        var (report, bootstrapped) = await bootstrap(events: events)
        if events.stopRequested { report.stoppedBySignal = true }
        print(report, jsonOutput: jsonOutput)
        if let timeline = options.timeline {
            do {
                try replaceFile(timeline, contents: TimelineSVG.document(of: report))
            } catch {
                StandardStreams.writeToError("plugin-host: error: cannot write the timeline: \(error)\n")
                report.problems.append(Problem(.timelineUnwritable, file: timeline, "cannot write the timeline \(timeline): \(error)"))
            }
        }

        let lifecycle = Lifecycle(
            plugins: bootstrapped, events: events, shutdownTimeout: options.shutdownTimeout, reloadTimeout: options.timeout,
            readConfiguration: { readConfiguration().map(\.settings) })
        var problems: [Problem] = []
        if report.succeeded || options.keepGoing {
            problems += await lifecycle.runServices()
        }
        problems += await lifecycle.shutDown()
        // The process ends next; freeing a thousand plugin records first would only cost time.
        RetainedUntilExit.keep(report, bootstrapped, lifecycle)
        return report.succeeded && problems.isEmpty ? .success : .failure
    }

    private func readConfiguration() -> Result<Configuration, Problem> {
        guard let file = options.configurationFile else { return .success(Configuration()) }
        do {
            return .success(try Configuration(contentsOf: file))
        } catch {
            return .failure(error)
        }
    }

    private func print(_ report: RunReport, jsonOutput: Int32?) {
        if options.json {
            let document = JSONReport.document(of: report).rendered() + "\n"
            StandardStreams.writeToError(TextReport.errors(of: report))
            if let jsonOutput {
                StandardStreams.send(document, to: jsonOutput)
            } else {
                StandardStreams.writeToOutput(document)
            }
        } else {
            StandardStreams.writeToError(TextReport.errors(of: report))
            if report.succeeded || !report.plugins.isEmpty {
                StandardStreams.writeToOutput(TextReport.summary(of: report))
            }
        }
    }
}
