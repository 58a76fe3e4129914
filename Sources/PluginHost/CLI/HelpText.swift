import PluginABI

/// The texts of `--help`, `--version` and usage errors.
enum HelpText {
    static let version = "0.1.0"

    static var versionLine: String { "plugin-host \(version) (plugin ABI \(PluginABIVersion.current))\n" }

    static let usage = "Usage: plugin-host [--dir DIR] [--config FILE] [--json]\n"

    static func help(defaultDirectory: String?) -> String {
        """
        plugin-host: compose an application out of drop-in plugins.

        \(usage)
        Reads the manifest of every *.so file in DIR without running any plugin code,
        orders the plugins so that each comes after the plugins it requires, reports every
        problem at once, then loads them in that order and bootstraps each component.

        Options:
          --dir DIR      the plugin directory (default: \(defaultDirectory ?? "none; --dir is required"))
          --config FILE  a JSON file of settings per plugin: {"plugins": {"NAME": {...}}}
          --json         print the report as one JSON document on stdout; anything
                         plugins print goes to stderr
          --help, -h     print this help and exit
          --version      print the version and the plugin ABI version, and exit

        Exit status:
          0   every plugin bootstrapped
          1   a plugin directory, configuration, manifest, dependency graph, load or
              bootstrap problem; each is on stderr (and in "errors" with --json)
          64  the command line is wrong

        """
    }
}
