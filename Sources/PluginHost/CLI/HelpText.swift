import PluginABI

/// The texts of `--help`, `--version` and usage errors.
enum HelpText {
    static let version = "0.2.0"

    static var versionLine: String { "plugin-host \(version) (plugin ABI \(abiVersion))\n" }

    static var abiVersion: Int { PluginABIVersion.current }

    static let usage = """
        Usage: plugin-host [run] [--dir DIR]... [--config FILE] [--json] [--keep-going] [--jobs N]
                           [--timeout SECONDS] [--shutdown-timeout SECONDS] [--timeline FILE.svg] [--allow-any-owner]
               plugin-host list [--dir DIR]... [--json]
               plugin-host inspect [--json] FILE
               plugin-host check [--dir DIR]...
               plugin-host graph [--dir DIR]...
               plugin-host new NAME [--requires A,B] [--into DIR]

        """

    static func help(defaultDirectory: String?) -> String {
        """
        plugin-host: compose an application out of drop-in plugins.

        \(usage)
        Reads the manifest of every *.so file in the plugin directories without running any
        plugin code, orders the plugins so that each comes after the plugins it requires,
        reports every problem at once, then loads them in that order and bootstraps each
        component, runs the services, and shuts down.

        Commands (none of list, inspect, check, graph loads a plugin):
          run            load and run the plugins (the default)
          list           one line per plugin: name, version, ABI, requires, file, loadable or why not
          inspect FILE   the whole manifest of one plugin file, with its path, size and time
          check          report every problem; exit 0 if the plugins would bootstrap, else 1
          graph          the dependency graph as Graphviz DOT (problems in red)
          new NAME       write a plugin project (source, manifest, Makefile, test) that builds
                         against this install with one `make`; --requires A,B; --into DIR

        Options:
          --dir DIR      a plugin directory; repeat it for several. PLUGIN_HOST_PATH (colon-
                         separated) adds more after them. Without --dir: PLUGIN_HOST_PATH, then
                         \(defaultDirectory ?? "(no install tree found; give --dir)").
                         The first directory holding a plugin name wins; others are shadowed
          --timeline FILE.svg
                         write an SVG timeline of the run (load and bootstrap of each plugin,
                         the critical chain outlined)
          --config FILE  a JSON file of settings per plugin: {"plugins": {"NAME": {...}}}
          --json         print the report as one JSON document on stdout; anything
                         plugins print goes to stderr
          --keep-going   when a plugin fails, still run every plugin that does not
                         require it (directly or transitively); exit 1 all the same
          --jobs N       how many components may bootstrap at once, when their
                         dependencies allow (default: the number of processors, here
                         \(RunOptions.defaultJobs); 1 bootstraps one at a time)
          --timeout SECONDS
                         how long one plugin may take to load, and to bootstrap, before
                         the host names it and exits 124 (default: 30; 0: no limit);
                         also bounds each reload hook
          --shutdown-timeout SECONDS
                         how long each shutdown hook, and the services together, may
                         take to stop before they are named and skipped (default: 10;
                         0: no limit)
          --allow-any-owner
                         load plugins (and a directory) owned by other users too; for
                         development trees only. Files writable by group or others are
                         refused all the same
          --help, -h     print this help and exit
          --version      print the version and the plugin ABI version, and exit

        Signals: SIGINT or SIGTERM stops the host: services are cancelled, then each
        component's shutdown hook runs in reverse bootstrap order; a second one ends the
        host at once. SIGHUP re-reads --config and calls the reload hooks.

        Exit status:
          0   every plugin bootstrapped, ran and shut down (also when stopped by a signal)
          1   a plugin directory, configuration, manifest, dependency graph, load,
              bootstrap, service or shutdown problem; each is on stderr (and, up to
              the end of the bootstrap, in "errors" with --json)
          64  the command line is wrong
          70  plugin code ended the process: a crash, exit() or _exit(), a signal,
              in any phase; stderr names it: plugin NAME (FILE) crashed during PHASE: SIGNAL
          124 plugin code did not finish loading or bootstrapping within --timeout,
              or the host was stuck behind plugin code past a deadline; stderr names it
          130, 143
              a second SIGINT (130) or SIGTERM (143) ended the host during shutdown

        """
    }
}
