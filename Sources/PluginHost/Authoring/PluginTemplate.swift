import PluginABI

/// The files of a new plugin project: a manifest, the component, a test that bootstraps it
/// against stand-ins, and a Makefile that builds, tests and installs it against the host's
/// install tree.
struct PluginTemplate {
    /// A plugin the new one requires, as its installed module interface describes it.
    struct Dependency {
        let name: String
        /// Whether its module interface is installed.
        let installed: Bool
        /// The protocol its component conforms to that its module exports, with the
        /// members of a stand-in for tests; `nil` when it exports none a stand-in can be
        /// written for.
        let exported: (protocolName: String, standIn: [String])?
        /// The version installed, which the new plugin is built against, when its file is.
        var version: SemanticVersion? = nil
    }

    let name: String
    let requires: [Dependency]
    /// The plugins the project links: those it requires, and theirs (whose types what they
    /// return may be), as their installed manifests say.
    var links: [String] = []
    let optional: [String]
    /// Whether the component runs a service that handles readiness, health and drain.
    var service = false
    /// The install tree the Makefile builds against.
    let prefix: String

    var files: [(path: String, contents: String)] {
        [("manifest.json", manifest), ("\(name)Bootstrapping.swift", source), ("Tests/\(name)Tests.swift", tests), ("Makefile", makefile)]
    }

    /// The dependencies used through their protocols.
    private var used: [(dependency: Dependency, protocolName: String, standIn: [String])] {
        requires.compactMap { dependency in dependency.exported.map { (dependency, $0.protocolName, $0.standIn) } }
    }

    var manifest: String {
        func list(_ names: [String]) -> String { names.map { "\"\($0)\"" }.joined(separator: ", ") }
        // Each required plugin's versions from the one built against, as SwiftPM's `from:`.
        let ranges = requires.compactMap { dependency in
            dependency.version.map { "\"\(dependency.name)\": \"\(VersionRange.compatible(with: $0))\"" }
        }
        return """
            {
              "name": "\(name)",
              "version": "0.1.0",
              "abi": \(PluginABIVersion.current),
              "requires": [\(list(requires.map(\.name)))],
              "requiredVersions": {\(ranges.joined(separator: ", "))},
              "optional": [\(list(optional))],
              "settings": [\(list(service ? ["greeting", "interval"] : ["greeting"]))]
            }

            """
    }

    var source: String {
        let imports = (requires.map(\.name) + ["PluginABI"]).map { "import \($0)\n" }.joined()
        var properties = ""
        var lookups = ""
        for (dependency, protocolName, _) in used {
            properties += "    /// What \(dependency.name) provides, found through the chain.\n"
            properties += "    public let \(dependency.name.lowercasedFirst): any \(protocolName)\n"
            lookups += "        \(dependency.name.lowercasedFirst) = try bootstrapped.component(\(protocolName).self)\n"
        }
        for dependency in requires where dependency.exported == nil {
            lookups += "        // \(dependency.name) exports no protocol of its component: look it up by its class, or by a\n"
            lookups += "        // protocol from a library both plugins link.\n"
        }
        if !optional.isEmpty {
            properties += "    /// The plugins this one uses when they are installed that run now.\n"
            properties += "    private let optionalPlugins: OptionalPlugins\n"
            lookups += "        // Optional plugins: installed, they bootstrap first and are visible here; one added or\n"
            lookups += "        // removed while the host runs is announced (PluginAdded, PluginRemoved). Reach one through\n"
            lookups += "        // a protocol from a library both plugins link; never link it itself.\n"
            lookups += "        let optionalPlugins = OptionalPlugins(running: bootstrapped.plugins)\n"
            lookups += "        self.optionalPlugins = optionalPlugins\n"
            lookups += "        bootstrapped.lifecycle.on(PluginAdded.self) { event in\n"
            lookups += "            // event.bootstrapped is this component's view of the chain, the plugin added included.\n"
            lookups += "            optionalPlugins.joined(event.name)\n"
            lookups += "        }\n"
            lookups += "        bootstrapped.lifecycle.on(PluginRemoved.self) { event in\n"
            lookups += "            // Stop using it now: it drains and shuts down next.\n"
            lookups += "            optionalPlugins.left(event.name)\n"
            lookups += "        }\n"
        }
        for optional in optional {
            properties += "    /// Whether \(optional), which this plugin uses when it is installed, runs.\n"
            properties += "    public var \(optional.lowercasedFirst)Installed: Bool { optionalPlugins.contains(\"\(optional)\") }\n"
        }
        var registrations = "        // Register what should happen later: a service, events, a shutdown hook.\n"
        if service {
            properties += "    /// The work its service does.\n"
            properties += "    public let worker: \(name)Worker\n"
            registrations = """
                        // The service and the events it handles: the host delivers each event to every
                        // component that registered for it, in the event's order.
                        let worker = \(name)Worker(interval: .seconds(try bootstrapped.settings.number("interval") ?? 1))
                        self.worker = worker
                        let lifecycle = bootstrapped.lifecycle
                        lifecycle.run { await worker.serve() }
                        lifecycle.onReady { try await worker.waitUntilServing() }
                        lifecycle.onHealthCheck { worker.health }
                        lifecycle.onDrain { worker.stopTakingWork() }

                """
        }
        return """
            \(imports)\(service || !optional.isEmpty ? "import Synchronization\n" : "")
            /// The component of the \(name) plugin.
            public final class \(name)Bootstrapping: Bootstrapping {
            \(properties)    /// The greeting, from the setting `greeting`.
                public let greeting: String

                public init(_ bootstrapped: Bootstrapped) throws {
            \(lookups)        greeting = try bootstrapped.settings.string("greeting") ?? "\(name) is ready"
                    print("\\(bootstrapped.pluginName ?? "\(name)"): \\(greeting)")
            \(registrations)        bootstrapped.lifecycle.onShutdown {}
                }
            }
            \(service ? worker : "")\(optional.isEmpty ? "" : optionalPluginsType)

            @c(plugin_host_bootstrapping)
            public func pluginHostBootstrapping() -> UnsafeMutableRawPointer {
                PluginEntryPoint.export(\(name)Bootstrapping.self)
            }

            """
    }

