// `make simulate`: runs the fault sequences that once found a bug (`Regressions`), then
// seeded random ones, against the supervisor's state machine, on every processor; each
// random seed also runs a host upgrade with its faults (`HostUpgradeSimulation`, two hosts'
// machines). It ends with `N sequences, M events, K invariant violations`. A violation is
// printed with its seed and the shrunk sequence that replays it.
//
// Usage: simulate [SEQUENCES [SEED]]   (SEED: the first sequence's; the default is random)
//        simulate --diagram            (the state diagram of docs/architecture.md)
//        simulate --trace SEED         (every event and action of one sequence)
//        simulate --survey N SEED      (every failing seed's first violation, unshrunk, grouped)

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "--diagram" {
    print(Simulation.stateDiagram(of: Simulation.diagramTransitions()))
    ProcessControl.exit(0)
}
if arguments.first == "--trace", let seed = arguments.dropFirst().first.flatMap({ UInt64($0) }) {
    let outcome = Simulation.run(seed: seed, operations: Simulation.operations(seed: seed), tracing: true)
    print(outcome.trace.joined(separator: "\n"))
    print("ended: \(outcome.ending); violations: \(outcome.violations)")
    ProcessControl.exit(outcome.violations.isEmpty ? 0 : 1)
}
if arguments.first == "--survey" {
    // Every failing seed's first violation, unshrunk, grouped by its words: to see what kinds
    // of violation a change brings, all at once.
    let count = arguments.dropFirst().first.flatMap { Int($0) } ?? 10_000
    let first = arguments.dropFirst(2).first.flatMap { UInt64($0) } ?? 1
    let outcomes = concurrentMap((0..<count).map { first &+ UInt64($0) }, minimumPerThread: 1) { seed in
        Simulation.run(seed: seed, operations: Simulation.operations(seed: seed))
    }
    var kinds: [String: (count: Int, seed: UInt64)] = [:]
    for outcome in outcomes {
        guard let violation = outcome.violations.first else { continue }
        let kind = String(violation.split(separator: " ").prefix(8).joined(separator: " ").map { $0.isNumber ? "#" : $0 })
        kinds[kind] = ((kinds[kind]?.count ?? 0) + 1, kinds[kind]?.seed ?? outcome.seed)
    }
    for (kind, found) in kinds.sorted(by: { $0.value.count > $1.value.count }) { print("\(found.count)\tseed \(found.seed)\t\(kind)") }
    print("\(outcomes.filter { !$0.violations.isEmpty }.count) of \(count) sequences fail")
    ProcessControl.exit(0)
}
// Options first: `--jobs N` (default: every processor).
var positional = arguments
var jobs = processorCount
if let flag = positional.firstIndex(of: "--jobs") {
    guard flag + 1 < positional.count, let count = Int(positional[flag + 1]), count > 0 else {
        print("simulate: --jobs takes a number of threads, at least 1")
        ProcessControl.exit(64)
    }
    jobs = count
    positional.removeSubrange(flag...(flag + 1))
}
let sequences = positional.first.flatMap { Int($0) } ?? 10_000
let firstSeed = positional.dropFirst().first.flatMap { UInt64($0) } ?? UInt64.random(in: 1...UInt64(UInt32.max))

print("simulate: \(sequences) sequences from seed \(firstSeed), on \(jobs) thread\(jobs == 1 ? "" : "s")")
let started = MonotonicInstant.now
let search = Search(sequences: sequences, firstSeed: firstSeed)
let finished = Semaphore()
var helpers = 0
for _ in 1..<jobs where startDetachedThread({ search.run(); finished.signal() }) { helpers += 1 }
search.run()
for _ in 0..<helpers { finished.wait(timeout: nil) }
let (ran, events, failures, endings, transitions) = search.results
let elapsed = MonotonicInstant.now - started
for failure in failures.prefix(3) {
    print(failure)
    print("")
}
print("ends (reason status: sequences): " + endings.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", "))
print("state changes seen: \(transitions.count)")
print("time: \(TextFormat.seconds(elapsed)), \(ran > 0 ? TextFormat.milliseconds(elapsed / ran) : "-") a sequence")
print("\(ran) sequences, \(events) events, \(failures.count) invariant violations")
if !failures.isEmpty { ProcessControl.exit(1) }
