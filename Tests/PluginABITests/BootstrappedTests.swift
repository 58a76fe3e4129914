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

    @Test("bootstrapping constructs the component and returns a new chain; the earlier one is unchanged")
    func bootstrapReturnsNewValue() async throws {
        let empty = Bootstrapped()
        let one = try await empty.bootstrap(Store.self, as: PluginIdentity(name: "Store")).chain
        let two = try await one.bootstrap(Peeler.self, as: PluginIdentity(name: "Peeler", requires: ["Store"])).chain

        #expect(empty.count == 0)
        #expect(one.count == 1)
        #expect(two.count == 2)
        #expect(one.plugins == ["Store"])
        #expect(two.plugins == ["Store", "Peeler"])
        #expect(throws: BootstrappingError.self) { try empty.component(Store.self) }
        #expect(throws: BootstrappingError.self) { try one.component(Peeler.self) }
    }

    @Test("a component obtains an earlier component by its class, and keeps it in a let")
    func lookupByClass() async throws {
        let (store, one) = try await Bootstrapped().bootstrap(Store.self, as: PluginIdentity(name: "Store"))
        let (peeler, chain) = try await one.bootstrap(Peeler.self, as: PluginIdentity(name: "Peeler", requires: ["Store"]))
        #expect((peeler as? Peeler)?.store === store)
        #expect(try chain.component(Store.self) === store)
    }

    @Test("lookup by a superclass or a protocol finds the conforming component")
    func lookupBySuperclassAndProtocol() async throws {
        let (special, chain) = try await Bootstrapped().bootstrap(SpecialStore.self, as: PluginIdentity(name: "Special"))
        #expect(try chain.component(Store.self) === special)
        #expect(try chain.component(Shelf.self) === special)
    }

    @Test("the earliest matching component wins")
    func earliestWins() throws {
        let first = Shelved()
        let chain = try Bootstrapped()
            .appending(first, as: PluginIdentity(name: "A"))
            .appending(Shelved(), as: PluginIdentity(name: "B"))
        #expect(try chain.component(Shelf.self) === first)
    }

    @Test("a component sees what it requires, directly and transitively, nearest first")
    func transitiveVisibility() async throws {
        let (store, one) = try await Bootstrapped().bootstrap(Store.self, as: PluginIdentity(name: "Store"))
        let two = try await one.bootstrap(Peeler.self, as: PluginIdentity(name: "Peeler", requires: ["Store"])).chain
        let probe = try await Probe<Store>.bootstrap(in: two, as: PluginIdentity(name: "App", requires: ["Peeler"]))
        #expect(try probe.result.get() === store)
        #expect(probe.seen == ["Peeler", "Store"])
    }

    @Test("an undeclared component is not found, even though it was bootstrapped earlier")
    func undeclaredIsNotFound() async throws {
        let one = try await Bootstrapped().bootstrap(Store.self, as: PluginIdentity(name: "Store")).chain
        let two = try await one.bootstrap(Peeler.self, as: PluginIdentity(name: "Peeler", requires: ["Store"])).chain
        let probe = try await Probe<Store>.bootstrap(in: two, as: PluginIdentity(name: "Sneaky", requires: ["Peeler2"]))
        let error = try #require(throws: BootstrappingError.self) { try probe.result.get() }
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
    func notFoundListsVisible() async throws {
        let chain = try await Bootstrapped().bootstrap(Store.self, as: PluginIdentity(name: "Store")).chain
        let probe = try await Probe<Unprovided>.bootstrap(in: chain, as: PluginIdentity(name: "App", requires: ["Store"]))
        let error = try #require(throws: BootstrappingError.self) { try probe.result.get() }
        #expect(error.visiblePlugins == ["Store"])
        #expect(
            error.description
                == "expected component not found: plugin App asked for PluginABITests.Unprovided, but it can see only Store; "
                + "add the plugin that provides it to \"requires\" in the manifest of App and make sure that plugin is installed")
    }

    @Test("in a view, the nearest match wins: declared plugins in manifest order before theirs")
    func nearestWins() async throws {
        let second = Shelved()
        let chain = try Bootstrapped()
            .appending(Shelved(), as: PluginIdentity(name: "First"))
            .appending(second, as: PluginIdentity(name: "Second"))
            .appending(Shelved(), as: PluginIdentity(name: "Peeler", requires: ["First"]))
        let probe = try await Probe<Shelf>.bootstrap(in: chain, as: PluginIdentity(name: "App", requires: ["Second", "Peeler"]))
        #expect(try probe.result.get() === second)
    }

    @Test("an older chain value keeps its components when another branch appends")
    func branches() throws {
        let base = try Bootstrapped().appending(Shelved(), as: PluginIdentity(name: "Base"))
        let left = try base.appending(Shelved(), as: PluginIdentity(name: "Left"))
        let right = try base.appending(Shelved(), as: PluginIdentity(name: "Right"))
        #expect(base.plugins == ["Base"])
        #expect(left.plugins == ["Base", "Left"])
        #expect(right.plugins == ["Base", "Right"])
    }

    @Test("an asynchronous initializer is awaited")
    func asynchronousBootstrap() async throws {
        let one = try await Bootstrapped().bootstrap(Store.self, as: PluginIdentity(name: "Store")).chain
        let (peeler, _) = try await one.bootstrap(AsyncPeeler.self, as: PluginIdentity(name: "Peeler", requires: ["Store"]))
        #expect(peeler is AsyncPeeler)
    }

    @Test("a component receives its own settings, name and the host's environment")
    func settingsArePassed() async throws {
        let chain = Bootstrapped(environment: ["HOME": "/home/peel"])
        let probe = try await Probe<Store>.bootstrap(
            in: chain, as: PluginIdentity(name: "App"), settings: Settings(["answer": 42], for: "App"))
        #expect(probe.settings["answer"] == .number(42))
        #expect(probe.pluginName == "App")
        #expect(probe.environment == ["HOME": "/home/peel"])
    }

    @Test("a throwing initializer propagates its error and adds nothing")
    func throwingBootstrap() async throws {
        let chain = try await Bootstrapped().bootstrap(Store.self, as: PluginIdentity(name: "Store")).chain
        await #expect(throws: Refusal.self) { _ = try await chain.bootstrap(Refusing.self, as: PluginIdentity(name: "Refusing")) }
        #expect(chain.plugins == ["Store"])
    }

    @Test("two plugins of one name cannot both join the chain")
    func duplicateName() async throws {
        let chain = try await Bootstrapped().bootstrap(Store.self, as: PluginIdentity(name: "Store")).chain
        let error = try #require(throws: BootstrappingError.self) { try chain.appending(Shelved(), as: PluginIdentity(name: "Store")) }
        #expect(error.code == .duplicatePlugin)
    }

    @Test("what a component registers while it bootstraps reaches its lifecycle, and only its")
    func registrations() async throws {
        let lifecycle = Lifecycle()
        _ = try await Bootstrapped().bootstrap(Service.self, as: PluginIdentity(name: "Service"), lifecycle: lifecycle)
        #expect(lifecycle.service != nil)
        #expect(lifecycle.handles(Shutdown.self))
        #expect(!lifecycle.handles(Reload.self))
        #expect(try await lifecycle.deliver(Shutdown()) != nil)
        #expect(try await lifecycle.deliver(Reload(settings: Settings())) == nil)
    }
}

