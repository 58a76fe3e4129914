import PluginABI
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A service that runs until its task is cancelled, recording what happens to it in the
/// file its `log` setting names. With `ignoresCancellation` it never stops by itself; with
/// `failAfter` (milliseconds) it throws after that long.
public final class ServerComponent: Bootstrapping {
    public init(_ bootstrapped: Bootstrapped) throws {
        let settings = bootstrapped.settings
        let log = try settings.string("log")
        let failAfter = try settings.integer("failAfter")
        let ignoresCancellation = try settings.bool("ignoresCancellation") == true
        record("Server bootstrap", to: log)
        bootstrapped.lifecycle.run {
            record("Server run", to: log)
            if let failAfter {
                try await Task.sleep(for: .milliseconds(failAfter))
                throw ServerError()
            }
            if ignoresCancellation {
                while true { usleep(100_000) }
            }
            do {
                try await Task.sleep(for: .seconds(3600))
            } catch is CancellationError {
                record("Server stopped", to: log)
            }
        }
        bootstrapped.lifecycle.onShutdown { record("Server shutdown", to: log) }
    }
}

func record(_ line: String, to log: String?) {
    guard let log else { return }
    appendLine(line, to: log)
}

struct ServerError: Error, CustomStringConvertible {
    var description: String { "the server lost its socket" }
}

@c(plugin_host_bootstrapping)
public func pluginHostBootstrapping() -> UnsafeMutableRawPointer {
    PluginEntryPoint.export(ServerComponent.self)
}
