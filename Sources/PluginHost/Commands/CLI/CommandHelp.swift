/// The help of one command (`plugin-host COMMAND --help`, `plugin-host help COMMAND`): its
/// usage, what it does, the options it takes, each described as the global help describes it,
/// and an example or two, all from its entry in ``CommandTable``.
struct CommandHelp {
    let command: CommandEntry

    /// The help of `name`, if it is a command.
    static func of(_ name: String) -> CommandHelp? {
        CommandTable.entry(name).map(CommandHelp.init)
    }

    /// The text printed, the options described with the global help's words.
    func text(defaultDirectory: String?) -> String {
        let usage = command.usage.map { line in
            line.hasPrefix(" ") ? "              " + line.trimmingSpaces : "  plugin-host " + line
        }
        let descriptions = HelpText.optionDescriptions(defaultDirectory: defaultDirectory)
        let options = command.options.sorted().compactMap { descriptions[$0] } + [descriptions["--help"] ?? ""]
        return "Usage:\n" + usage.joined(separator: "\n") + "\n\n" + command.summary + "\n\nOptions:\n" + options.joined()
            + "\nExamples:\n" + command.examples.map { "  \($0)\n" }.joined() + "\nAll commands: plugin-host --help; docs/cli.md has more.\n"
    }
}
