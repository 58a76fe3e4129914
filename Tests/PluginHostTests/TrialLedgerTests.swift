import Testing

@testable import PluginHost

/// What the ledger keeps of a trial while the builds of its plugin change under it.
@Suite("A trial follows its plugin's build")
struct TrialLedgerTests {
    private func build(_ version: String, inode: UInt64) -> PublishedPlugin {
        PublishedPlugin(
            name: "Ticker", file: "p/libTicker.so", version: version,
            identity: FileIdentity(device: 1, inode: inode, size: 100, modificationNanoseconds: Int64(inode), changeNanoseconds: 1), state: .running)
    }

    private func serving(_ builds: [PublishedPlugin]) -> Generation {
        var generation = Generation(number: 3, cause: .restart, startedAt: MonotonicInstant(nanoseconds: 1), life: .serving)
        generation.plugins = builds
        return generation
    }

    @Test("a build on trial whose file was written in place stays on trial as the build a restart loaded, replacing the same build before, until the same time")
    func trialGoesOnWithTheRewrittenBuild() {
        var ledger = BuildLedger()
        let before = build("0.1.0", inode: 1), onTrial = build("0.2.0", inode: 2), rewritten = build("0.2.1", inode: 3)
        let until = MonotonicInstant(nanoseconds: 30_000_000_000)
        ledger.beginTrial(of: onTrial, replacing: before, until: until)
        ledger.follow(serving([rewritten]))
        let trial = ledger.trial(of: rewritten)
        #expect(trial?.replaced == before)
        #expect(trial?.until == until)
        #expect(ledger.trial(of: onTrial) == nil, "the bytes on trial are gone")
        #expect(!ledger.record.permanent.map(\.version).contains("0.2.1"), "a build on trial is not permanent")
        #expect(ledger.record.onTrial.map(\.version) == ["0.2.1"], "the record keeps the build on trial as it runs now")
    }

    @Test("a generation that serves the build a trial replaced does not carry the trial over to it")
    func buildBeforeIsNotOnTrial() {
        var ledger = BuildLedger()
        let before = build("0.1.0", inode: 1), onTrial = build("0.2.0", inode: 2)
        ledger.beginTrial(of: onTrial, replacing: before, until: MonotonicInstant(nanoseconds: 30_000_000_000))
        ledger.follow(serving([before]))
        #expect(ledger.trial(of: before) == nil)
        #expect(ledger.trial(of: onTrial) != nil)
    }
}
