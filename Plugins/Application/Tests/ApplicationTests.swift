import Application
import Domain
import Persistence
import PluginABI
import Synchronization

/// Peels whatever banana the test says: what Application's tests stand in for Domain.
final class ScriptedPeeler: BananaPeeling {
    private let peelings = Mutex<[Peeling]>([])
    private let count = Mutex(0)

    init(_ peelings: [Peeling]) {
        self.peelings.withLock { $0 = peelings }
    }

    /// How many times Application peeled.
    var peels: Int { count.withLock { $0 } }

    var storePath: String { "(scripted)" }

    func peelNext() throws -> Peeling {
        count.withLock { $0 += 1 }
        return peelings.withLock { $0.removeFirst() }
    }
}

/// Application's component, bootstrapped without the host against a scripted peeler.
@main
struct ApplicationTests {
    static func main() async throws {
        let peeler = ScriptedPeeler([Peeling(banana: Banana(id: 7, isPeeled: true), harvested: false, peeled: 7, unpeeled: 2)])
        let chain = try await BootstrapHarness()
            .providing(peeler, as: "Domain")
            .bootstrap(ApplicationBootstrapping.self, as: "Application")
        let application = try chain.component(ApplicationBootstrapping.self)
        check(peeler.peels == 1, "Application peels one banana per run")
        check(application.peeling.banana.id == 7, "Application reports the banana Domain peeled")

        let unprovided = try? await BootstrapHarness().bootstrap(ApplicationBootstrapping.self, as: "Application")
        check(unprovided == nil, "without Domain, Application does not bootstrap")
        print("ApplicationTests: passed")
    }

    static func check(_ condition: Bool, _ what: String) {
        precondition(condition, "ApplicationTests: \(what)")
    }
}
