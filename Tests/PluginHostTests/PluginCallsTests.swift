import Foundation
import Synchronization
import Testing

@testable import PluginHost

/// Hook sequences: in order, each within its deadline, an overrun left behind.
@Suite("PluginCalls: plugin hooks one after another, each within its deadline")
struct PluginCallsTests {
    private let link: WorkerLink
    private let threads: PluginThreads

    init() throws {
        link = WorkerLink(page: try SupervisionPage(), supervisor: nil)
        threads = PluginThreads(limit: nil, link: link)
    }

    private final class Journal: Sendable {
        let entries = Mutex<[String]>([])
        func note(_ entry: String) { entries.withLock { $0.append(entry) } }
        var all: [String] { entries.withLock { $0 } }
    }

    private struct Refused: Error, CustomStringConvertible {
        var description: String { "refused" }
    }

    @Test("calls run in order and each says how it ended")
    func inOrder() {
        let journal = Journal()
        let outcomes = PluginCalls(threads: threads).perform([
            PluginCall(plugin: PluginNumber(0), phase: .shutdown) { journal.note("first") },
            PluginCall(plugin: PluginNumber(1), phase: .shutdown) { journal.note("second"); throw Refused() },
            PluginCall(plugin: PluginNumber(2), phase: .shutdown) { journal.note("third") },
        ], within: .seconds(5))
        #expect(outcomes == [.finished, .failed("refused"), .finished])
        #expect(journal.all == ["first", "second", "third"])
        #expect((0...2).allSatisfy { link.page.step(of: PluginNumber($0)) == nil })
    }

    @Test("a call that overruns is named and left behind, and the calls after it still run", arguments: ["blocking", "waiting"])
    func overrun(kind: String) {
        let journal = Journal()
        let clock = ContinuousClock()
        let start = clock.now
        let outcomes = PluginCalls(threads: threads).perform([
            PluginCall(plugin: PluginNumber(0), phase: .shutdown) {
                if kind == "blocking" { usleep(3_000_000) } else { try await Task.sleep(for: .seconds(3)) }
                journal.note("late")
            },
            PluginCall(plugin: PluginNumber(1), phase: .shutdown) { journal.note("next") },
        ], within: .milliseconds(200))
        #expect(outcomes == [.overran, .finished])
        #expect(journal.all == ["next"])
        #expect(clock.now - start < .seconds(2))
        #expect(link.page.step(of: PluginNumber(0)) == nil, "the overrun call's step is over for the supervisor")
    }

    @Test("a call that returns right at its deadline is finished or overran, never both, over thousands of rounds")
    func deadlineRace() {
        let timeout = Duration.microseconds(300)
        var overran = 0
        for round in 0..<3000 {
            let journal = Journal()
            let outcomes = PluginCalls(threads: threads).perform([
                PluginCall(plugin: PluginNumber(0), phase: .shutdown) {
                    usleep(300)
                    journal.note("racer")
                },
                PluginCall(plugin: PluginNumber(1), phase: .shutdown) { journal.note("next") },
            ], within: timeout)
            #expect(outcomes.allSatisfy { $0 == .finished || $0 == .overran }, "round \(round): \(outcomes)")
            if outcomes[0] == .overran { overran += 1 }
            // The next call has the same short deadline; on a loaded machine it may overrun
            // too. Finished means it ran exactly once; either way it never runs twice.
            let nextRuns = journal.all.filter { $0 == "next" }.count
            if outcomes[1] == .finished { #expect(nextRuns == 1, "round \(round): the next call ran once") }
            #expect(nextRuns <= 1, "round \(round): the next call ran at most once")
            if outcomes[0] == .finished { #expect(journal.all.contains("racer"), "round \(round): finished means it ran") }
        }
        // Both outcomes happened: the rounds did race the deadline.
        #expect(overran > 0 && overran < 3000, "\(overran) of 3000 overran")
    }
}
