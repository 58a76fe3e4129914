// In-process figures, built by `make bench` with the host's own sources and the shared
// libPluginABI.so: how long resolving the plugin graph takes, lookups in the chain that do
// not slow down as it grows, and what an event costs the supervisor's state machine.
import PluginABI
import Synchronization

@main
struct MicroBenchmarks {
    /// `micro` runs all; `micro resolve`, `micro lookups` or `micro machine` one of them (to
    /// profile it).
    static func main() async throws {
        let only = CommandLine.arguments.dropFirst().first
        if only == nil || only == "resolve" { resolution() }
        if only == nil || only == "lookups" { try await lookups() }
        if only == nil || only == "machine" { machineEvents() }
    }

    /// Median of `runs` timings of `body`, in nanoseconds, after `warmUp` untimed runs.
    static func median(runs: Int, warmUp: Int = 2, _ body: () throws -> Void) rethrows -> Double {
        for _ in 0..<warmUp { try body() }
        var times: [Double] = []
        let clock = ContinuousClock()
        for _ in 0..<runs {
            let start = clock.now
            try body()
            let (seconds, attoseconds) = (clock.now - start).components
            times.append(Double(seconds) * 1e9 + Double(attoseconds) / 1e9)
        }
        return times.sorted()[times.count / 2]
    }

    // MARK: Resolution

    /// `count` manifests in layers of 100; each requires 1 to 5 plugins (3 on average) of
    /// earlier layers, spread over them by multiplying with a prime, and links the Swift
    /// runtime and the first plugin it requires.
    static func manifests(_ count: Int) -> (candidates: [PluginCandidate], edges: Int) {
        var candidates: [PluginCandidate] = []
        var edges = 0
        let version = SemanticVersion("1.0.0")!
        let runtime = [
            "libswiftCore.so", "libswift_Concurrency.so", "libswift_StringProcessing.so", "libswift_RegexParser.so",
            "libswiftSynchronization.so", "libswiftGlibc.so", "libm.so.6", "libPluginABI.so", "libc.so.6",
        ]
        for index in 0..<count {
            let layerStart = index / 100 * 100
            var requires: [String] = []
            if layerStart > 0 {
                for choice in 0..<(1 + index % 5) {
                    let name = "P\((index &* 7919 &+ choice &* 104_729) % layerStart)"
                    if !requires.contains(name) { requires.append(name) }
                }
            }
            edges += requires.count
            // What a plugin links: the runtime, and the plugins whose types it uses.
            let needed = runtime + requires.prefix(1).map { "lib\($0).so" }
            candidates.append(PluginCandidate(
                file: "plugins/libP\(index).so",
                manifest: PluginManifest(name: "P\(index)", version: version, abi: PluginABIVersion.current, requires: requires),
                needed: needed))
        }
        // The resolver must not depend on the order files come in.
        return (candidates.reversed(), edges)
    }

    /// Resolving 1,000 and 10,000 plugins against their budgets: a host resolves once per
    /// start, so these bound what ordering adds to a start. Also resolved without the
    /// libraries the plugins link, to show what checking them for undeclared plugins costs.
    static func resolution() {
        let resolver = DependencyResolver(abiVersion: PluginABIVersion.current)
        for (count, budget) in [(1_000, 1.0), (10_000, 15.0)] {
            let (candidates, edges) = manifests(count)
            let unlinked = candidates.map { candidate in
                var candidate = candidate
                candidate.needed = []
                return candidate
            }
            // The resolutions are kept until every run is timed: a host keeps its resolution
            // for its whole life, so freeing one is no part of its cost.
            func time(_ candidates: [PluginCandidate]) -> Double {
                var resolutions: [DependencyResolver.Resolution] = []
                let nanoseconds = median(runs: 31) { resolutions.append(resolver.resolve(candidates)) }
                precondition(resolutions.allSatisfy { $0.problems.isEmpty && $0.order.count == count })
                return nanoseconds
            }
            let (whole, withoutLinks) = (time(candidates), time(unlinked))
            print("resolve \(count) plugins, \(edges) edges, \(candidates[0].needed.count) libraries linked each: "
                + "\(format(whole / 1e6)) ms (budget \(format(budget)) ms); "
                + "without checking the linked libraries \(format(withoutLinks / 1e6)) ms")
        }
    }

    // MARK: Lookups

    /// Builds a chain of `length` components, each declaring the ten before it and looking
    /// each up once by class and once by protocol while it bootstraps.
    static func chain(_ length: Int) async throws -> (nanoseconds: Double, lookups: Int) {
        measured.total.withLock { $0 = (0, 0) }
        var chain = Bootstrapped()
        for index in 0..<length {
            let requires = (max(0, index - 10)..<index).reversed().map { "C\($0)" }
            (_, chain) = try await chain.bootstrap(componentType(index), as: PluginIdentity(name: "C\(index)", requires: requires))
        }
        return measured.total.withLock { $0 }
    }

    static func lookups() async throws {
        // The runtime caches each (type, protocol) conformance after its first cast: warm it,
        // then measure the steady state, the two lengths alternately.
        _ = try await chain(100)
        var samples: [Int: [Double]] = [100: [], 1_000: []]
        var counts: [Int: Int] = [:]
        for _ in 0..<15 {
            for length in [100, 1_000] {
                let (nanoseconds, lookups) = try await chain(length)
                samples[length]!.append(nanoseconds / Double(lookups))
                counts[length] = lookups
            }
        }
        var perLookup: [Int: Double] = [:]
        for length in [100, 1_000] {
            perLookup[length] = samples[length]!.sorted()[samples[length]!.count / 2]
            print("chain of \(length): \(counts[length]!) lookups by class and by protocol per chain, median \(format(perLookup[length]!)) ns per lookup")
        }
        print("lookup ns(1,000-chain) / ns(100-chain): \(format(perLookup[1_000]! / perLookup[100]!)) (target at most 1.5)")
    }

    static func format(_ value: Double) -> String {
        let hundredths = Int((value * 100).rounded())
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}

/// Total time spent in lookups, and how many.
final class Measured: Sendable {
    let total = Mutex<(Double, Int)>((0, 0))
}

/// What the components of the chain being measured add their lookups to.
let measured = Measured()
