import Domain
import Persistence
import PluginABI
import Synchronization

/// Bananas in memory: what Domain's tests stand in for Persistence's store.
final class MemoryStore: BananaStoring {
    private let bananas = Mutex<[Banana]>([])

    var path: String { "(memory)" }

    func update<Result>(_ change: (inout [Banana]) throws -> Result) throws -> Result {
        try bananas.withLock { bananas in
            var changed = bananas
            let result = try change(&changed)
            bananas = changed
            return result
        }
    }
}

/// Domain's component, bootstrapped without the host against a store in memory.
@main
struct DomainTests {
    static func main() async throws {
        let chain = try await BootstrapHarness()
            .providing(MemoryStore(), as: "Persistence")
            .bootstrap(DomainBootstrapping.self, as: "Domain")
        let peeler = try chain.component(BananaPeeling.self)

        let first = try peeler.peelNext()
        check(first.harvested && first.banana.id == 1, "the first peel harvests a bunch and peels banana #1")
        check(first.peeled == 1 && first.unpeeled == 2, "a bunch has three bananas")
        _ = try peeler.peelNext()
        _ = try peeler.peelNext()
        let fourth = try peeler.peelNext()
        check(fourth.harvested && fourth.banana.id == 4, "when every banana is peeled, a new bunch is harvested")
        print("DomainTests: passed")
    }

    static func check(_ condition: Bool, _ what: String) {
        precondition(condition, "DomainTests: \(what)")
    }
}
