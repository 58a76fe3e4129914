import Synchronization

/// The sequences of one `make simulate`, shared by its threads: each takes the next seed as
/// it finishes one, so no thread waits for another's slow sequence, and all stop once one
/// finds a violation. What each learns is gathered under a lock when it stops. Each random
/// seed runs twice: a sequence of supervision (``Simulation``), and one of the host's own
/// upgrade (``HostUpgradeSimulation``).
final class Search: Sendable {
    let sequences: Int
    let firstSeed: UInt64
    private let next = Atomic<Int>(0)
    private let failed = Atomic<Bool>(false)
    private let gathered = Mutex(Gathered())

    struct Gathered {
        var ran = 0
        var events = 0
        var failures: [Simulation.Outcome] = []
        var hostUpgradeFailures: [HostUpgradeSimulation.Outcome] = []
        var endings: [String: Int] = [:]
        var transitions: Set<Transition> = []
    }

    init(sequences: Int, firstSeed: UInt64) {
        self.sequences = sequences
        self.firstSeed = firstSeed
    }

    /// Runs sequences until none is left or one has failed.
    func run() {
        var mine = Gathered()
        while !failed.load(ordering: .relaxed) {
            let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
            guard index < Regressions.all.count + sequences else { break }
            // The sequences that once found a bug first, then the random ones.
            let outcome = if index < Regressions.all.count {
                Simulation.run(seed: Regressions.all[index].seed, operations: Regressions.all[index].operations)
            } else {
                Simulation.run(seed: firstSeed &+ UInt64(index - Regressions.all.count))
            }
            mine.ran += 1
            mine.events += outcome.events
            mine.endings[outcome.ending, default: 0] += 1
            if !mine.transitions.isSuperset(of: outcome.transitions) { mine.transitions.formUnion(outcome.transitions) }
            if !outcome.violations.isEmpty {
                mine.failures.append(outcome)
                failed.store(true, ordering: .relaxed)
            }
            guard index >= Regressions.all.count else { continue }
            let upgrade = HostUpgradeSimulation.run(seed: firstSeed &+ UInt64(index - Regressions.all.count))
            mine.events += upgrade.events
            if !upgrade.violations.isEmpty {
                mine.hostUpgradeFailures.append(upgrade)
                failed.store(true, ordering: .relaxed)
            }
        }
        gathered.withLock { all in
            all.ran += mine.ran
            all.events += mine.events
            all.failures += mine.failures
            all.hostUpgradeFailures += mine.hostUpgradeFailures
            all.endings.merge(mine.endings, uniquingKeysWith: +)
            all.transitions.formUnion(mine.transitions)
        }
    }

    /// Everything run, the failures lowest seed first, as reports.
    var results: (ran: Int, events: Int, failures: [String], endings: [String: Int], transitions: Set<Transition>) {
        gathered.withLock { all in
            let failures = all.failures.map { ($0.seed, Simulation.report($0)) } + all.hostUpgradeFailures.map { ($0.seed, HostUpgradeSimulation.report($0)) }
            return (all.ran, all.events, failures.sorted { $0.0 < $1.0 }.map(\.1), all.endings, all.transitions)
        }
    }
}
