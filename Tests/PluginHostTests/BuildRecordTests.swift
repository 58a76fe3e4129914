import Testing

@testable import PluginHost

/// What the machine does with the record of what a host before it proved.
@Suite("A start honours the record: the builds it leaves out stay out of the first generation")
struct BuildRecordTests {
    private let ticker = BuildRecord.LeftOut(
        name: "Ticker", file: "plugins/libTicker.so", version: "0.3.1",
        identity: FileIdentity(device: 1, inode: 7, size: 100, modificationNanoseconds: 11, changeNanoseconds: 12),
        reason: "crashed during the run phase: SIGSEGV")

    @Test("the first generation leaves out each build the record keeps, and the start says so; the record is not written again for it")
    func firstGenerationLeavesOut() throws {
        let (machine, actions) = SupervisionMachine.starting(.init(), record: BuildRecord(leftOut: [ticker]), at: MonotonicInstant(nanoseconds: 1))
        let plan = try #require(actions.compactMap { if case .start(let plan) = $0 { plan } else { nil } }.first)
        #expect(plan.builds.excluded.map(\.identity) == [ticker.identity])
        #expect(plan.builds.excluded.map(\.reason) == [ticker.reason])
        #expect(actions.contains(.say(.leftOutByRecord([ticker]))))
        #expect(!actions.contains { if case .keepRecord = $0 { true } else { false } })
        #expect(machine.ledger.record == BuildRecord(leftOut: [ticker]))
        #expect(machine.ledger.isLeftOut(PublishedPlugin(name: "Ticker", file: "elsewhere/libTicker.so", version: "0.3.1", identity: ticker.identity)))
    }

    @Test("an empty record says nothing at start")
    func emptyRecord() {
        let (_, actions) = SupervisionMachine.starting(.init(), record: BuildRecord(), at: MonotonicInstant(nanoseconds: 1))
        #expect(!actions.contains { if case .say(.leftOutByRecord) = $0 { true } else { false } })
    }

    @Test("the record keeps at most the newest few builds left out of each plugin")
    func bounded() {
        var ledger = BuildLedger()
        for inode in 1...20 {
            let identity = FileIdentity(device: 1, inode: UInt64(inode), size: 1, modificationNanoseconds: Int64(inode), changeNanoseconds: 1)
            ledger.leaveOut(PublishedPlugin(name: "Ticker", file: "plugins/libTicker.so", version: "0.\(inode)", identity: identity), because: "crashed")
        }
        #expect(ledger.record.leftOut.map(\.version) == (13...20).map { "0.\($0)" })
    }
}
