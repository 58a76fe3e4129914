import Testing

@testable import PluginHost

@Suite("The text report: durations, the plugin table and the slowest plugins")
struct TextReportTests {
    @Test(
        "a duration reads as milliseconds, two decimals below 10 ms, whole from 10 ms, rounded half up",
        arguments: [
            (Duration.zero, "0.00 ms"),
            (.nanoseconds(4_999), "0.00 ms"),
            (.nanoseconds(5_000), "0.01 ms"),
            (.microseconds(420), "0.42 ms"),
            (.nanoseconds(4_994_999), "4.99 ms"),
            (.nanoseconds(4_995_000), "5.00 ms"),
            (.microseconds(9_050), "9.05 ms"),
            (.nanoseconds(9_994_999), "9.99 ms"),
            (.nanoseconds(9_995_000), "10.00 ms"),
            (.milliseconds(10), "10 ms"),
            (.nanoseconds(125_499_999), "125 ms"),
            (.nanoseconds(125_500_000), "126 ms"),
            (.nanoseconds(2_000_500_000), "2001 ms"),
            (.seconds(90), "90000 ms"),
            (.microseconds(-3), "0.00 ms"),
        ])
    func durations(duration: Duration, text: String) {
        #expect(TextFormat.milliseconds(duration) == text)
    }

    @Test("a plugin whose file's build is left out says which build runs in its place, when one does, and is left out only when none does")
    func leftOutOrTheBuildBefore() {
        var report = RunReport(directory: "plugins")
        report.leftOut = [
            LeftOutPlugin(name: "Counter", file: "plugins/libCounter.so",
                          reason: "its build 0.3.1 crashed during the run phase: SIGSEGV; the build that ran before, 0.3.0, runs in its place until the file changes",
                          runningInstead: "0.3.0"),
            LeftOutPlugin(name: "Probe", file: "plugins/libProbe.so", reason: "crashed during bootstrap: SIGSEGV; left out until its file changes"),
        ]
        let text = TextReport.summary(of: report)
        #expect(text.contains("Running the build before: Counter 0.3.0, in place of plugins/libCounter.so: its build 0.3.1 crashed"), "\(text)")
        #expect(!text.contains("Left out: Counter"), "\(text)")
        #expect(text.contains("Left out: Probe (plugins/libProbe.so): crashed during bootstrap: SIGSEGV"), "\(text)")
    }

    @Test("cells are padded to their column's widest cell in characters, two spaces apart, the last column unpadded")
    func table() {
        let text = TextTable.render(header: ["#", "plugin", "file"], rows: [["1", "Café", "a.so"], ["10", "Persistence", "b.so"]])
        #expect(text == """
              #   plugin       file
              1   Café         a.so
              10  Persistence  b.so

            """)
    }

    @Test("the slowest plugins are the five longest loads and bootstraps, longest first, earlier first among equals, without those that did not run")
    func slowest() {
        let milliseconds = [3, 9, 1, 9, 7, 2, 8, 5, 9]
        var plugins = milliseconds.enumerated().map { index, time in
            var outcome = PluginOutcome(
                candidate: PluginCandidate(
                    file: "libP\(index).so",
                    manifest: PluginManifest(name: "P\(index)", version: SemanticVersion("1.0.0")!, abi: 1)),
                status: .bootstrapped)
            outcome.loadDuration = .milliseconds(time)
            outcome.bootstrapDuration = .microseconds(time * 10)
            return outcome
        }
        plugins[3].status = .notRun
        #expect(CriticalChain.slowest(plugins) == [1, 8, 6, 4, 7])
        #expect(CriticalChain.slowest(plugins, count: 2) == [1, 8])
        #expect(CriticalChain.slowest(Array(plugins.prefix(3))) == [1, 0, 2])
        #expect(CriticalChain.slowest(plugins, count: 0) == [])
        // The same as sorting them all.
        let sorted = plugins.indices.filter { plugins[$0].status != .notRun }
            .sorted { plugins[$0].totalDuration > plugins[$1].totalDuration }
        #expect(CriticalChain.slowest(plugins, count: plugins.count) == sorted)
    }
}