private protocol Shelf: AnyObject {}

private class Store: Bootstrapping, @unchecked Sendable {
    required init(_ bootstrapped: Bootstrapped) {}
}

private final class SpecialStore: Store, Shelf, @unchecked Sendable {}

/// A stand-in of the kind tests provide: not a component.
private final class Shelved: Shelf, Sendable {}

private final class Unprovided {}

private final class Peeler: Bootstrapping {
    let store: Store

    init(_ bootstrapped: Bootstrapped) throws {
        store = try bootstrapped.component(Store.self)
    }
}

/// Records what it saw while bootstrapping, without failing.
private final class Probe<Wanted>: Bootstrapping, @unchecked Sendable {
    let result: Result<Wanted, any Error>
    let seen: [String]
    let settings: Settings
    let pluginName: String?
    let environment: [String: String]

    init(_ bootstrapped: Bootstrapped) {
        result = Result { try bootstrapped.component(Wanted.self) }
        seen = bootstrapped.plugins
        settings = bootstrapped.settings
        pluginName = bootstrapped.pluginName
        environment = bootstrapped.environment
    }

    static func bootstrap(in chain: Bootstrapped, as identity: PluginIdentity, settings: Settings? = nil) async throws -> Probe {
        try #require(try await chain.bootstrap(Probe.self, as: identity, settings: settings).component as? Probe)
    }
}

