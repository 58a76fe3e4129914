// What one event costs the supervisor's state machine once N plugins serve, by kind of
// event, for N = 10, 100 and 1,000: the machine the supervisor runs, driven in process as the
// supervisor drives it, so that only its decisions are timed (no system call, no decoding).
extension MicroBenchmarks {
    /// The kinds of event a host that serves takes all the time, none of which changes a plugin.
    enum SteadyEvent: CaseIterable {
        case tick, health, status, conditions

        var label: String {
            switch self {
            case .tick: "a tick"
            case .health: "a health report"
            case .status: "a STATUS= notification"
            case .conditions: "the same conditions told again"
            }
        }
    }

    static func machineEvents() {
        let sizes = [10, 100, 1_000]
        var perEvent: [SteadyEvent: [Int: Double]] = [:]
        for kind in SteadyEvent.allCases {
            for count in sizes {
                var host = ServingMachine(plugins: count)
                let events = 20_000
                perEvent[kind, default: [:]][count] = median(runs: 9, warmUp: 1) {
                    for _ in 0..<events { host.take(kind) }
                } / Double(events)
            }
        }
        for kind in SteadyEvent.allCases {
            let figures = sizes.map { "N=\($0) \(format(perEvent[kind]![$0]!)) ns" }.joined(separator: ", ")
            print("machine, \(kind.label): \(figures); N=1000 / N=10 \(format(perEvent[kind]![1_000]! / perEvent[kind]![10]!))")
        }
    }
}

/// The state machine serving `plugins` plugins of one generation, as the supervisor drives it:
/// every hold it asks for is granted.
struct ServingMachine {
    private var machine: SupervisionMachine
    private var at = MonotonicInstant(nanoseconds: 1_000_000_000)
    private let conditions: [PluginCondition]

    init(plugins count: Int) {
        var configuration = SupervisionMachine.Configuration()
        configuration.watching = true
        let plugins = (0..<count).map { index -> PublishedPlugin in
            let identity = FileIdentity(device: 1, inode: UInt64(index + 1), size: 1_000, modificationNanoseconds: 1, changeNanoseconds: 1)
            return PublishedPlugin(
                name: "P\(index)", file: "plugins/libP\(index).so", version: "1.0.0", identity: identity,
                requires: index == 0 ? [] : ["P\(index / 2)"], state: .running, providesService: index % 10 == 0)
        }
        conditions = plugins.map { PluginCondition(name: $0.name, state: .serving, file: $0.file, version: $0.version, build: $0.identity) }
        (machine, _) = SupervisionMachine.starting(configuration, at: at)
        handle(.started(generation: 1, substitutes: [], rewritten: []))
        handle(.news(generation: 1, .plugins(conditions)))
        handle(.ready(generation: 1, plugins: plugins))
        precondition(machine.state.name == "serving" && machine.status.plugins.count == count)
    }

    mutating func take(_ kind: MicroBenchmarks.SteadyEvent) {
        at = at + .microseconds(10)
        switch kind {
        case .tick: handle(.tick)
        case .health: handle(.health(generation: 1, goodUntil: at + .seconds(10)))
        case .status: handle(.notification(generation: 1, .status("serving")))
        case .conditions: handle(.news(generation: 1, .plugins(conditions)))
        }
    }

    private mutating func handle(_ event: SupervisionEvent) {
        var queue = [event]
        while !queue.isEmpty {
            for action in machine.handle(queue.removeFirst(), at: at) {
                if case .hold(let asked) = action { queue.append(.holding(asked, asked: asked)) }
            }
        }
    }
}
