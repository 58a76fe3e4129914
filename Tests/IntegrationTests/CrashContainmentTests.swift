import Foundation
import Testing

/// A plugin that crashes or hangs is named, and the host ends with its own exit status,
/// never by the signal.
@Suite("Crashes and hangs")
struct CrashContainmentTests {
    static let crashes: [(mode: String, signal: String)] = [
        ("segfault", "SIGSEGV"), ("force-unwrap", "SIG(ILL|TRAP)"), ("index-out-of-range", "SIG(ILL|TRAP)"),
        ("fatal-error", "SIG(ILL|TRAP)"), ("abort", "SIGABRT"), ("stack-overflow", "SIGSEGV"),
    ]

    @Test("a crash while loading or bootstrapping is one line naming the plugin, and exit 70",
          arguments: crashes.map(\.mode), ["load", "bootstrap"])
    func crash(mode: String, phase: String) throws {
        let signal = Self.crashes.first { $0.mode == mode }!.signal
        let directory = try PluginDirectoryFixture.demo(fixtures: ["Crasher"])
        let result = try directory.runHost(environment: ["CRASHER_MODE": mode, "CRASHER_PHASE": phase])
        #expect(!result.signalled)
        #expect(result.status == 70)
        let line = try #require(result.standardError.split(separator: "\n").last.map(String.init))
        let expected = try Regex("^plugin-host: error: plugin Crasher \\(\(NSRegularExpression.escapedPattern(for: directory.plugins.path))/libCrasher\\.so\\) crashed during \(phase): \(signal)$")
        #expect(line.wholeMatch(of: expected) != nil, "\(result.standardError)")
    }

    @Test("a plugin that calls exit() is named, and the host exits 70 instead of 0", arguments: ["load", "bootstrap"])
    func exitCall(phase: String) throws {
        let directory = try PluginDirectoryFixture.demo(fixtures: ["Crasher"])
        let result = try directory.runHost(environment: ["CRASHER_MODE": "exit", "CRASHER_PHASE": phase])
        #expect(result.status == 70)
        #expect(result.standardError.contains("plugin Crasher (\(directory.plugins.path)/libCrasher.so) called exit(0) during \(phase)"))
    }

    @Test("a plugin that does not return within --timeout is named and the host does not wait for it", arguments: ["load", "bootstrap"])
    func hang(phase: String) throws {
        let directory = try PluginDirectoryFixture.demo(fixtures: ["Sleeper"])
        let clock = ContinuousClock()
        let start = clock.now
        let result = try directory.runHost(["--timeout", "0.5"], environment: ["SLEEPER_PHASE": phase])
        let elapsed = clock.now - start
        #expect(result.status == 124)
        #expect(!result.signalled)
        #expect(result.standardError.contains(
            "plugin Sleeper (\(directory.plugins.path)/libSleeper.so) timed out during \(phase): still running after 0.5 s (--timeout)"))
        #expect(elapsed < .seconds(10), "the host waited \(elapsed)")
    }

    @Test("--timeout 0 means no limit, and a bad value is a usage error")
    func timeoutValues() throws {
        let directory = try PluginDirectoryFixture.demo()
        #expect(try directory.runHost(["--timeout", "0"]).status == 0)
        let bad = try directory.runHost(["--timeout", "soon"])
        #expect(bad.status == 64)
        #expect(bad.standardError.hasPrefix("plugin-host: --timeout needs a number of seconds (0 for no limit), not 'soon'"))
    }
}
