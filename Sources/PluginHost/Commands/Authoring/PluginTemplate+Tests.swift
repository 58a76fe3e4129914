extension PluginTemplate {
    /// The tests, with Swift Testing: each bootstraps the component with BootstrapHarness
    /// against stand-ins for the plugins it requires, and delivers its events as the host would.
    var tests: String {
        let imports = (requires.map(\.name) + ["PluginABI", "Testing", name]).sorted().map { "import \($0)\n" }.joined()
        var standIns = ""
        var stored = ""
        var providing = ""
        var cases = ""
        for (dependency, protocolName, members) in used {
            let variable = dependency.name.lowercasedFirst
            standIns += "/// Stands in for what \(dependency.name) provides: give it the answers your tests need.\n"
            standIns += "final class StandIn\(dependency.name): \(protocolName), @unchecked Sendable {\n"
            standIns += members.map { "    \($0)\n" }.joined()
            standIns += "}\n\n"
            stored += "    let \(variable) = StandIn\(dependency.name)()\n"
            providing += "\n            .providing(\(variable), as: \"\(dependency.name)\")"
            cases += """

                    @Test("the component finds \(dependency.name)'s stand-in")
                    func finds\(dependency.name)() {
                        #expect(component.\(variable) as AnyObject === \(variable))
                    }

                """
        }
        for optional in optional {
            let installed = "component.\(optional.lowercasedFirst)Installed"
            cases += """

                    @Test("it hears that \(optional) joins the running host, then leaves it, as the host announces it")
                    func \(optional.lowercasedFirst)JoinsAndLeaves() async throws {
                        #expect(!\(installed), "\(optional) is not installed here")
                        _ = try await harness.lifecycle(of: "\(name)")?.deliver(PluginAdded(name: "\(optional)", bootstrapped: chain))
                        #expect(\(installed))
                        _ = try await harness.lifecycle(of: "\(name)")?.deliver(PluginRemoved(name: "\(optional)"))
                        #expect(!\(installed))
                    }

                """
        }
        if service {
            cases += """

                    @Test("its service works, handles readiness, health and drain in the host's order, and stops")
                    func service() async throws {
                        let lifecycle = try #require(harness.lifecycle(of: "\(name)"))
                        let service = try #require(harness.startService(of: "\(name)"), "\(name) registers a service")
                        _ = try await lifecycle.deliver(Readiness())
                        #expect(try await lifecycle.deliver(HealthCheck()) == .healthy)
                        // Waits for what the service says, never a fixed time: the test's time limit bounds it.
                        while component.worker.completed == 0 { try await Task.sleep(for: .milliseconds(1)) }
                        _ = try await lifecycle.deliver(Drain())
                        let drained = component.worker.completed
                        let rounds = component.worker.rounds
                        while component.worker.rounds < rounds + 2 { try await Task.sleep(for: .milliseconds(1)) }
                        #expect(component.worker.completed == drained, "no new work after the drain")
                        try await service.stop()
                    }

                """
        }
        let settings = service ? "[\"greeting\": \"hello\", \"interval\": 0.001]" : "[\"greeting\": \"hello\"]"
        return """
            \(imports)
            \(standIns)/// Tests of the component, without the host: each test bootstraps it with BootstrapHarness
            /// against stand-ins for the plugins it requires. `swift test` runs them (`make test` too).
            @Suite("\(name)", .timeLimit(.minutes(1)))
            struct \(name)Tests {
            \(stored)    let harness: BootstrapHarness
                let chain: Bootstrapped
                let component: \(name)Bootstrapping

                init() async throws {
                    harness = \(used.isEmpty ? "" : "try ")BootstrapHarness()\(providing)
                    chain = try await harness.bootstrap(\(name)Bootstrapping.self, as: "\(name)", settings: \(settings))
                    component = try chain.component(\(name)Bootstrapping.self)
                }

                @Test("the greeting setting reaches the component")
                func greeting() {
                    #expect(component.greeting == "hello")
                }
            \(cases)
                @Test("it shuts down")
                func shutdown() async throws {
                    _ = try await harness.lifecycle(of: "\(name)")?.deliver(Shutdown())
                }
            }

            """
    }
}