    /// What the component knows of the optional plugins it uses.
    private var optionalPluginsType: String {
        """

        /// The optional plugins of \(name) that run now: told when one joins or leaves.
        final class OptionalPlugins: Sendable {
            private let running: Mutex<Set<String>>

            init(running: [String]) { self.running = Mutex(Set(running)) }

            func joined(_ name: String) { running.withLock { _ = $0.insert(name) } }
            func left(_ name: String) { running.withLock { _ = $0.remove(name) } }
            func contains(_ name: String) -> Bool { running.withLock { $0.contains(name) } }
        }
        """
    }

    /// The service's work, with what the events ask of it.
    private var worker: String {
        """

        /// The work of \(name)'s service: one unit every `interval` until the host stops it.
        public final class \(name)Worker: Sendable {
            private struct State {
                var serving = false
                var takingWork = true
                var completed = 0
                var problem: String?
            }

            private let state = Mutex(State())
            private let interval: Duration

            init(interval: Duration) {
                self.interval = interval
            }

            /// How many units of work it has done.
            public var completed: Int { state.withLock { $0.completed } }

            /// Works until its task is cancelled (the host cancels it after the drain).
            public func serve() async {
                state.withLock { $0.serving = true }
                while !Task.isCancelled {
                    state.withLock { state in
                        // Your work here; set `problem` when it goes wrong, clear it when it recovers.
                        if state.takingWork { state.completed += 1 }
                    }
                    do { try await Task.sleep(for: interval) } catch { return }
                }
            }

            /// Readiness: returns once the service is serving (binding a port, say).
            func waitUntilServing() async throws {
                while !state.withLock({ $0.serving }) { try await Task.sleep(for: .milliseconds(10)) }
            }

            /// Health: unhealthy, with why, while its work goes wrong.
            var health: Health {
                state.withLock { $0.problem.map(Health.unhealthy) ?? .healthy }
            }

            /// Drain: takes no new work; what is under way finishes before the service is cancelled.
            func stopTakingWork() {
                state.withLock { $0.takingWork = false }
            }
        }
        """
    }

