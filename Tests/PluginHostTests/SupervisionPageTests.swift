import Testing

@testable import PluginHost

@Suite("SupervisionPage: one layout, declared once, shared by the supervisor and its worker")
struct SupervisionPageTests {
    @Test("each field follows the one before it; the header ends before the tables, which fit the page")
    func layoutFollowsItsDeclaration() {
        typealias Layout = SupervisionPage.Layout
        #expect(Layout.Header.workerPhase.offset == Layout.Header.magic.end)
        #expect(Layout.Header.supervisorWakesAt.offset % 8 == 0, "an 8-byte field is aligned for its word")
        #expect(Layout.Header.crash.offset >= Layout.Header.outputValue.end)
        #expect(Layout.Header.size <= Layout.slots.offset)
        #expect(Layout.slots.offset % 4096 == 0)
        #expect(Layout.Record.size >= Layout.Record.address.end && Layout.Step.size >= Layout.Step.deadline.end)
        #expect(Layout.Plugin.codeLower.offset >= Layout.Plugin.step.end)
        #expect(Layout.end == Layout.outputBytes.offset + SupervisionPage.outputCapacity)
    }

    @Test("what one side writes, the other reads as the same typed value")
    func valuesRoundTrip() throws {
        let page = try SupervisionPage()
        defer { page.unmap() }
        page.workerPhase = .bootstrapping
        page.failedPlugin = PluginNumber(3)
        page.healthyUntil = MonotonicInstant(nanoseconds: 42)
        page.stopSignal = .terminate
        page.crash = WorkerRecord(signal: 11, status: 0, culprit: PluginNumber(2), evidence: .stack, phase: .run, thread: .pluginCode, address: 7)
        #expect(page.workerPhase == .bootstrapping)
        #expect(page.failedPlugin == PluginNumber(3))
        #expect(page.healthyUntil == MonotonicInstant(nanoseconds: 42))
        #expect(page.stopSignal == .terminate)
        #expect(page.crash == WorkerRecord(signal: 11, status: 0, culprit: PluginNumber(2), evidence: .stack, phase: .run, thread: .pluginCode, address: 7))
        #expect(page.exitCall == nil)
        let step = SupervisionPage.Step(phase: .health, policy: .skip, started: MonotonicInstant(nanoseconds: 5), deadline: MonotonicInstant(nanoseconds: 9))
        _ = page.begin(step, of: nil)
        #expect(page.step(of: nil) == step)
        page.end(stepOf: nil)
        #expect(page.step(of: nil) == nil)
    }
}
