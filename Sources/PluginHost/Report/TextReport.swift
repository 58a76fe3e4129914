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
            "Bootstrapped \(count) plugin\(plural) from \(report.directory) in \(format(report.duration))\n"
        } else {
            "Bootstrapped \(bootstrapped) of \(count) plugin\(plural) from \(report.directory); see the errors above\n"
        }
        guard !report.plugins.isEmpty else { return text }
        let header = ["#", "plugin", "version", "requires", "status", "load", "bootstrap", "file"]
        let rows = report.plugins.enumerated().map { index, outcome in
            let manifest = outcome.candidate.manifest
            return [
                String(index + 1), manifest.name, manifest.version.description,
                manifest.dependencyList,
                outcome.status.rawValue,
                outcome.loadDuration > .zero ? format(outcome.loadDuration) : "-",
                outcome.bootstrapDuration > .zero ? format(outcome.bootstrapDuration) : "-",
                outcome.candidate.file,
            ]
        }
        text += TextTable.render(header: header, rows: rows)
        let slowest = CriticalChain.slowest(report.plugins)
        if !slowest.isEmpty {
            text += "Slowest: " + slowest.map { "\(report.plugins[$0].candidate.name) \(format(report.plugins[$0].totalDuration))" }
                .joined(separator: ", ") + "\n"
        }
        let chain = CriticalChain.of(report.plugins)
        if !chain.isEmpty {
            text += "Critical chain: " + chain.map { index in
                let plugin = report.plugins[index]
                let start = plugin.bootstrapStarted.map { "@" + format($0) } ?? ""
                return "\(plugin.candidate.name) \(start) +\(format(plugin.bootstrapDuration))"
            }.joined(separator: " -> ") + "\n"
        }
        return text
    }

    /// The lines printed on standard error: one per note, per warning, then per problem.
    static func errors(of report: RunReport) -> String {
        diagnostics(notes: report.notes, warnings: report.warnings, problems: report.problems)
    }

    /// Notes, warnings and problems as every command prints them on standard error, one
    /// line each: `plugin-host: note: ...`, `plugin-host: warning: ...`, `plugin-host: error: ...`.
    static func diagnostics(notes: [String] = [], warnings: [String] = [], problems: [Problem] = []) -> String {
        notes.map { "plugin-host: note: \($0)\n" }.joined()
            + warnings.map { "plugin-host: warning: \($0)\n" }.joined()
            + problems.map { "plugin-host: error: \($0.message)\n" }.joined()
    }

    /// A duration as milliseconds with two decimals below 10 ms, whole above: `0.42 ms`,
    /// `125 ms`; rounded half up, and a negative duration as `0.00 ms`.
    ///
    /// Worked out in whole numbers: a report of a thousand plugins formats two thousand.
    static func format(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0, attoseconds >= 0 else { return "0.00 ms" }
        // 10^15 attoseconds to the millisecond, 10^13 to the hundredth.
        guard seconds == 0, attoseconds < 10_000_000_000_000_000 else {
            let milliseconds = seconds * 1000 + (attoseconds + 500_000_000_000_000) / 1_000_000_000_000_000
            return String(milliseconds) + " ms"
        }
        let hundredths = Int((attoseconds + 5_000_000_000_000) / 10_000_000_000_000)
        let fraction = hundredths % 100
        return String(hundredths / 100) + (fraction < 10 ? ".0" : ".") + String(fraction) + " ms"
    }
}