    var tests: String {
        let imports = (requires.map(\.name) + ["PluginABI"]).map { "import \($0)\n" }.joined()
        var standIns = ""
        var providing = ""
        var checks = ""
        for (dependency, protocolName, members) in used {
            let variable = dependency.name.lowercasedFirst
            standIns += "/// Stands in for what \(dependency.name) provides: give it the answers your tests need.\n"
            standIns += "final class StandIn\(dependency.name): \(protocolName), @unchecked Sendable {\n"
            standIns += members.map { "    \($0)\n" }.joined()
            standIns += "}\n\n"
            providing += "        let \(variable) = StandIn\(dependency.name)()\n"
            checks += "        check(component.\(variable) as AnyObject === \(variable), \"the component finds \(dependency.name)'s stand-in\")\n"
        }
        for optional in optional {
            let installed = "component.\(optional.lowercasedFirst)Installed"
            checks += "        check(!\(installed), \"\(optional) is not installed here\")\n"
            checks += "        // \(optional) joins the running host, then leaves it, as the host would announce it.\n"
            checks += "        _ = try await harness.lifecycle(of: \"\(name)\")?.deliver(PluginAdded(name: \"\(optional)\", bootstrapped: chain))\n"
            checks += "        check(\(installed), \"\(name) hears that \(optional) joined\")\n"
            checks += "        _ = try await harness.lifecycle(of: \"\(name)\")?.deliver(PluginRemoved(name: \"\(optional)\"))\n"
            checks += "        check(!\(installed), \"\(name) hears that \(optional) left\")\n"
        }
        if service {
            checks += """
                        // Its service, started as the host starts it, and the events the host delivers to it,
                        // in the host's order.
                        guard let lifecycle = harness.lifecycle(of: "\(name)"), let service = harness.startService(of: "\(name)") else {
                            preconditionFailure("\(name) registered no service")
                        }
                        _ = try await lifecycle.deliver(Readiness())
                        let health = try await lifecycle.deliver(HealthCheck())
                        check(health == .healthy, "healthy while it serves")
                        try await Task.sleep(for: .milliseconds(50))
                        check(component.worker.completed > 0, "the service works")
                        _ = try await lifecycle.deliver(Drain())
                        let drained = component.worker.completed
                        try await Task.sleep(for: .milliseconds(50))
                        check(component.worker.completed == drained, "no new work after the drain")
                        try await service.stop()

                """
        }
        let provided = used.map { ".providing(\($0.dependency.name.lowercasedFirst), as: \"\($0.dependency.name)\")" }
        let harness = (["BootstrapHarness()"] + provided).joined(separator: "\n            ")
        return """
            \(imports)
            \(standIns)/// Tests of the component, without the host: BootstrapHarness bootstraps it against
            /// stand-ins for the plugins it requires. `make test` builds and runs them.
            @main
            struct \(name)Tests {
                static func main() async throws {
            \(providing)        let harness = \(provided.isEmpty ? "" : "try ")\(harness)
                    let chain = try await harness.bootstrap(\(name)Bootstrapping.self, as: "\(name)", settings: ["greeting": "hello"\(service ? ", \"interval\": 0.005" : "")])
                    let component = try chain.component(\(name)Bootstrapping.self)
                    check(component.greeting == "hello", "the greeting setting reaches the component")
            \(checks)        _ = try await harness.lifecycle(of: "\(name)")?.deliver(Shutdown())
                    print("\(name)Tests: passed")
                }

                static func check(_ condition: Bool, _ what: String) {
                    precondition(condition, "\(name)Tests: \\(what)")
                }
            }

            """
    }

    var makefile: String {
        """
        # Builds lib\(name).so against the plugin-host installed in PLUGIN_HOST_PREFIX.
        #
        #   make            build lib\(name).so
        #   make test       build and run the tests in Tests/
        #   make install    copy lib\(name).so into the host's plugin directory, and its module
        #                   interface beside the host's, for plugins that use its types

        PLUGIN_HOST_PREFIX ?= \(prefix)
        PLUGINS_DIR        ?= $(PLUGIN_HOST_PREFIX)/lib/plugin-host/plugins
        MODULES_DIR        ?= $(PLUGIN_HOST_PREFIX)/lib/swift
        SWIFTC             ?= swiftc
        OBJCOPY            ?= objcopy
        NAME               := \(name)
        # The plugins this one requires, and theirs, whose types it may use (what Domain returns
        # can be a type of Persistence): linking them loads them first, and check accepts them.
        # Never link an optional plugin: the dynamic loader would then require it.
        LINKS              := \((links.isEmpty ? requires.map(\.name) : links).joined(separator: " "))

        ABI_FLAGS := $(shell PKG_CONFIG_PATH=$(PLUGIN_HOST_PREFIX)/lib/pkgconfig pkg-config --cflags --libs plugin-abi)
        SOURCES   := $(wildcard *.swift)

        .PHONY: all test install clean
        all: lib$(NAME).so

        lib$(NAME).so: $(SOURCES) manifest.json
        \t$(SWIFTC) -swift-version 6 -O -parse-as-library -emit-library -enable-library-evolution \\
        \t    -module-name $(NAME) -emit-module-interface-path $(NAME).swiftinterface \\
        \t    $(ABI_FLAGS) $(addprefix -l,$(LINKS)) \\
        \t    -Xlinker -soname=lib$(NAME).so -Xlinker -rpath -Xlinker '$$ORIGIN:$$ORIGIN/../..' \\
        \t    -o $@.unpackaged $(SOURCES)
        \t$(OBJCOPY) --add-section .plugin_host_manifest=manifest.json \\
        \t    --set-section-flags .plugin_host_manifest=noload,readonly $@.unpackaged $@
        \trm -f $@.unpackaged
        \tchmod 755 $@

        test: $(SOURCES) Tests/*.swift
        \t$(SWIFTC) -swift-version 6 -parse-as-library -module-name $(NAME)Tests $(ABI_FLAGS) $(addprefix -l,$(LINKS)) \\
        \t    -Xlinker -rpath -Xlinker $(PLUGIN_HOST_PREFIX)/lib -Xlinker -rpath -Xlinker $(PLUGINS_DIR) \\
        \t    -o $(NAME)-tests $(SOURCES) Tests/*.swift
        \t./$(NAME)-tests

        install: lib$(NAME).so
        \tinstall -m 755 lib$(NAME).so $(PLUGINS_DIR)/
        \tinstall -m 644 $(NAME).swiftinterface $(MODULES_DIR)/

        clean:
        \trm -f lib$(NAME).so lib$(NAME).so.unpackaged $(NAME).swiftinterface $(NAME)-tests

        """
    }
}
