/// The human-readable report: a table of the plugins on standard output, one line per
/// problem on standard error.
enum TextReport {
    /// The table printed on standard output.
    static func summary(of report: RunReport) -> String {
        let count = report.plugins.count
        let bootstrapped = report.plugins.filter { $0.status == .bootstrapped }.count
        let plural = count == 1 ? "" : "s"
        var text = if report.stoppedBySignal {
            "Stopped by a signal after bootstrapping \(bootstrapped) of \(count) plugin\(plural) from \(report.directory)\n"
        } else if report.succeeded {
            "Bootstrapped \(count) plugin\(plural) from \(report.directory) in \(TextFormat.milliseconds(report.duration))\n"
        } else {
            "Bootstrapped \(bootstrapped) of \(count) plugin\(plural) from \(report.directory); see the errors above\n"
        }
        for plugin in report.leftOut {
            if let version = plugin.runningInstead {
                text += "Running the build before: \(plugin.name) \(version), in place of \(plugin.file): \(plugin.reason)\n"
            } else {
                text += "Left out: \(plugin.label): \(plugin.reason)\n"
            }
        }
        guard !report.plugins.isEmpty else { return text }
        let header = ["#", "plugin", "version", "requires", "status", "load", "bootstrap", "file"]
        let rows = report.plugins.enumerated().map { index, outcome in
            let manifest = outcome.candidate.manifest
            return [
                String(index + 1), manifest.name, manifest.version.description,
                manifest.dependencyList,
                outcome.status.rawValue,
                outcome.loadDuration > .zero ? TextFormat.milliseconds(outcome.loadDuration) : "-",
                outcome.bootstrapDuration > .zero ? TextFormat.milliseconds(outcome.bootstrapDuration) : "-",
                outcome.candidate.file,
            ]
        }
        text += TextTable.render(header: header, rows: rows)
        let slowest = CriticalChain.slowest(report.plugins)
        if !slowest.isEmpty {
            text += "Slowest: " + slowest.map { "\(report.plugins[$0].candidate.name) \(TextFormat.milliseconds(report.plugins[$0].totalDuration))" }
                .joined(separator: ", ") + "\n"
        }
        let chain = CriticalChain.of(report.plugins)
        if !chain.isEmpty {
            text += "Critical chain: " + chain.map { index in
                let plugin = report.plugins[index]
                let start = plugin.bootstrapStarted.map { "@" + TextFormat.milliseconds($0) } ?? ""
                return "\(plugin.candidate.name) \(start) +\(TextFormat.milliseconds(plugin.bootstrapDuration))"
            }.joined(separator: " -> ") + "\n"
        }
        return text
    }

    /// The lines printed on standard error: one per note, per warning, then per problem.
    static func errors(of report: RunReport) -> String {
        let notAdded = report.notAdded.map { Problem($0.code, plugin: $0.plugin, file: $0.file, $0.message + "; not added") }
        return Diagnostics.text(notes: report.notes, warnings: report.warnings, problems: notAdded + report.problems)
    }
}
