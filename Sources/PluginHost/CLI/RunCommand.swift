import PluginABI

/// `plugin-host --dir DIR`: scan, resolve, load and bootstrap, then report.
struct RunCommand {
    let options: RunOptions

    /// Runs the plugins and returns the report; prints nothing.
    func report() -> RunReport {
        let clock = ContinuousClock()
        let start = clock.now
        var report = bootstrap()
        report.duration = clock.now - start
        return report
    }

    private func bootstrap() -> RunReport {
        var report = RunReport(directory: options.directory)

        var configuration = Configuration()
        if let file = options.configurationFile {
            do {
                configuration = try Configuration(contentsOf: file)
            } catch {
                report.problems.append(error)
                return report
            }
        }

        let scan = PluginDirectory(path: options.directory, trust: FileTrust(allowAnyOwner: options.allowAnyOwner)).scan()
        let found = Set(scan.candidates.map(\.name))
        for name in configuration.settings.keys.sorted() where !found.contains(name) {
            report.warnings.append(
                "configuration file \(options.configurationFile ?? "") has settings for plugin \(name.debugEscaped), "
                    + "which is not in \(options.directory); check the spelling")
        }
        let resolution = DependencyResolver(abiVersion: PluginABIVersion.current).resolve(scan.candidates)
        report.problems = scan.problems + resolution.problems
        guard report.problems.isEmpty || options.keepGoing else {
            report.plugins = resolution.order.map { PluginOutcome(candidate: $0, status: .notRun) }
            return report
        }

        let runner = ChainRunner(
            settings: configuration.settings, keepGoing: options.keepGoing, pluginGuard: PluginGuard(timeout: options.timeout))
        let outcome = runner.run(resolution.order, graphFailures: resolution.failures)
        report.plugins = outcome.plugins
        report.problems += outcome.problems
        return report
    }

    /// Runs the plugins, prints the report and returns the exit status.
    func run() -> ExitStatus {
        let jsonOutput = options.json ? StandardStreams.divertOutputToError() : nil
        let report = report()
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
        return report.succeeded ? .success : .failure
    }
}

