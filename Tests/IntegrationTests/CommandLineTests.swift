import Foundation
import Testing

@Suite("The command line of the real binary")
struct CommandLineTests {
    private func host(_ arguments: [String]) throws -> CommandResult {
        try Command.run(Repository.host.path, arguments)
    }

    @Test("--help prints usage, options and exit codes on stdout and exits 0")
    func help() throws {
        let result = try host(["--help"])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("Usage: plugin-host [run] [--dir DIR]... [--config FILE] [--json] [--keep-going]"))
        #expect(result.standardOutput.contains("64  the command line is wrong"))
        #expect(result.standardError.isEmpty)
    }

    @Test("--version prints the host and ABI versions")
    func version() throws {
        let result = try host(["--version"])
        #expect(result.status == 0)
        #expect(result.standardOutput == "plugin-host 0.2.0 (plugin ABI 2)\n")
    }

    @Test("a usage error is one line on stderr, naming what is wrong and the help to read, with exit 64", arguments: [
        (["--dir"], "plugin-host: option --dir needs a value; see 'plugin-host --help'\n"),
        (["new"], "plugin-host: new takes one plugin name; see 'plugin-host new --help'\n"),
        (["status", "--to", "1.0.0"], "plugin-host: --to does not apply to 'plugin-host status'; see 'plugin-host status --help'\n"),
        (["rollback", "A", "B", "--to", "1.0.0", "--dir", "x"], "plugin-host: rollback --to VERSION takes one plugin name; see 'plugin-host rollback --help'\n"),
        (["help", "nope"], "plugin-host: no command 'nope'; the commands are accept, check, check-api, embed-manifest, graph, help, history, inspect, install, list, new, reload, restart, rollback, run, status, stop, upgrade-host, wait; see 'plugin-host --help'\n"),
        (["--metrics-listen", "nope:xx"], "plugin-host: --metrics-listen nope:xx: expected unix:PATH, /PATH, @NAME, HOST:PORT, [IPV6]:PORT or :PORT, such as :9464; see 'plugin-host --help'\n"),
        (["--listen", "web=:http"], "plugin-host: --listen web=:http: expected unix:PATH, /PATH, @NAME, HOST:PORT, [IPV6]:PORT or :PORT; see 'plugin-host --help'\n"),
        (["new", "9bad"], "plugin-host: new: '9bad' is not a Swift identifier, which a plugin's module and its types are named by: use letters, digits and _, not beginning with a digit (such as Bad9); see 'plugin-host new --help'\n"),
        (["new", "my-plugin"], "plugin-host: new: 'my-plugin' is not a Swift identifier, which a plugin's module and its types are named by: use letters, digits and _, not beginning with a digit (such as MyPlugin); see 'plugin-host new --help'\n"),
    ])
    func usageError(arguments: [String], line: String) throws {
        let result = try host(arguments)
        #expect(result.status == 64)
        #expect(result.standardOutput.isEmpty)
        #expect(result.standardError == line)
    }

    @Test("a plugin directory that cannot be read is one error, with no empty table before it")
    func listMissingDirectory() throws {
        let result = try host(["list", "--dir", "/nonexistent/plugins"])
        #expect(result.status == 1)
        #expect(result.standardOutput.isEmpty, "\(result.standardOutput)")
        #expect(result.standardError.hasPrefix("plugin-host: error: cannot open plugin directory /nonexistent/plugins: No such file or directory"),
                "\(result.standardError)")
    }

    @Test("status --json with no host running still prints JSON on stdout: a refusal a reader can parse")
    func statusJSONWithoutHost() throws {
        let result = try host(["status", "--json", "--control", "/nonexistent/control.sock"])
        #expect(result.status == 1)
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any], "\(result.standardOutput)")
        #expect(answer["ok"] as? Bool == false)
        #expect((answer["error"] as? String)?.contains("no plugin-host is running at /nonexistent/control.sock") == true, "\(answer)")
    }

    @Test("a --control socket that cannot be made names the option and the reason, once")
    func controlSocketError() throws {
        let directory = try PluginDirectoryFixture.demo()
        // A short path: a Unix socket's must fit in 108 bytes.
        let notADirectory = URL(fileURLWithPath: Scratch.socketPath(named: "file"))
        try Data("x".utf8).write(to: notADirectory)
        let path = notADirectory.path + "/c.sock"
        let result = try directory.runHost(["--control", path, "--watch"])
        #expect(result.status == 1)
        #expect(result.standardError == "plugin-host: error: cannot listen on --control \(path): Not a directory (errno: 20)\n",
                "\(result.standardError)")
    }

    /// The commands, as docs/cli.md's synopsis lists them.
    private func documentedCommands() throws -> [String] {
        let synopsis = try String(contentsOf: Repository.root.appending(path: "docs/cli.md"), encoding: .utf8)
            .components(separatedBy: "\n").filter { $0.hasPrefix("plugin-host ") }
        var commands: [String] = []
        for line in synopsis {
            var words = line.split(separator: " ").dropFirst().map(String.init)
            while let word = words.first, !word.isEmpty, word.allSatisfy({ $0.isLowercase || $0 == "-" }), word.first != "-" {
                if !commands.contains(word) { commands.append(word) }
                words.removeFirst()
                if words.first == "|" { words.removeFirst() }
            }
        }
        return commands
    }

    @Test("every command docs/cli.md lists has a help of its own, the same as 'help COMMAND': its usage, each option it takes, examples")
    func commandHelp() throws {
        let global = try host(["--help"]).standardOutput
        let commands = try documentedCommands()
        #expect(commands.count >= 16, "\(commands)")
        for command in commands where command != "run" {
            let own = try host([command, "--help"])
            #expect(own.status == 0, "\(command)")
            #expect(own.standardOutput != global, "\(command) --help prints the help of them all")
            #expect(own.standardOutput.hasPrefix("Usage:"), "\(command): \(own.standardOutput)")
            #expect(own.standardOutput.contains("plugin-host \(command)") || own.standardOutput.contains("| \(command)"), "\(command): \(own.standardOutput)")
            #expect(own.standardOutput.contains("Examples:\n  plugin-host "), "\(command): \(own.standardOutput)")
            #expect(try host(["help", command]).standardOutput == own.standardOutput, "\(command)")
        }
        let rollback = try host(["rollback", "--help"]).standardOutput
        for option in ["--dir DIR", "--control PATH", "--json", "--to VERSION"] { #expect(rollback.contains("  \(option) "), "\(rollback)") }
        #expect(!rollback.contains("--watch"), "\(rollback)")
        #expect(try host(["run", "--help"]).standardOutput.contains("  --restart-limit N/SECONDS"))
    }

    @Test("the global help lists every command and every option docs/cli.md documents")
    func globalHelpMatchesTheDocument() throws {
        let global = try host(["--help"]).standardOutput
        let document = try String(contentsOf: Repository.root.appending(path: "docs/cli.md"), encoding: .utf8)
        // Each row of the options table: | `--name ...` | or | `--a`, `--b` |.
        let options = document.components(separatedBy: "\n").filter { $0.hasPrefix("| `-") }.flatMap { row in
            row.split(separator: "|")[0].split(separator: ",").compactMap { cell in
                cell.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "`")).split(separator: " ").first.map(String.init)
            }
        }
        #expect(options.count >= 25, "\(options)")
        for option in options { #expect(global.contains(" \(option)"), "docs/cli.md documents \(option); plugin-host --help does not list it") }
        for command in try documentedCommands() { #expect(global.contains(command), "\(command)") }
    }

    @Test("a configuration problem names the file and exits 1")
    func badConfiguration() throws {
        let directory = try PluginDirectoryFixture.demo()
        try Data(#"{"plugins": {"Persistence": {"dataDirectory": 7}}}"#.utf8).write(to: directory.configuration)
        let result = try directory.runHost()
        #expect(result.status == 1)
        #expect(result.standardError.contains(
            "plugin Persistence (\(directory.plugins.path)/libPersistence.so) failed to bootstrap: setting \"dataDirectory\" of plugin Persistence must be a string, but the configuration holds the number 7"))
    }

    @Test("settings for a plugin that is not installed give a warning, not a failure")
    func unknownPluginInConfiguration() throws {
        let directory = try PluginDirectoryFixture.demo()
        try Data(#"{"plugins": {"Persistance": {}, "Persistence": {"dataDirectory": "\#(directory.data.path)"}}}"#.utf8)
            .write(to: directory.configuration)
        let result = try directory.runHost()
        #expect(result.status == 0)
        #expect(result.standardError == "plugin-host: warning: configuration file \(directory.configuration.path) has settings for plugin "
            + "Persistance, which is not in \(directory.plugins.path); did you mean Persistence?\n")
    }
}
