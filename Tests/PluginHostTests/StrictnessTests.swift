import Testing

@testable import PluginHost

/// How strict each generation is: the machine says it in every plan it starts, by the table of
/// docs/operations.md ("How strict each generation is").
@Suite("How strict each generation is, as the machine says it")
struct StrictnessTests {
    private func firstPlan(watching: Bool, keepingGoing: Bool) -> GenerationPlan? {
        var configuration = SupervisionMachine.Configuration()
        configuration.watching = watching
        configuration.keepingGoing = keepingGoing
        let (_, actions) = SupervisionMachine.starting(configuration, at: MonotonicInstant(nanoseconds: 1))
        return actions.lazy.compactMap { if case .start(let plan) = $0 { plan } else { nil } }.first
    }

    @Test("the first generation of a plain host refuses the start for a bad file or a failure")
    func plainStartIsAllOrNothing() throws {
        let plan = try #require(firstPlan(watching: false, keepingGoing: false))
        #expect(plan.strictness.admission == .allOrNothing)
        #expect(!plan.strictness.badFilesNotAdded)
        #expect(!plan.strictness.goesOnFromServing)
        #expect(!plan.strictness.leavesUnreadyOut)
    }

    @Test("the first generation of a host that watches leaves a bad file out, as a later scan would")
    func watchingStartLeavesBadFilesOut() throws {
        let plan = try #require(firstPlan(watching: true, keepingGoing: false))
        #expect(plan.strictness.admission == .leaveBadFilesOut)
        #expect(plan.strictness.badFilesNotAdded)
    }

    @Test("--keep-going: the first generation leaves out what fails, and still reports a bad file as a problem")
    func keepGoingLeavesFailuresOut() throws {
        let plan = try #require(firstPlan(watching: false, keepingGoing: true))
        #expect(plan.strictness.admission == .leaveFailuresOut)
        #expect(!plan.strictness.badFilesNotAdded)
        #expect(!plan.strictness.leavesUnreadyOut)
    }

    @Test("only a generation that heals (a restart's, a restore's) leaves out a plugin that does not get ready; only one that starts a host (the first, or a new host's, which the old host falls back from) fails as a whole",
          arguments: GenerationPlan.Cause.allCases)
    func onlyHealingGenerationsLeaveUnreadyOut(cause: GenerationPlan.Cause) {
        let strictness = Strictness(for: cause, watching: false, keepingGoing: false)
        #expect(strictness.leavesUnreadyOut == (cause == .restart || cause == .restore))
        #expect(strictness.goesOnFromServing == !(cause == .start || cause == .hostUpgrade))
    }
}
