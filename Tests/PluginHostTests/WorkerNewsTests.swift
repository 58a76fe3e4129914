import Testing

@testable import PluginHost

@Suite("WorkerNews: what a worker tells its supervisor reads back as told")
struct WorkerNewsTests {
    static let report = CandidateReport(
        stage: .loaded,
        running: [
            CandidateReport.Plugin(name: "Persistence", number: PluginNumber(0), upgrade: .after),
            CandidateReport.Plugin(name: "Domain", number: PluginNumber(1), upgrade: .beside),
        ],
        failed: [CandidateReport.Plugin(name: "Ticker", number: nil, upgrade: .after)],
        unusableFiles: ["plugins/libEcho.so"])

    @Test("every kind of news reads back as written, a candidate's report with each plugin's number and order included")
    func newsReadsBack() {
        let news: [WorkerNews] = [
            .candidate(Self.report),
            .candidate(CandidateReport(stage: .bootstrapped, running: [], failed: [], unusableFiles: [])),
            .reload(applied: false, reasons: ["settings.json: not JSON"]),
            .warnings(topic: "settings", ["unknown key"]),
            .upgradeRefused("Domain 1.0.0 -> 2.0.0", reasons: ["Application requires Domain ^1.0.0"]),
            .plugins([PluginCondition(name: "Echo", state: .notAdded, file: "plugins/libEcho.so", reason: "failed to start")]),
        ]
        for told in news {
            #expect(WorkerNews(encoded: told.encoded) == told)
        }
    }

    @Test("a report whose plugin has no upgrade order, or an unknown stage, is no news: the supervisor never guesses")
    func malformedReportIsRefused() {
        let noOrder = #"{"candidate": {"stage": "loaded", "running": [{"name": "Domain"}], "failed": [], "unusableFiles": []}}"#
        let noStage = #"{"candidate": {"stage": "serving", "running": [], "failed": [], "unusableFiles": []}}"#
        #expect(WorkerNews(encoded: Array(noStage.utf8)) == nil)
        // A plugin without its order is dropped from the list rather than read as "after".
        #expect(WorkerNews(encoded: Array(noOrder.utf8)) == .candidate(CandidateReport(stage: .loaded, running: [], failed: [], unusableFiles: [])))
    }

    @Test("the machine's reading of a report: the first running plugin by name the candidate cannot run, and beside only when every loaded plugin that runs now allows it")
    func judgement() {
        let before = ["Ticker", "Echo", "Persistence"].map { PublishedPlugin(name: $0, file: "plugins/lib\($0).so", version: "1.0.0", state: .running) }
        let lost = Self.report.firstLost(of: before)
        #expect(lost?.name == "Echo", "Echo's file is no plugin now; Echo sorts before Ticker, which did not load")
        #expect(lost?.number == nil)
        #expect(!Self.report.bootstrapsBeside(of: before), "Persistence says after, and runs now")
        var allBeside = Self.report
        allBeside.running = allBeside.running.map { CandidateReport.Plugin(name: $0.name, number: $0.number, upgrade: .beside) }
        #expect(allBeside.bootstrapsBeside(of: before))
        #expect(!CandidateReport(stage: .loaded, running: [], failed: [], unusableFiles: []).bootstrapsBeside(of: before), "nothing loaded: nothing to bootstrap beside")
        let withoutPersistence = before.filter { $0.name != "Persistence" }
        #expect(Self.report.bootstrapsBeside(of: withoutPersistence),
                "Persistence says after but is new to the host (it does not run now): Domain, which runs, allows beside")
        let removed = [PublishedPlugin(name: "Gone", file: "plugins/libGone.so", version: "1.0.0", state: .running)]
        #expect(Self.report.firstLost(of: removed) == nil, "a plugin whose file is gone was removed, not lost")
    }
}
