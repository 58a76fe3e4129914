import Testing
@testable import PluginHost

@Suite("A build's life: each build of a plugin once, with the one life every view reads")
struct BuildLifeTests {
    private func lives(onTrial: [String] = [], permanent: [String] = [], leftOut: [(String, String)] = []) -> [String] {
        BuildLife.lives(onTrial: onTrial, permanent: permanent, leftOut: leftOut.map { (build: $0.0, reason: .recorded($0.1)) }, isSame: ==)
            .map { "\($0.build) \($0.life.verdict)" }
    }

    @Test("the newest permanent build is permanent, the ones before are kept, newest first")
    func permanentAndKept() {
        #expect(lives(permanent: ["0.1.0", "0.2.0", "0.3.0"]) == ["0.3.0 permanent", "0.2.0 kept", "0.1.0 kept"])
    }

    @Test("a permanent build that crashed is left out, once, and the build a start runs is permanent")
    func leftOutWins() {
        #expect(lives(permanent: ["1.0.1", "1.0.3"], leftOut: [("1.0.3", "crashed")]) == ["1.0.1 permanent", "1.0.3 left out"])
    }

    @Test("a build rolled back away from is left out, not kept; rollback --to accepts only what can come back")
    func rolledBackAwayFrom() {
        let lives = BuildLife.lives(onTrial: [], permanent: ["0.1.0", "0.3.0", "0.2.0"], leftOut: [(build: "0.3.0", reason: .rolledBackByOperator)], isSame: ==)
        #expect(lives.map(\.build) == ["0.2.0", "0.1.0", "0.3.0"])
        #expect(lives.filter { $0.life.canComeBack }.map(\.build) == ["0.2.0", "0.1.0"])
        #expect(lives.last?.life == .leftOut(.rolledBackByOperator))
    }

    @Test("a build on trial is on trial, though it was permanent once; the permanent build is the newest other")
    func onTrialWins() {
        #expect(lives(onTrial: ["0.1.0"], permanent: ["0.1.0", "0.2.0"]) == ["0.1.0 on trial", "0.2.0 permanent"])
        #expect(lives(onTrial: ["0.2.0"], permanent: ["0.1.0", "0.2.0"]) == ["0.2.0 on trial", "0.1.0 permanent"])
    }

    @Test("builds left out are listed newest first, each once")
    func leftOutNewestFirst() {
        #expect(lives(leftOut: [("0.1.0", "a"), ("0.2.0", "b"), ("0.1.0", "c")]) == ["0.1.0 left out", "0.2.0 left out"])
    }
}
