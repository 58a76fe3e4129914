import Testing

@testable import PluginHost

/// The supervisor's state machine with a thousand plugins: an event costs the parts of the
/// machine it touches, so a host of a thousand plugins answers as one of ten does. Here a
/// hundred thousand events take about a second in a debug build; a machine that went through
/// every plugin on each event (0.7 ms an event in a debug build: scanning every record for
/// the next trial's end, summing up every plugin for each `STATUS=`) takes over a minute,
/// and the time limit fails it.
@Suite("Supervision with a thousand plugins")
struct MachineScaleTests {
    static let count = 1_000

    @Test(
        "a hundred thousand events after a thousand plugins started leave every one serving",
        .timeLimit(.minutes(1)))
    func thousandPlugins() {
        var host = ScaledHost(plugins: Self.count)
        host.startServing()
        #expect(host.machine.state.hostState == .serving)

        var client = 0
        for round in 0..<100_000 {
            host.at = host.at + .milliseconds(1)
            switch round % 5 {
            case 0: host.handle(.tick)
            case 1: host.handle(.health(generation: 1, goodUntil: host.at + .seconds(10)))
            case 2: host.handle(.notification(generation: 1, .status("serving")))
            case 3: host.handle(.news(generation: 1, .health(["P\(round % Self.count)": 0.001])))
            default:
                // The same conditions told again: nothing of the plugins changed.
                host.handle(.news(generation: 1, .plugins(host.conditions)))
            }
            if round % 10_000 == 0 {
                client += 1
                host.handle(.control(client: client, .status))
                host.handle(.clientLeft(client: client))
            }
        }

        let status = host.machine.status
        #expect(status.state == .serving)
        #expect(status.plugins.count == Self.count)
        #expect(status.plugins.allSatisfy { $0.state == .serving }, "every plugin serves")
        #expect(host.restarts == 0, "no generation started after the first")
    }

    @Test("a plugin that changes among a thousand changes only its own status", .timeLimit(.minutes(1)))
    func oneChangeAmongAThousand() {
        var host = ScaledHost(plugins: Self.count)
        host.startServing()
        for round in 0..<100 {
            host.at = host.at + .milliseconds(1)
            let index = round * 7 % Self.count
            let name = "P\(index)"
            var conditions = host.conditions
            conditions[index].state = .unhealthy
            conditions[index].reason = "its health check failed"
            host.handle(.news(generation: 1, .plugins(conditions)))
            let unhealthy = host.machine.status.plugins.filter { $0.state != .serving }.map(\.name)
            #expect(unhealthy == [name], "\(name), and only it, is unhealthy once its worker says so")
            if unhealthy != [name] { return }
        }
        host.handle(.news(generation: 1, .plugins(host.conditions)))
        #expect(host.machine.status.plugins.allSatisfy { $0.state == .serving })
    }
}

/// A machine serving `plugins` plugins, driven as the supervisor drives it: every hold it
/// asks for is granted, and a generation it starts besides the first is counted.
private struct ScaledHost {
    var machine: SupervisionMachine
    var at: MonotonicInstant
    let plugins: [PublishedPlugin]
    let conditions: [PluginCondition]
    var restarts = 0

    init(plugins count: Int) {
        at = MonotonicInstant(nanoseconds: 1_000_000_000)
        var configuration = SupervisionMachine.Configuration()
        configuration.watching = true
        plugins = (0..<count).map { index -> PublishedPlugin in
            let identity = FileIdentity(device: 1, inode: UInt64(index + 1), size: 1_000, modificationNanoseconds: 1, changeNanoseconds: 1)
            let requires: [String] = index == 0 ? [] : ["P\(index / 2)"]
            return PublishedPlugin(
                name: "P\(index)", file: "plugins/libP\(index).so", version: "1.0.0", identity: identity, requires: requires,
                state: .running, providesService: index % 10 == 0)
        }
        conditions = plugins.map { plugin in
            PluginCondition(name: plugin.name, state: .serving, file: plugin.file, version: plugin.version, build: plugin.identity)
        }
        (machine, _) = SupervisionMachine.starting(configuration, at: at)
    }

    mutating func startServing() {
        handle(.started(generation: 1, substitutes: [], rewritten: []))
        handle(.news(generation: 1, .plugins(conditions)))
        handle(.ready(generation: 1, plugins: plugins))
    }

    mutating func handle(_ event: SupervisionEvent) {
        var queue = [event]
        while !queue.isEmpty {
            for action in machine.handle(queue.removeFirst(), at: at) {
                switch action {
                case .hold(let asked): queue.append(.holding(asked, asked: asked))
                case .start: restarts += 1
                default: break
                }
            }
        }
    }
}
