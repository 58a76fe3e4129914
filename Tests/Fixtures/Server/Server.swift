import PluginABI
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A service that runs until its task is cancelled, recording what happens to it in the
/// file its `log` setting names. With `ignoresCancellation` it never stops by itself; with
/// `failAfter` (milliseconds) it throws after that long.
public final class ServerComponent: Bootstrapping, Service {
    private let settings = Mutex(Settings())

    public init() {}

    public func bootstrap(_ bootstrapped: Bootstrapped) async throws {
        settings.withLock { $0 = bootstrapped.settings }
        try record("Server bootstrap")
    }

    public func run() async throws {
        let settings = settings.withLock { $0 }
        try record("Server run")
        if let failAfter = try settings.integer("failAfter") {
            try await Task.sleep(for: .milliseconds(failAfter))
            throw ServerError()
        }
        if try settings.bool("ignoresCancellation") == true {
            while true { usleep(100_000) }
        }
        do {
            try await Task.sleep(for: .seconds(3600))
        } catch is CancellationError {
            try record("Server stopped")
        }
    }

    public func shutdown() async throws {
        try record("Server shutdown")
    }

    private func record(_ line: String) throws {
        guard let log = try settings.withLock({ $0 }).string("log") else { return }
        let descriptor = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return }
        let bytes = Array((line + "\n").utf8)
        _ = write(descriptor, bytes, bytes.count)
        close(descriptor)
    }
}

struct ServerError: Error, CustomStringConvertible {
    var description: String { "the server lost its socket" }
}

@c(plugin_host_bootstrapping)
public func pluginHostBootstrapping() -> UnsafeMutableRawPointer {
    PluginEntryPoint.export(ServerComponent())
}
