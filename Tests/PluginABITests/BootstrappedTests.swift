import PluginABI
import Synchronization
import Testing

@Suite("Bootstrapped: the immutable chain")
struct BootstrappedTests {
    @Test("an empty chain has no components and says so when asked for one")
    func emptyChain() throws {
        let chain = Bootstrapped()
        #expect(chain.count == 0)
        #expect(chain.plugins.isEmpty)
        let error = try #require(throws: BootstrappingError.self) { try chain.component(Store.self) }
        #expect(error.code == .componentNotFound)
        #expect(error.requestingPlugin == nil)
        #expect(error.description.hasPrefix("expected component not found: the host asked for PluginABITests.Store"))
    }

    @Test("bootstrapping returns a new chain and leaves the earlier one unchanged")
    func bootstrapReturnsNewValue() throws {
        let empty = Bootstrapped()
        let one = try empty.bootstrap(Store(), as: PluginIdentity(name: "Store"))
        let two = try one.bootstrap(Peeler(), as: PluginIdentity(name: "Peeler", requires: ["Store"]))

        #expect(empty.count == 0)
        #expect(one.count == 1)
        #expect(two.count == 2)
        #expect(one.plugins.map(\.name) == ["Store"])
        #expect(two.plugins.map(\.name) == ["Store", "Peeler"])
        #expect(throws: BootstrappingError.self) { try empty.component(Store.self) }
        #expect(throws: BootstrappingError.self) { try one.component(Peeler.self) }
    }

    @Test("a component obtains an earlier component by its class")
    func lookupByClass() throws {
        let store = Store()
        let peeler = Peeler()
        let chain = try Bootstrapped()
            .bootstrap(store, as: PluginIdentity(name: "Store"))
            .bootstrap(peeler, as: PluginIdentity(name: "Peeler", requires: ["Store"]))
        #expect(peeler.foundStore.withLock { $0 } === store)
        #expect(try chain.component(Store.self) === store)
    }

    @Test("lookup by a superclass or a protocol finds the conforming component")
    func lookupBySuperclassAndProtocol() throws {
        let special = SpecialStore()
        let chain = try Bootstrapped().bootstrap(special, as: PluginIdentity(name: "Special"))
        #expect(try chain.component(Store.self) === special)
        #expect(try chain.component((any Shelf).self) === special)
    }

    @Test("the earliest matching component wins")
    func earliestWins() throws {
        let first = Store()
        let chain = try Bootstrapped()
            .bootstrap(first, as: PluginIdentity(name: "A"))
            .bootstrap(Store(), as: PluginIdentity(name: "B"))
        #expect(try chain.component(Store.self) === first)
    }

    @Test("a component sees what it requires, directly and transitively, nearest first")
    func transitiveVisibility() throws {
        let store = Store()
        let probe = Probe<Store>()
        _ = try Bootstrapped()
            .bootstrap(store, as: PluginIdentity(name: "Store"))
            .bootstrap(Peeler(), as: PluginIdentity(name: "Peeler", requires: ["Store"]))
            .bootstrap(probe, as: PluginIdentity(name: "App", requires: ["Peeler"]))
        let result = try #require(probe.result.withLock { $0 })
        #expect(try result.get() === store)
        #expect(probe.seen.withLock { $0 } == ["Peeler", "Store"])
    }

