import PluginABI

/// The files of a new plugin project: a manifest, the component, tests that bootstrap it
/// against stand-ins, and the two ways to build, test and install it against the host's
/// install tree: a SwiftPM package and a Makefile (PluginTemplate+Build.swift).
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
    /// The install tree the project builds against.
    let prefix: String

    /// The directories of the project, parents first.
    var directories: [String] { ["Sources", "Sources/\(name)", "Tests", "Tests/\(name)Tests"] }

    var files: [(path: String, contents: String)] {
        [
            ("Package.swift", packageManifest), ("manifest.json", manifest), ("Sources/\(name)/\(name)Bootstrapping.swift", source),
            ("Tests/\(name)Tests/\(name)Tests.swift", tests), ("Makefile", makefile), (".gitignore", gitignore),
        ]
    }

    /// The dependencies used through their protocols.
    var used: [(dependency: Dependency, protocolName: String, standIn: [String])] {
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
            lookups += "        // Optional plugins: installed, they bootstrap first and are visible here; one dropped in\n"
            lookups += "        // comes with a new worker, where this bootstraps again and sees it; one removed while\n"
            lookups += "        // the host runs is announced (PluginRemoved). Reach one through a protocol from a\n"
            lookups += "        // library both plugins link; never link it itself.\n"
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
                        let worker = \(name)Worker(
                            interval: .seconds(try bootstrapped.settings.number("interval") ?? 1), handedOver: bootstrapped.handedOver)
                        self.worker = worker
                        let lifecycle = bootstrapped.lifecycle
                        lifecycle.run { await worker.serve() }
                        lifecycle.onReady { try await worker.waitUntilServing() }
                        lifecycle.onHealthCheck { worker.health }
                        lifecycle.onDrain { worker.stopTakingWork() }
                        lifecycle.onHandOff { worker.handOff() }

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
                var rounds = 0
                var problem: String?
            }

            private let state = Mutex(State())
            private let interval: Duration

            init(interval: Duration, handedOver: HandedOver = HandedOver()) {
                self.interval = interval
                // What the build before handed over as its worker stopped (an upgrade, a restart
                // it was not blamed for): the work done so far goes on from there.
                if let bytes = handedOver.bytes("completed"), let count = Int(String(decoding: bytes, as: UTF8.self)) {
                    state.withLock { $0.completed = count }
                }
            }

            /// How many units of work it has done.
            public var completed: Int { state.withLock { $0.completed } }

            /// How many times it has looked for work, whether it took any.
            public var rounds: Int { state.withLock { $0.rounds } }

            /// Works until its task is cancelled (the host cancels it after the drain).
            public func serve() async {
                state.withLock { $0.serving = true }
                while !Task.isCancelled {
                    state.withLock { state in
                        // Your work here; set `problem` when it goes wrong, clear it when it recovers.
                        if state.takingWork { state.completed += 1 }
                        state.rounds += 1
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

            /// Hand-off: what the next build takes up, by name: bytes of state, and descriptors
            /// (an accepted connection: `put(descriptor:as:)`, which is then the host's to pass on).
            func handOff() -> HandedOver {
                var handing = HandedOver()
                handing.put(Array(String(completed).utf8), as: "completed")
                return handing
            }
        }
        """
    }
}
