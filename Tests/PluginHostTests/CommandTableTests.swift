import Testing

@testable import PluginHost

@Suite("The table of commands: each command declared once, and read by the parser and the help")
struct CommandTableTests {
    /// `plugin-host list --dir plugins/ | dot ...` as the arguments after the program name,
    /// up to a pipe.
    private func arguments(of example: String) -> [String] {
        let words = example.split(separator: " ").map(String.init)
        return Array(words.dropFirst().prefix { $0 != "|" && $0 != ">" })
    }

    @Test("every example of every command parses as that command")
    func examplesParse() throws {
        for entry in CommandTable.all {
            for example in entry.examples {
                let parsed = try Command(parsing: arguments(of: example), defaultDirectory: nil)
                let named = arguments(of: example).first.flatMap { CommandTable.names.contains($0) ? $0 : nil } ?? "run"
                #expect(named == entry.name || entry.name == "help", "\(entry.name): \(example) is an example of \(named)")
                #expect(parsed != .help, "\(example)")
            }
        }
    }

    @Test("a command takes exactly the options its entry lists: another one is refused, naming the command")
    func optionsAreTheEntrys() throws {
        let every = CommandTable.all.reduce(Set<String>()) { $0.union($1.options) }
        for entry in CommandTable.all where entry.name != "help" && entry.name != "run" {
            for option in every.subtracting(entry.options).sorted() {
                #expect(throws: UsageError(message: "\(option) does not apply to 'plugin-host \(entry.name)'")) {
                    try Command(parsing: [entry.name, option], defaultDirectory: nil)
                }
            }
        }
    }

    @Test("every option an entry lists is one the parser reads")
    func optionsAreRead() {
        for entry in CommandTable.all {
            for option in entry.options {
                do {
                    _ = try Command(parsing: [entry.name, option, "value"], defaultDirectory: nil)
                } catch {
                    #expect(!error.message.contains("is not read"), "\(entry.name) \(option): \(error.message)")
                }
            }
        }
    }

    @Test("the global help lists every command's usage and describes every option a command takes")
    func helpReadsTheTable() {
        let help = HelpText.help(defaultDirectory: nil)
        let described = HelpText.optionDescriptions(defaultDirectory: nil)
        for entry in CommandTable.all {
            for line in entry.usage { #expect(help.contains(line.trimmingSpaces), "\(entry.name): \(line)") }
            for option in entry.options { #expect(described[option] != nil, "\(entry.name) takes \(option), which the help does not describe") }
            if entry.kind != .help { #expect(help.contains("  " + entry.listing), "\(entry.name)") }
        }
    }

    @Test("each command's own help: its usage lines, its options, its examples")
    func commandHelp() throws {
        let rollback = try #require(CommandHelp.of("rollback")).text(defaultDirectory: nil)
        #expect(rollback.hasPrefix("Usage:\n  plugin-host restart | accept | rollback [--dir DIR | --control PATH] [--json] [PLUGIN]...\n"
            + "  plugin-host rollback PLUGIN --to VERSION [--dir DIR | --control PATH] [--json]\n\n"))
        #expect(rollback.contains("\n  --to VERSION "))
        #expect(!rollback.contains("--watch"))
        let run = try #require(CommandHelp.of("run")).text(defaultDirectory: nil)
        #expect(run.hasPrefix("Usage:\n  plugin-host [run] [--dir DIR]... [--config FILE] [--json] [--keep-going] [--jobs N]\n"
            + "              [--timeout SECONDS]"))
        #expect(CommandHelp.of("nonsense") == nil)
    }

    @Test("the commands that ask a running host are those whose entry says so")
    func askingAHost() throws {
        for entry in CommandTable.all where entry.asksHost {
            let parsed = try Command(parsing: [entry.name, "--control", "/run/x.sock"], defaultDirectory: nil)
            guard case .control = parsed else {
                Issue.record("\(entry.name) asks a host, but parses as \(parsed)")
                continue
            }
        }
        #expect(Set(CommandTable.all.filter(\.asksHost).map(\.name)) == ["status", "wait", "reload", "restart", "accept", "rollback", "stop", "upgrade-host"])
    }
}
