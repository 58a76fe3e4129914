import PluginABI

#if canImport(Glibc)
import Glibc
#endif

#if NEXT_BUILD
/// Which build this is, in every line it logs: the tests tell builds apart by it.
let build = "0.2.0"
#else
let build = "0.1.0"
#endif

/// A service that ticks, for the tests of worker generations: restarts, upgrades and
/// what they leave out. Its settings:
///
/// - `log` (path): appends `Ticker BUILD bootstrap`, `Ticker BUILD serving`, `Ticker BUILD
///   pid N`, `Ticker BUILD stopped`, `Ticker BUILD shutdown`, `Ticker BUILD reload`.
/// - `trigger` (path) and `crashIn` (`bootstrap`, `run`, `health` or `reload`): once the
///   trigger file exists, it crashes (SIGSEGV in its own code) in that phase: its bootstrap
///   checks when it runs, its service every `pollMs` milliseconds (default 20), its health
///   check and reload hook when called. With `triggerOnce` (boolean), the process that
///   fires removes the trigger, so that one process crashes, and the next runs.
/// - `failsInNextBuild` (boolean): the next build (0.2.0) throws from its bootstrap.
/// - `printEvery` (milliseconds): its service prints `Ticker BUILD tick N` with `print`
///   that often.
/// - `nextBuildFails` (`crash`, `hang` or `unhealthy`) and `failAfterMs` (default 300): the
///   next build (0.2.0), that long after its service started, crashes in its service, or
///   its health check hangs, or says it is unhealthy.
/// - `replaceOwnFileWith` (path): its bootstrap renames that file over its own (found with
///   `dladdr`), before the host serves: a build replaced before the supervisor held it.
public final class TickerComponent: Bootstrapping {
    public init(_ bootstrapped: Bootstrapped) throws {
        let settings = bootstrapped.settings
        let log = try settings.string("log")
        let trigger = try settings.string("trigger")
        let crashIn = try settings.string("crashIn") ?? "run"
        let triggerOnce = try settings.bool("triggerOnce") ?? false
        let poll = try settings.integer("pollMs") ?? 20
        let printEvery = try settings.integer("printEvery")
        #if NEXT_BUILD
        if try settings.bool("failsInNextBuild") == true { throw NextBuildRefused() }
        let fails = try settings.string("nextBuildFails")
        let failAfter = try settings.integer("failAfterMs") ?? 300
        #else
        let fails: String? = nil
        let failAfter = 0
        #endif
        let started = ContinuousClock.now
        @Sendable func failing(_ how: String) -> Bool {
            fails == how && ContinuousClock.now - started >= .milliseconds(failAfter)
        }
        note("bootstrap", log)
        note("pid \(getpid())", log)
        @Sendable func crashIfTriggered(in phase: String) {
            guard phase == crashIn, let trigger, access(trigger, F_OK) == 0 else { return }
            // Once: only the process whose unlink removes it fires.
            if triggerOnce, unlink(trigger) != 0 { return }
            note("crashing in \(phase)", log)
            crash()
        }
        crashIfTriggered(in: "bootstrap")
        if let replacement = try settings.string("replaceOwnFileWith") { replaceOwnFile(with: replacement) }
        bootstrapped.lifecycle.run {
            note("serving", log)
            var elapsed = 0
            var ticks = 0
            do {
                while true {
                    crashIfTriggered(in: "run")
                    if failing("crash") {
                        note("crashing on purpose", log)
                        crash()
                    }
                    try await Task.sleep(for: .milliseconds(poll))
                    elapsed += poll
                    if let printEvery, elapsed >= printEvery {
                        elapsed = 0
                        ticks += 1
                        print("Ticker \(build) tick \(ticks)")
                    }
                }
            } catch {
                note("stopped", log)
            }
        }
        bootstrapped.lifecycle.onHealthCheck {
            crashIfTriggered(in: "health")
            if failing("hang") { while true { sleep(1000) } }
            return failing("unhealthy") ? .unhealthy("lost its data") : .healthy
        }
        bootstrapped.lifecycle.onReload { _ in
            crashIfTriggered(in: "reload")
            note("reload", log)
        }
        bootstrapped.lifecycle.onShutdown { note("shutdown", log) }
    }
}

/// Writes `Ticker BUILD EVENT` to the log.
private func note(_ event: String, _ log: String?) {
    guard let log else { return }
    appendLine("Ticker \(build) \(event)", to: log)
}

/// Renames `replacement` over the file this plugin was loaded from: the file of the
/// mapping that holds its image, read from /proc/self/maps.
private func replaceOwnFile(with replacement: String) {
    let image = UInt(bitPattern: #dsohandle)
    let descriptor = open("/proc/self/maps", O_RDONLY)
    guard descriptor >= 0 else { return }
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65_536)
    while case let count = read(descriptor, &chunk, chunk.count), count > 0 { bytes += chunk[..<count] }
    let maps = String(decoding: bytes, as: UTF8.self)
    for line in maps.split(separator: "\n") {
        let fields = line.split(separator: " ", omittingEmptySubsequences: true)
        let range = fields.first?.split(separator: "-") ?? []
        guard fields.count >= 6, range.count == 2, let low = UInt(range[0], radix: 16), let high = UInt(range[1], radix: 16),
            low <= image, image < high
        else { continue }
        _ = rename(replacement, String(fields[5]))
        return
    }
}

/// Crashes with SIGSEGV: a write through a null pointer, in this plugin's own code.
@inline(never)
private func crash() {
    let address = UnsafeMutablePointer<Int>(bitPattern: Int(getpid() & 0) + 8)
    address?.pointee = 1
}

struct NextBuildRefused: Error, CustomStringConvertible {
    var description: String { "build \(build) refuses to start (failsInNextBuild)" }
}

@c(plugin_host_bootstrapping)
public func pluginHostBootstrapping() -> UnsafeMutableRawPointer {
    PluginEntryPoint.export(TickerComponent.self)
}
