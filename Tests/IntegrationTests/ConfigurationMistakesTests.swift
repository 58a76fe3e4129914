import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Mistakes in the configuration file are named, with what to do, instead of silently
/// replaced by defaults.
@Suite("Configuration mistakes are named")
struct ConfigurationMistakesTests {
    @Test("a key a plugin does not declare in its manifest is named before loading, with the declared key it was meant to be")
    func undeclaredKey() throws {
        let service = try ServiceFixture(tickerSettings: #""pollMS": 5, "colour": "red""#)
        let (host, listener) = try service.start()
        #expect(listener.wait(forPrefix: "READY=1") != nil)
        let file = service.directory.configuration.path
        #expect(host.waitForError(
            "plugin-host: warning: configuration file \(file): plugin Ticker has no setting \"pollMS\" (it reads \"log\", \"trigger\", \"triggerOnce\", "
                + "\"crashIn\", \"pollMs\", \"failsInNextBuild\", \"printEvery\", \"nextBuildFails\", \"failAfterMs\"); did you mean \"pollMs\"?"))
        #expect(host.waitForError("plugin Ticker has no setting \"colour\" (it reads "))
        #expect(host.standardError.contains("\"colour\" (it reads \"log\", \"trigger\", \"triggerOnce\", \"crashIn\", \"pollMs\", \"failsInNextBuild\", "
            + "\"printEvery\", \"nextBuildFails\", \"failAfterMs\"); check the spelling, or remove it"))
        #expect(host.stop(with: SIGTERM).status == 0)
    }

    @Test("a key a plugin that declares nothing did not read, and that looks like one it asked for, is named with that key")
    func misspeltKey() throws {
        let service = try ServiceFixture(echoSettings: #""sockte": "echo""#)
        let (host, listener) = try service.start()
        #expect(listener.wait(forPrefix: "READY=1") != nil)
        #expect(host.waitForError(
            "plugin-host: warning: configuration file \(service.directory.configuration.path): plugin Echo did not read setting \"sockte\" "
                + "while it bootstrapped; did you mean \"socket\"? (it used its default for \"socket\")"))
        #expect(host.stop(with: SIGTERM).status == 0)
    }

    @Test("settings for a plugin that is not installed name the plugin it was probably meant to be")
    func misspeltPlugin() throws {
        let directory = try PluginDirectoryFixture.demo()
        try directory.configure(#""Persistance": {"dataDirectory": "/nowhere"}"#)
        let result = try directory.runHost()
        #expect(result.status == 0)
        #expect(result.standardError.contains("has settings for plugin Persistance, which is not in \(directory.plugins.path); did you mean Persistence?"))
    }

    @Test("a value of the wrong kind says what it is: 200.5 is a fractional number")
    func wrongKind() throws {
        let service = try ServiceFixture(tickerSettings: #""pollMs": 200.5"#)
        let result = try service.directory.runHost(["--listen", "echo=\(service.socket)"])
        #expect(result.status == 1)
        #expect(result.standardError.contains(
            "setting \"pollMs\" of plugin Ticker must be a whole number, but the configuration holds the fractional number 200.5"))
    }

    @Test("SIGHUP with new settings for a plugin that has no reload hook says which keys take effect only when it starts again")
    func reloadWithoutHook() throws {
        let service = try ServiceFixture()
        let (host, listener) = try service.start()
        #expect(listener.wait(forPrefix: "READY=1") != nil)
        let text = try String(contentsOf: service.directory.configuration, encoding: .utf8)
        try Data(text.replacingOccurrences(of: #""Echo": {"#, with: #""Echo": {"socket": "echo", "#).utf8).write(to: service.directory.configuration)
        host.send(SIGHUP)
        #expect(host.waitForError(
            "plugin-host: warning: plugin \(service.label("Echo")) has no reload hook: its changed setting \"socket\" takes effect "
                + "when it starts again (a restart of the host, or an upgrade of the plugin)"))
        #expect(host.stop(with: SIGTERM).status == 0)
    }

    @Test("--config from a pipe (<(...), /dev/stdin) is read once; SIGHUP says it cannot be read again")
    func configurationFromPipe() throws {
        let service = try ServiceFixture()
        let host = try RunningHost("/bin/bash", ["-c", """
            exec '\(Repository.host.path)' --dir '\(service.directory.plugins.path)' --listen 'echo=\(service.socket)' \
                --config <(cat '\(service.directory.configuration.path)')
            """])
        #expect(service.log.wait(for: "Ticker 0.1.0 serving"), "the settings from the pipe reached the plugins: \(host.standardError)")
        host.send(SIGHUP)
        #expect(host.waitForError("is a pipe, read once when the host started, and cannot be read again; "
            + "give --config a regular file to reload settings; nothing was reloaded"))
        #expect(host.stop(with: SIGTERM).status == 0)
    }
}