    @Test("an undeclared component is not found, even though it was bootstrapped earlier")
    func undeclaredIsNotFound() throws {
        let probe = Probe<Store>()
        _ = try Bootstrapped()
            .bootstrap(Store(), as: PluginIdentity(name: "Store"))
            .bootstrap(Peeler(), as: PluginIdentity(name: "Peeler", requires: ["Store"]))
            .bootstrap(probe, as: PluginIdentity(name: "Sneaky", requires: ["Peeler2"]))
        let result = try #require(probe.result.withLock { $0 })
        let error = try #require(throws: BootstrappingError.self) { try result.get() }
        #expect(error.code == .componentNotFound)
        #expect(error.requestingPlugin == "Sneaky")
        #expect(error.requestedType == "PluginABITests.Store")
        #expect(error.visiblePlugins.isEmpty)
        #expect(
            error.description
                == "expected component not found: plugin Sneaky asked for PluginABITests.Store, but it can see no components; "
                + "plugin Store provides one, but Sneaky does not require it: add \"Store\" to \"requires\" in the manifest of Sneaky")
    }

    @Test("the not-found error lists what the requester could see")
    func notFoundListsVisible() throws {
        let probe = Probe<Unprovided>()
        _ = try Bootstrapped()
            .bootstrap(Store(), as: PluginIdentity(name: "Store"))
            .bootstrap(probe, as: PluginIdentity(name: "App", requires: ["Store"]))
        let result = try #require(probe.result.withLock { $0 })
        let error = try #require(throws: BootstrappingError.self) { try result.get() }
        #expect(error.visiblePlugins == ["Store"])
        #expect(
            error.description
                == "expected component not found: plugin App asked for PluginABITests.Unprovided, but it can see only Store; "
                + "add the plugin that provides it to \"requires\" in the manifest of App and make sure that plugin is installed")
    }

    @Test("in a view, the nearest match wins: declared plugins in manifest order before theirs")
    func nearestWins() throws {
        let first = Store()
        let second = Store()
        let probe = Probe<Store>()
        _ = try Bootstrapped()
            .bootstrap(first, as: PluginIdentity(name: "First"))
            .bootstrap(second, as: PluginIdentity(name: "Second"))
            .bootstrap(Peeler(), as: PluginIdentity(name: "Peeler", requires: ["First"]))
            .bootstrap(probe, as: PluginIdentity(name: "App", requires: ["Peeler", "Second"]))
        let result = try #require(probe.result.withLock { $0 })
        #expect(try result.get() === second)
    }

    @Test("an older chain value keeps its components when another branch appends")
    func branches() throws {
        let base = try Bootstrapped().bootstrap(Store(), as: PluginIdentity(name: "Base"))
        let left = try base.appending(Store(), as: PluginIdentity(name: "Left"))
        let right = try base.appending(Store(), as: PluginIdentity(name: "Right"))
        #expect(base.plugins.map(\.name) == ["Base"])
        #expect(left.plugins.map(\.name) == ["Base", "Left"])
        #expect(right.plugins.map(\.name) == ["Base", "Right"])
    }

    @Test("an asynchronous bootstrap is awaited, and a synchronous one runs through the async entry")
    func asynchronousBootstrap() async throws {
        let chain = try await Bootstrapped()
            .bootstrap(Store(), as: PluginIdentity(name: "Store"))
            .bootstrap(AsyncPeeler(), as: PluginIdentity(name: "Peeler", requires: ["Store"]))
        let peeler = try chain.component(AsyncPeeler.self)
        #expect(peeler.ready.withLock { $0 })
    }

    @Test("a component receives its own settings and name")
    func settingsArePassed() throws {
        let probe = Probe<Store>()
        _ = try Bootstrapped().bootstrap(probe, as: PluginIdentity(name: "App"), settings: Settings(["answer": 42], for: "App"))
        #expect(probe.settings.withLock { $0 }?["answer"] == .number(42))
        #expect(probe.pluginName.withLock { $0 } == "App")
    }

    @Test("a throwing bootstrap propagates its error and adds nothing")
    func throwingBootstrap() throws {
        let chain = try Bootstrapped().bootstrap(Store(), as: PluginIdentity(name: "Store"))
        #expect(throws: Refusal.self) { try chain.bootstrap(Refusing(), as: PluginIdentity(name: "Refusing")) }
        #expect(chain.plugins.map(\.name) == ["Store"])
    }

    @Test("two plugins of one name cannot both join the chain")
    func duplicateName() throws {
        let chain = try Bootstrapped().bootstrap(Store(), as: PluginIdentity(name: "Store"))
        let error = try #require(throws: BootstrappingError.self) { try chain.bootstrap(Store(), as: PluginIdentity(name: "Store")) }
        #expect(error.code == .duplicatePlugin)
    }
}

private protocol Shelf: AnyObject {}

private class Store: Bootstrapping, @unchecked Sendable {
    func bootstrap(_ bootstrapped: Bootstrapped) throws {}
}

private final class SpecialStore: Store, Shelf, @unchecked Sendable {}

private final class Unprovided {}

private final class Peeler: Bootstrapping {
    let foundStore = Mutex<Store?>(nil)

    func bootstrap(_ bootstrapped: Bootstrapped) throws {
        let store = try bootstrapped.component(Store.self)
        foundStore.withLock { $0 = store }
    }
}

/// Records what it saw while bootstrapping, without failing.
private final class Probe<Wanted>: Bootstrapping, @unchecked Sendable {
    let result = Mutex<Result<Wanted, any Error>?>(nil)
    let seen = Mutex<[String]>([])
    let settings = Mutex<Settings?>(nil)
    let pluginName = Mutex<String?>(nil)

    func bootstrap(_ bootstrapped: Bootstrapped) throws {
        result.withLock { $0 = Result { try bootstrapped.component(Wanted.self) } }
        seen.withLock { $0 = bootstrapped.plugins.map(\.name) }
        settings.withLock { $0 = bootstrapped.settings }
        pluginName.withLock { $0 = bootstrapped.pluginName }
    }
}

private final class AsyncPeeler: Bootstrapping {
    let ready = Mutex(false)

    func bootstrap(_ bootstrapped: Bootstrapped) async throws {
        try await Task.sleep(for: .milliseconds(1))
        _ = try bootstrapped.component(Store.self)
        ready.withLock { $0 = true }
    }
}

private struct Refusal: Error {}

private final class Refusing: Bootstrapping {
    func bootstrap(_ bootstrapped: Bootstrapped) throws { throw Refusal() }
}

@Suite("BootstrapHarness: testing a component without the host")
struct BootstrapHarnessTests {
    @Test("a component bootstraps against stand-ins and sees exactly them")
    func standIns() async throws {
        let store = Store()
        let chain = try await BootstrapHarness()
            .providing(store, as: "Store")
            .bootstrap(Peeler(), as: "Peeler")
        let peeler = try chain.component(Peeler.self)
        #expect(peeler.foundStore.withLock { $0 } === store)
        #expect(chain.plugins.map(\.name) == ["Store", "Peeler"])
    }

    @Test("a dependency can be bootstrapped for real first, and settings reach the component")
    func realDependencyAndSettings() async throws {
        let probe = Probe<Peeler>()
        _ = try await BootstrapHarness()
            .providing(Store(), as: "Store")
            .bootstrapping(Peeler(), as: "Peeler")
            .bootstrap(probe, as: "App", settings: ["answer": 42])
        let found = try #require(probe.result.withLock { $0 })
        #expect(throws: Never.self) { try found.get() }
        #expect(probe.settings.withLock { $0 }?["answer"] == .number(42))
        #expect(probe.pluginName.withLock { $0 } == "App")
    }

    @Test("what is not provided is not found, with the host's error")
    func missingStandIn() async throws {
        await #expect(throws: BootstrappingError.self) {
            _ = try await BootstrapHarness().bootstrap(Peeler(), as: "Peeler")
        }
    }
}
