// `make simulate`: runs seeded random fault sequences against the supervisor's state
// machine, on every processor, and ends with `N sequences, M events, K invariant
// violations`. A violation is printed with its seed and the shrunk sequence that replays it.
//
// Usage: simulate [SEQUENCES [SEED]]   (SEED: the first sequence's; the default is random)

let arguments = CommandLine.arguments.dropFirst()
let sequences = arguments.first.flatMap { Int($0) } ?? 10_000
let firstSeed = arguments.dropFirst().first.flatMap { UInt64($0) } ?? UInt64.random(in: 1...UInt64(UInt32.max))
let batch = 512

print("simulate: \(sequences) sequences from seed \(firstSeed), on \(processorCount) threads")
let started = MonotonicInstant.now
var events = 0
var failures: [Simulation.Outcome] = []
var ran = 0
var reasons: [String: Int] = [:]
while ran < sequences, failures.isEmpty {
    let count = min(batch * processorCount, sequences - ran)
    let seeds = (0..<count).map { firstSeed &+ UInt64(ran + $0) }
    let outcomes = concurrentMap(seeds, minimumPerThread: 1) { seed in Simulation.run(seed: seed) }
    for outcome in outcomes {
        events += outcome.events
        if !outcome.violations.isEmpty { failures.append(outcome) }
        reasons[outcome.ending, default: 0] += 1
    }
    ran += count
}
let elapsed = MonotonicInstant.now - started
for failure in failures.prefix(3) {
    print(Simulation.report(failure))
    print("")
}
print("ends: " + reasons.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
print("time: \(TextFormat.seconds(elapsed)) (\(ran > 0 ? elapsed / ran : .zero) a sequence)")
print("\(ran) sequences, \(events) events, \(failures.count) invariant violations")
if !failures.isEmpty { ProcessControl.exitImmediately(1) }
