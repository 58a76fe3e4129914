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
/// - `reloadFails` (boolean): throws from `reload(_:)`.
public final class RecordingComponent: Bootstrapping, Reloadable {
    private let state = Mutex<(name: String, settings: Settings)>(("", Settings()))

    public init() {}

    public func bootstrap(_ bootstrapped: Bootstrapped) async throws {
        state.withLock { $0 = (bootstrapped.pluginName ?? "", bootstrapped.settings) }
        if let delay = try bootstrapped.settings.integer("bootstrapDelay") {
            try await Task.sleep(for: .milliseconds(delay))
        }
        if let busy = try bootstrapped.settings.integer("bootstrapBusy") {
            usleep(UInt32(busy) * 1000)
        }
        if try bootstrapped.settings.bool("bootstrapFails") == true { throw BootstrapRefused() }
        try record("bootstrap")
    }

    public func reload(_ settings: Settings) async throws {
        let name = state.withLock { $0.name }
        if try settings.bool("reloadFails") == true { throw ReloadRefused(name: name) }
        let marker = try settings.string("marker") ?? "-"
        state.withLock { $0.settings = settings }
        try record("reload marker=\(marker)")
    }

    public func shutdown() async throws {
        if let delay = try state.withLock({ $0.settings }).integer("shutdownDelay") {
            usleep(UInt32(delay) * 1000)
        }
        try record("shutdown")
    }

    private func record(_ event: String) throws {
        let (name, settings) = state.withLock { $0 }
        guard let log = try settings.string("log") else { return }
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

/// Appends one line with a single `write(2)` on an `O_APPEND` descriptor, so that lines of
/// concurrent writers do not mix.
func appendLine(_ line: String, to path: String) {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else { return }
    let bytes = Array((line + "\n").utf8)
    _ = write(descriptor, bytes, bytes.count)
    close(descriptor)
}

@c(plugin_host_bootstrapping)
public func pluginHostBootstrapping() -> UnsafeMutableRawPointer {
    PluginEntryPoint.export(RecordingComponent())
}
