/// An SVG picture of a run, like `systemd-analyze plot`: one bar per plugin from the start
/// of its load to the end of its bootstrap, coloured by outcome, the critical chain outlined.
enum TimelineSVG {
    private static let width = 1000.0
    private static let labelWidth = 230.0
    private static let rowHeight = 26.0
    private static let top = 92.0

    static func document(of report: RunReport) -> String {
        let plugins = report.plugins
        let chain = Set(CriticalChain.of(plugins))
        let end = max(plugins.compactMap { $0.bootstrapFinished?.milliseconds }.max() ?? 0, report.duration.milliseconds, 0.001)
        let scale = (width - labelWidth - 80) / end
        let height = top + Double(plugins.count) * rowHeight + 40
        func x(_ milliseconds: Double) -> Double { labelWidth + milliseconds * scale }
        func number(_ value: Double) -> String { String(Double(Int((value * 10).rounded())) / 10) }

        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" viewBox="0 0 \(Int(width)) \(Int(height))" font-family="Helvetica, Arial, sans-serif" font-size="13">
            <rect width="100%" height="100%" fill="white"/>
            <text x="12" y="24" font-size="17" font-weight="bold">plugin-host boot: \(plugins.count) plugins from \(escape(report.directory)), \(escape(TextFormat.milliseconds(report.duration)))</text>

            """
        // Legend, in one line under the title.
        let legend: [(String, String)] = [("#9fd3a8", "loading"), ("#2e8b47", "bootstrapped"), ("#d23c3c", "failed"), ("#b8b8b8", "did not run")]
        var legendX = 12.0
        for (color, label) in legend {
            svg += "<rect x=\"\(number(legendX))\" y=\"38\" width=\"14\" height=\"14\" fill=\"\(color)\"/>"
            svg += "<text x=\"\(number(legendX + 20))\" y=\"50\">\(label)</text>\n"
            legendX += 30 + Double(label.count) * 7.5
        }
        svg += "<rect x=\"\(number(legendX))\" y=\"38\" width=\"14\" height=\"14\" fill=\"none\" stroke=\"#111\" stroke-width=\"2.5\"/>"
        svg += "<text x=\"\(number(legendX + 20))\" y=\"50\">critical chain (what the boot waited for)</text>\n"

        // Time axis: gridlines at a round step.
        let step = niceStep(end / 8)
        var tick = 0.0
        while tick <= end + step / 2 {
            svg += "<line x1=\"\(number(x(tick)))\" y1=\"\(number(top - 14))\" x2=\"\(number(x(tick)))\" y2=\"\(number(height - 30))\" stroke=\"#e3e3e3\"/>"
            svg += "<text x=\"\(number(x(tick)))\" y=\"\(number(top - 20))\" text-anchor=\"middle\" fill=\"#555\" font-size=\"11\">\(tick == 0 ? "0 ms" : TextFormat.milliseconds(.nanoseconds(Int64(tick * 1e6))))</text>\n"
            tick += step
        }

        for (row, plugin) in plugins.enumerated() {
            let y = top + Double(row) * rowHeight
            let name = "\(plugin.candidate.name) \(plugin.candidate.manifest.version)"
            let critical = chain.contains(row)
            svg += "<text x=\"\(number(labelWidth - 10))\" y=\"\(number(y + 17))\" text-anchor=\"end\"\(plugin.status == .notRun ? " fill=\"#888\"" : "")\(critical ? " font-weight=\"bold\"" : "")>\(escape(name))</text>\n"
            let title = "\(plugin.candidate.name): \(plugin.status.rawValue)"
                + ", load \(TextFormat.milliseconds(plugin.loadDuration)), bootstrap \(TextFormat.milliseconds(plugin.bootstrapDuration))"
                + (plugin.reason.map { " (\($0))" } ?? "")
            guard let loadStart = plugin.loadStarted?.milliseconds else {
                svg += "<text x=\"\(number(labelWidth + 6))\" y=\"\(number(y + 17))\" fill=\"#888\" font-style=\"italic\">did not run\(plugin.reason.map { ": " + escape(String($0.prefix(110))) } ?? "")</text>\n"
                continue
            }
            let loadEnd = loadStart + plugin.loadDuration.milliseconds
            svg += "<g><title>\(escape(title))</title>"
            svg += "<rect x=\"\(number(x(loadStart)))\" y=\"\(number(y + 4))\" width=\"\(number(max(1, (loadEnd - loadStart) * scale)))\" height=\"18\" fill=\"#9fd3a8\"/>"
            if let start = plugin.bootstrapStarted?.milliseconds, let finish = plugin.bootstrapFinished?.milliseconds {
                let color = plugin.status == .failed ? "#d23c3c" : "#2e8b47"
                svg += "<rect x=\"\(number(x(start)))\" y=\"\(number(y + 4))\" width=\"\(number(max(1.5, (finish - start) * scale)))\" height=\"18\" fill=\"\(color)\"\(critical ? " stroke=\"#111\" stroke-width=\"2.5\"" : "")/>"
                svg += "<text x=\"\(number(x(finish) + 6))\" y=\"\(number(y + 17))\" fill=\"#333\" font-size=\"11\">\(escape(TextFormat.milliseconds(plugin.totalDuration)))</text>"
            } else if plugin.status == .failed {
                svg += "<rect x=\"\(number(x(loadStart)))\" y=\"\(number(y + 4))\" width=\"\(number(max(1.5, (loadEnd - loadStart) * scale)))\" height=\"18\" fill=\"#d23c3c\"/>"
                svg += "<text x=\"\(number(x(loadEnd) + 6))\" y=\"\(number(y + 17))\" fill=\"#d23c3c\" font-size=\"11\">failed to load</text>"
            } else {
                svg += "<text x=\"\(number(x(loadEnd) + 6))\" y=\"\(number(y + 17))\" fill=\"#888\" font-size=\"11\" font-style=\"italic\">did not run\(plugin.reason.map { ": " + escape(String($0.prefix(100))) } ?? "")</text>"
            }
            svg += "</g>\n"
        }
        svg += "</svg>\n"
        return svg
    }

    /// 1, 2 or 5 times a power of ten, at least `rough`.
    private static func niceStep(_ rough: Double) -> Double {
        guard rough > 0 else { return 1 }
        var magnitude = 1.0
        while magnitude * 10 <= rough { magnitude *= 10 }
        while magnitude > rough { magnitude /= 10 }
        for factor in [1.0, 2.0, 5.0, 10.0] where magnitude * factor >= rough { return magnitude * factor }
        return magnitude * 10
    }

    private static func escape(_ text: String) -> String {
        text.replacingOccurrences("&", with: "&amp;").replacingOccurrences("<", with: "&lt;")
            .replacingOccurrences(">", with: "&gt;").replacingOccurrences("\"", with: "&quot;")
    }
}
