import PluginABI
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The component of every fixture whose directory holds only a manifest. Without settings
/// it does nothing but exist (for tests of the dependency graph). Its settings make it a
/// witness of the lifecycle:
///
/// - `log` (path): appends `NAME bootstrap`, `NAME reload KEY=VALUE`, `NAME shutdown` lines.
/// - `bootstrapDelay` (milliseconds): sleeps asynchronously while bootstrapping.
/// - `bootstrapBusy` (milliseconds): blocks its thread while bootstrapping.
/// - `bootstrapFails` (boolean): throws from its bootstrap.
/// - `shutdownDelay` (milliseconds): blocks while shutting down (to overrun the deadline).
/// - `reloadFails` (boolean, in the new settings): refuses them when they are checked.
/// - `applyFails` (boolean, in the new settings): accepts them, then fails to apply them.
/// - `serve` (boolean): runs a service until it is cancelled (`NAME serving`, `NAME stopped`).
/// - `readyDelay` (milliseconds): gets ready that long after it is asked (`NAME ready`);
///   `readyFails` (boolean): fails to.
/// - `health` (path): answers health checks with the first line of that file: `healthy`,
///   `degraded: REASON` or `unhealthy: REASON`.
/// - `drainDelay` (milliseconds): blocks that long while draining (`NAME draining`,
///   `NAME drained`).
/// - `sees` (a plugin's name): logs `NAME sees OTHER` or `NAME does not see OTHER` as it
///   bootstraps, by whether OTHER runs in its chain.
/// - `environment` (names, separated by commas): logs `NAME environment VARIABLE=VALUE` or
///   `NAME environment VARIABLE unset` for each while bootstrapping.
/// - Logs `NAME added OTHER` (and whether its new view finds OTHER's component) and
///   `NAME removed OTHER` when a plugin it lists as optional comes or goes.
public final class RecordingComponent: Bootstrapping {
    public init(_ bootstrapped: Bootstrapped) async throws {
        let name = bootstrapped.pluginName ?? ""
        let settings = bootstrapped.settings
        if let delay = try settings.integer("bootstrapDelay") {
            try await Task.sleep(for: .milliseconds(delay))
        }
        if let busy = try settings.integer("bootstrapBusy") {
            usleep(UInt32(busy) * 1000)
        }
        if try settings.bool("bootstrapFails") == true { throw BootstrapRefused() }
        let witness = Witness(name: name, settings: settings)
        try witness.record("bootstrap")
        if let other = try settings.string("sees") {
            try witness.record(bootstrapped.plugins.contains(other) ? "sees \(other)" : "does not see \(other)")
        }
        for variable in (try settings.string("environment") ?? "").split(separator: ",").map(String.init) {
            try witness.record("environment " + (getenv(variable).map { "\(variable)=\(String(cString: $0))" } ?? "\(variable) unset"))
        }
        bootstrapped.lifecycle.onReload(
            check: { new in
                if try new.bool("reloadFails") == true { throw ReloadRefused(name: name) }
            },
            apply: { new in
                if try new.bool("applyFails") == true { throw ApplyFailed(name: name) }
                witness.settings.withLock { $0 = new }
                try witness.record("reload marker=\(try new.string("marker") ?? "-")")
            })
        bootstrapped.lifecycle.onShutdown {
            if let delay = try witness.settings.withLock({ $0 }).integer("shutdownDelay") {
                usleep(UInt32(delay) * 1000)
            }
            try witness.record("shutdown")
        }
        try registerEvents(bootstrapped, witness)
    }

    private func registerEvents(_ bootstrapped: Bootstrapped, _ witness: Witness) throws {
        let settings = bootstrapped.settings
        let lifecycle = bootstrapped.lifecycle
        if try settings.bool("serve") == true {
            lifecycle.run {
                try witness.record("serving")
                do {
                    try await Task.sleep(for: .seconds(3600))
                } catch {
                    try witness.record("stopped")
                }
            }
        }
        if let delay = try settings.integer("readyDelay") {
            let fails = try settings.bool("readyFails") == true
            lifecycle.onReady {
                try await Task.sleep(for: .milliseconds(delay))
                if fails { throw NotReady(name: witness.name) }
                try witness.record("ready")
            }
        }
        if let path = try settings.string("health") {
            lifecycle.onHealthCheck {
                let line = firstLine(of: path) ?? "unhealthy: cannot read \(path)"
                if line.hasPrefix("degraded: ") { return .degraded(String(line.dropFirst(10))) }
                if line.hasPrefix("unhealthy: ") { return .unhealthy(String(line.dropFirst(11))) }
                return .healthy
            }
        }
        if let delay = try settings.integer("drainDelay") {
            lifecycle.onDrain {
                try witness.record("draining")
                usleep(UInt32(delay) * 1000)
                try witness.record("drained")
            }
        }
        lifecycle.on(PluginAdded.self) { event in
            let found = event.bootstrapped.plugins.contains(event.name)
            try witness.record("added \(event.name)\(found ? " (visible)" : " (not visible)")")
        }
        lifecycle.on(PluginRemoved.self) { event in try witness.record("removed \(event.name)") }
    }
}

struct NotReady: Error, CustomStringConvertible {
    let name: String
    var description: String { "\(name) could not bind its port" }
}

/// Writes what happens to a component into the file its `log` setting names; holds its
/// current settings.
final class Witness: Sendable {
    let name: String
    let settings: Mutex<Settings>

    init(name: String, settings: Settings) {
        self.name = name
        self.settings = Mutex(settings)
    }

    func record(_ event: String) throws {
        guard let log = try settings.withLock({ $0 }).string("log") else { return }
        appendLine("\(name) \(event)", to: log)
    }
}

struct BootstrapRefused: Error, CustomStringConvertible {
    var description: String { "told to fail by its settings" }
}

struct ReloadRefused: Error, CustomStringConvertible {
    let name: String
    var description: String { "\(name) refuses the new settings" }
}

struct ApplyFailed: Error, CustomStringConvertible {
    let name: String
    var description: String { "\(name) could not apply the new settings" }
}

@c(plugin_host_bootstrapping)
public func pluginHostBootstrapping() -> UnsafeMutableRawPointer {
    PluginEntryPoint.export(RecordingComponent.self)
}
