import PluginABI

extension LifecycleRunner {
    /// Asks every component that reports health how it is (``HealthCheck``), in bootstrap
    /// order, each within the timeout; one that throws or does not answer counts as
    /// unhealthy. Says on stderr, and in systemd's status, when the outcome changes, and
    /// tells the supervisor whether to keep pinging systemd's watchdog: only while no
    /// component is unhealthy.
    mutating func checkHealth() {
        let timeout = context.timeout
        let delivered = delivery.deliver(HealthCheck.self, to: plugins, phase: .health, within: timeout) { _ in HealthCheck() }
        var durations: [String: Double] = [:]
        for call in delivered {
            let duration = call.duration ?? timeout ?? .zero
            durations[call.plugin.name] = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        }
        link.tell(.health(durations))
        let answers = delivered
            .map { delivered -> (plugin: RunningPlugin, health: Health) in
                switch delivered.outcome {
                case .finished: (delivered.plugin, delivered.answer ?? .healthy)
                case .failed(let error): (delivered.plugin, .unhealthy("its health check failed: \(error)"))
                case .overran: (delivered.plugin, .unhealthy("it did not answer its health check within \(TextFormat.seconds(timeout ?? .zero))"))
                }
            }
        let now = answers.filter { $0.health != .healthy }
        let overall = HealthCheck.reduce(answers.map(\.health))
        if let interval = context.healthInterval {
            link.reportHealth(goodUntil: overall.severity >= 2 ? nil : .now + interval * 2)
        }
        let changed = now.map { "\($0.plugin.name) \($0.health)" } != unwell.map { "\($0.plugin.name) \($0.health)" }
        unwell = now
        guard changed else { return }
        if now.isEmpty {
            say("health: every plugin is healthy again")
        } else {
            say("health: " + now.map { plugin, health in
                "plugin \(plugin.label) is \(health.severity >= 2 ? "unhealthy" : "degraded"): \(health.reason ?? "")"
            }.joined(separator: "; "))
        }
        announce(.status(""))
    }
}
