import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What an operator does to a running host, and what reaches them: signals delivered more
/// than once, output read slowly through a process the host inherited, plugins' output as
/// it is written.
@Suite("Operators: signals, output and what the host inherited")
struct OperatorTests {
    @Test("the same stop signal delivered twice at once is one request: the host drains and shuts down",
          arguments: ["timeout(1)", "twice", "worker's group and host"])
    func repeatedSignal(how: String) throws {
        let service = try ServiceFixture()
        let arguments = ["--dir", service.directory.plugins.path, "--config", service.directory.configuration.path,
                         "--listen", "echo=\(service.socket)"]
        let result: CommandResult
        if how == "timeout(1)" {
            // timeout, told to stop, signals the host, then its process group: the host twice at once.
            let timeout = try RunningHost("/usr/bin/timeout", ["--preserve-status", "600", Repository.host.path] + arguments)
            #expect(service.log.wait(for: "Ticker 0.1.0 serving"))
            timeout.send(SIGTERM)
            result = timeout.wait()
        } else {
            let host = try RunningHost(Repository.host.path, arguments)
            #expect(service.log.wait(for: "Ticker 0.1.0 serving"))
            let worker = try #require(service.echo().worker)
            if how == "twice" {
                host.send(SIGTERM)
                host.send(SIGTERM)
            } else {
                kill(-worker, SIGTERM)
                host.send(SIGTERM)
            }
            result = host.wait()
        }
        #expect(result.status == 0, "\(result.standardError)")
        #expect(!result.standardError.contains("received SIGTERM again"), "\(result.standardError)")
        #expect(result.standardError.contains("plugin-host: received SIGTERM; shutting down"))
        #expect(service.log.lines.contains("Echo drained"))
        #expect(service.log.lines.contains("Ticker 0.1.0 shutdown"))
    }

    @Test("a process the host inherited (a shell's output reader) is never ended, and gets the host's whole output")
    func inheritedReader() throws {
        let directory = try PluginDirectoryFixture.demo()
        let output = directory.root.appending(path: "read-slowly.txt")
        // bash starts the reader, then becomes the host: the reader is the host's child.
        let result = try Command.run("/bin/bash", ["-c", """
            exec '\(Repository.host.path)' --dir '\(directory.plugins.path)' --config '\(directory.configuration.path)' \
                > >(sleep 0.5; while read -r line; do echo "$line"; sleep 0.01; done > '\(output.path)')
            """])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(!result.standardError.contains("ended"), "\(result.standardError)")
        #expect(wait(until: { ((try? String(contentsOf: output, encoding: .utf8)) ?? "").contains("Critical chain: ") }),
                "the reader did not get the report's last line")
    }

    @Test("what a plugin prints reaches standard output line by line, as it is written, though it is not a terminal")
    func pluginOutputIsLineBuffered() throws {
        let service = try ServiceFixture(tickerSettings: #""printEvery": 100"#)
        let (host, _) = try service.start()
        #expect(wait(until: { host.standardOutput.contains("Ticker 0.1.0 tick 3\n") }), "ticks were held back: \(host.standardOutput)")
        #expect(host.isRunning)
        #expect(host.stop(with: SIGTERM).status == 0)
    }
}
