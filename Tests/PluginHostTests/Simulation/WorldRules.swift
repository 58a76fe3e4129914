#if !STANDALONE_SIMULATOR
@testable import PluginHost
#endif

/// The rules of docs/operations.md that the world judges by, written from the document and
/// sharing no code with the machine they check: a bug in the machine's version of a rule
/// cannot move the world's with it (ArchitectureTests keeps the machine's judgements out of
/// the simulation).
enum WorldRules {
    /// "Restarts, the backoff": the first restart in a row that leaving out does not heal is
    /// at once, the second waits `--restart-delay`, each one more twice as long, up to
    /// `--restart-max-delay`.
    static func backoff(restartsInARow count: Int, delay: Duration, maximum: Duration) -> Duration {
        guard count >= 2 else { return .zero }
        let doublings = count - 2
        // Past 2^40 any delay is past any maximum: no overflow, the maximum holds.
        guard doublings < 40 else { return maximum }
        let wait = delay * (1 << doublings)
        return wait < maximum ? wait : maximum
    }

    /// "Who is blamed, 4": a short call is a load, a bootstrap or a hook; a service's run
    /// phase, waiting for work, is not.
    static func inShortCall(_ phase: Phase) -> Bool {
        switch phase {
        case .run: false
        case .unknown, .load, .bootstrap, .reload, .shutdown, .stop, .exit, .ready, .health, .drain, .change: true
        }
    }

    /// "Upgrades" and "Restarts" (an operator's): a generation of an upgrade, or of an
    /// operator's restart, loads beside the serving one and waits for the word to bootstrap.
    static func loadsBeside(_ cause: GenerationPlan.Cause) -> Bool {
        cause == .upgrade || cause == .operatorRestart
    }

    /// "How strict each generation is", row by row: what is wrong with the strictness the
    /// machine gave a generation started for `cause`, if anything.
    static func strictnessProblem(_ strictness: Strictness, cause: GenerationPlan.Cause, watching: Bool, keepingGoing: Bool) -> String? {
        let first = cause == .start
        let heals = cause == .restart || cause == .restore
        var expected: [String] = []
        let admission: Strictness.Tolerance = !first || keepingGoing ? .leaveFailuresOut : watching ? .leaveBadFilesOut : .allOrNothing
        if strictness.admission != admission { expected.append("a failure at load or bootstrap handled as \(admission)") }
        if strictness.badFilesNotAdded != (!first || watching) { expected.append(!first || watching ? "a bad file not added" : "a bad file refusing the start") }
        if strictness.goesOnFromServing != !first { expected.append(first ? "the start refused by what fails" : "a failure not added, as a rescan") }
        if strictness.leavesUnreadyOut != heals { expected.append(heals ? "a plugin not ready left out" : "a plugin not ready ending the generation") }
        guard !expected.isEmpty else { return nil }
        return "generation of cause \(cause) (watching: \(watching), keep going: \(keepingGoing)) should have " + expected.joined(separator: ", ")
    }

    /// "Left out": every plugin that requires one leaving leaves with it, transitively, among
    /// `plugins` (indices into the world's plugins).
    static func dependents(of leaving: Set<String>, among plugins: [Int]) -> Set<String> {
        var gone = leaving
        var changed = true
        while changed {
            changed = false
            for plugin in plugins {
                let name = SimulatedWorld.plugins[plugin].name
                guard !gone.contains(name), SimulatedWorld.plugins[plugin].requires.contains(where: gone.contains) else { continue }
                gone.insert(name)
                changed = true
            }
        }
        return gone.subtracting(leaving)
    }
}