private final class AsyncPeeler: Bootstrapping {
    let store: Store

    init(_ bootstrapped: Bootstrapped) async throws {
        try await Task.sleep(for: .milliseconds(1))
        store = try bootstrapped.component(Store.self)
    }
}

private struct Refusal: Error {}

private final class Refusing: Bootstrapping {
    init(_ bootstrapped: Bootstrapped) throws { throw Refusal() }
}

/// Registers a service and a shutdown hook.
private final class Service: Bootstrapping {
    init(_ bootstrapped: Bootstrapped) {
        bootstrapped.lifecycle.run {}
        bootstrapped.lifecycle.onShutdown {}
    }
}

@Suite("BootstrapHarness: testing a component without the host")
struct BootstrapHarnessTests {
    @Test("a component bootstraps against stand-ins and sees exactly them")
    func standIns() async throws {
        let shelf = Shelved()
        let chain = try await BootstrapHarness()
            .providing(shelf, as: "Shelf")
            .bootstrap(Probe<Shelf>.self, as: "Probe")
        let probe = try chain.component(Probe<Shelf>.self)
        #expect(try probe.result.get() === shelf)
        #expect(chain.plugins == ["Shelf", "Probe"])
    }

    @Test("a dependency can be bootstrapped for real first, and settings and environment reach the component")
    func realDependencyAndSettings() async throws {
        let chain = try await BootstrapHarness(environment: ["HOME": "/home/test"])
            .bootstrapping(Store.self, as: "Store")
            .bootstrapping(Peeler.self, as: "Peeler")
            .bootstrap(Probe<Peeler>.self, as: "App", settings: ["answer": 42])
        let probe = try chain.component(Probe<Peeler>.self)
        #expect(throws: Never.self) { try probe.result.get() }
        #expect(probe.settings["answer"] == .number(42))
        #expect(probe.pluginName == "App")
        #expect(probe.environment["HOME"] == "/home/test")
    }

    @Test("what is not provided is not found, with the host's error")
    func missingStandIn() async throws {
        await #expect(throws: BootstrappingError.self) {
            _ = try await BootstrapHarness().bootstrap(Peeler.self, as: "Peeler")
        }
    }

    @Test("the lifecycle of a bootstrapped component takes events as the host delivers them")
    func lifecycleEvents() async throws {
        let harness = BootstrapHarness()
        _ = try await harness.bootstrap(Service.self, as: "Service")
        let lifecycle = try #require(harness.lifecycle(of: "Service"))
        #expect(try await lifecycle.deliver(Shutdown()) != nil)
    }

    @Test("relative paths in settings are relative to the base directory, as to the configuration file's")
    func relativePaths() async throws {
        let chain = try await BootstrapHarness(baseDirectory: "/etc/host")
            .bootstrap(Probe<Store>.self, as: "App", settings: ["data": "data", "absolute": "/var/data"])
        let settings = try chain.component(Probe<Store>.self).settings
        #expect(try settings.path("data") == "/etc/host/data")
        #expect(try settings.path("absolute") == "/var/data")
    }
}
