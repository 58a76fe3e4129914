import PluginABI

/// The texts of `--help`, `--version` and usage errors.
enum HelpText {
    static var versionLine: String { "plugin-host \(HostVersion.current) (plugin ABI \(abiVersion))\n" }

    static var abiVersion: Int { PluginABIVersion.current }

    /// `plugin-host new --help`.
    static let newHelp = """
        Usage: plugin-host new NAME [--requires A,B] [--optional C,D] [--service] [--into DIR]

        Writes a plugin project, NAME/ in the current directory or in DIR, that builds, tests and
        installs against this host's install tree with no edit (PLUGIN_HOST_PREFIX names another):
          Package.swift                     swift build, swift test; an editor's completion
          manifest.json                     the plugin's name, version, ABI, requires, optional,
                                            settings; embedded in libNAME.so by each build
          Sources/NAME/NAMEBootstrapping.swift
                                            the component: finds what it requires, handles its events
          Tests/NAMETests/NAMETests.swift   tests that bootstrap it with BootstrapHarness, no host
          Makefile                          the same without SwiftPM: make, make test, make install

        Options:
          --requires A,B   plugins that must bootstrap first: the project links them (and what
                           they require), and the component obtains each through the protocol
                           it exports, which the test stands in for
          --optional C,D   plugins used when installed: never linked; the component sees them
                           when it bootstraps, and hears when one leaves (PluginRemoved)
          --service        a component that runs a service and handles readiness, health and
                           drain; the test starts and stops the service as the host does
          --into DIR       where to write the project; DIR is created if missing
          --help, -h       print this help and exit

        Examples:
          plugin-host new Ripener --requires Domain
          plugin-host new Pulse --service --optional Metrics --into ~/src

        All commands: plugin-host --help; docs/writing-plugins.md has more.

        """

    /// Each option's description in the global help, by its name (`--dir`): the lines from
    /// the one that names it to the next option's, as they are printed.
    static func optionDescriptions(defaultDirectory: String?) -> [String: String] {
        let lines = help(defaultDirectory: defaultDirectory).split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(of: "Options:") else { return [:] }
        var descriptions: [String: String] = [:]
        var names: [String] = []
        var block = ""
        func finish() {
            for name in names { descriptions[name] = block }
        }
        for line in lines[(start + 1)...] {
            if line.isEmpty { break }
            if line.hasPrefix("  --") {
                finish()
                block = ""
                names = Self.optionNames(in: line.dropFirst(2))
            }
            block += line + "\n"
        }
        finish()
        return descriptions
    }

    /// The options a description's first line names: `--requires A,B, --optional C,D,
    /// --service` names three; what follows two spaces is the description.
    private static func optionNames(in line: Substring) -> [String] {
        var head = ""
        var previous: Character = "x"
        for character in line {
            if character == " " && previous == " " { break }
            head.append(character)
            previous = character
        }
        return head.split(separator: ",").compactMap { part in
            part.trimmingSpaces.split(separator: " ").first.map(String.init).flatMap { $0.hasPrefix("-") ? $0 : nil }
        }
    }

    static func help(defaultDirectory: String?) -> String {
        """
        plugin-host: compose an application out of drop-in plugins.

        \(CommandTable.usage)
        Reads the manifest of every *.so file in the plugin directories without running any
        plugin code, orders the plugins so that each comes after the plugins it requires,
        reports every problem at once, then loads them in that order and bootstraps each
        component, runs the services until it is asked to stop, then drains, stops the
        services and shuts down.

        Commands (none of list, inspect, check, graph loads a plugin):
        \(CommandTable.listing(of: .files))
        Commands that ask a running host, through its control socket (--control PATH, or the
        default path of the host of the plugin directories; see docs/operations.md):
        \(CommandTable.listing(of: .runningHost))  list, inspect NAME, graph with --running
                         the builds the host runs, not the files on disk

        Each command has its own help: plugin-host COMMAND --help, or plugin-host help COMMAND.

        Reading the record of what hosts of these directories proved (in --state DIR, else
        where a host keeps it; a host need not run):
        \(CommandTable.listing(of: .record))
        Options:
          --dir DIR      a plugin directory; repeat it for several. PLUGIN_HOST_PATH (colon-
                         separated) adds more after them. Without --dir: PLUGIN_HOST_PATH, then
                         \(defaultDirectory ?? "(no install tree found; give --dir)").
                         The first directory holding a plugin name wins; others are shadowed
          --timeline FILE.svg
                         write an SVG timeline of the run (load and bootstrap of each plugin,
                         the critical chain outlined)
          --config FILE  a JSON file of settings per plugin: {"plugins": {"NAME": {...}}}
          --json         print one JSON document on stdout: a run's report, or what a
                         command shows or answers; anything plugins print goes to stderr
          --keep-going   when a plugin fails, still run every plugin that does not
                         require it (directly or transitively); exit 1 all the same
          --jobs N       how many components may bootstrap at once, when their
                         dependencies allow (default: the number of processors, here
                         \(RunOptions.defaultJobs); 1 bootstraps one at a time)
          --timeout SECONDS
                         how long one plugin may take to load, and to bootstrap, before
                         the host names it and exits 124 (default: 30; 0: no limit);
                         also bounds each readiness, health, reload and change handler
          --shutdown-timeout SECONDS
                         how long each drain and shutdown hook, and the services
                         together, may take to stop before they are named and skipped
                         (default: 10; 0: no limit)
          --watch        re-scan the plugin directories whenever a file in them changes:
                         new plugins and builds come with a new worker generation, tried
                         beside the serving one; plugins whose file is gone stop; keep
                         running without services, for plugins to come
          --health-interval SECONDS
                         ask the components that report health every SECONDS; say on
                         stderr when one turns degraded or unhealthy (default: half of
                         systemd's WatchdogSec= if set, else never; 0: never)
          --restart on-failure|no
                         while the host serves (a service runs, or --watch), a worker that
                         crashes, exits or hangs is replaced by a new one without the plugin
                         to blame and those that require it (on-failure, the default); no:
                         the host ends instead. Changed plugin files are taken up by a new
                         worker loaded beside the running one (an upgrade) either way
          --restart-limit N/SECONDS
                         at most N restarts within SECONDS (default: 5/60) of those
                         leaving a build out does not heal; one more such failure ends
                         the host with its status (a new build that fails never does)
          --restart-delay SECONDS
                         a restart healed by leaving a new culprit out is at once; of the
                         others, the first is at once, the second in a row waits SECONDS
                         (default: 0.1), each one more twice as long as the one before
          --restart-max-delay SECONDS
                         the longest wait between restarts (default: 10); a worker that
                         served this long counts as steady: the next restart is at once
          --trial SECONDS
                         how long the builds an upgrade brings in are on trial (default:
                         30; 0 for none): a failure blamed on one brings back the build it
                         replaced, held open until the trial ends
          --state DIR    where the record of what the host proved is kept (the builds left
                         out, and why), so that the next start leaves them out too
                         (default: $STATE_DIRECTORY, else $XDG_STATE_HOME/plugin-host, else
                         ~/.local/state/plugin-host)
          --listen NAME=ADDRESS
                         listen on a socket that plugins obtain by NAME, held across
                         restarts and upgrades: unix:PATH, /PATH, @NAME, HOST:PORT,
                         [IPV6]:PORT or :PORT; repeatable. Sockets systemd passes
                         (LISTEN_FDS, FileDescriptorName=) are held the same way
          --control PATH the control socket (default: RUNDIR/KEY.sock, RUNDIR the first of
                         $RUNTIME_DIRECTORY, $XDG_RUNTIME_DIR/plugin-host, /run/plugin-host
                         for root, /tmp/plugin-host-UID; KEY from the plugin directories)
          --metrics-listen ADDRESS
                         serve the metrics as GET /metrics over HTTP (HOST:PORT, :PORT,
                         /PATH), from the supervisor, for a Prometheus scrape
          --allow-any-owner
                         load plugins (and a directory) owned by other users too; for
                         development trees only. Files writable by group or others are
                         refused all the same
          --running      on list, inspect NAME and graph: what a running host serves (asked
                         through its control socket), not the files on disk
          --follow       on status: the status, then a line per change until interrupted
          --metrics      on status: the figures in the Prometheus text format
          --to VERSION   on rollback PLUGIN: the permanent build of that version to go back
                         to (history PLUGIN lists the builds kept)
          --requires A,B, --optional C,D, --service, --into DIR
                         on new: the plugins it requires and uses when installed, whether it
                         runs a service, where to write it (plugin-host new --help)
          --interface FILE.swiftinterface
                         on install and check-api: the plugin's module interface (default:
                         the one beside the library)
          --output FILE.swift
                         on embed-manifest: the Swift file to write; on check-api: a file
                         written when the check passes (SwiftPM's build expects one)
          --plugin NAME  on embed-manifest: the manifest must be NAME's
          --help, -h     print this help and exit (COMMAND --help: that command's)
          --version      print the version and the plugin ABI version, and exit

        Signals: SIGINT or SIGTERM stops the host: components drain, in reverse bootstrap
        order, then services are cancelled, then each component's shutdown hook runs in
        reverse bootstrap order; a second one, a second or more after the first, ends the host at
        once (the same signal again within a second is the same request). SIGHUP re-reads
        --config and reloads every component, or none if one refuses, then re-scans the
        plugin directories as --watch does; a build left out stays out (restart NAME tries it).

        systemd: under Type=notify (NOTIFY_SOCKET set) the host says READY=1 once every
        service is ready, RELOADING=1 and READY=1 around a reload, STOPPING=1, a STATUS=
        line on every change, and pings WatchdogSec= only while no component is unhealthy.

        Exit status:
          0   every plugin bootstrapped, ran and shut down (also when stopped by a signal)
          1   a plugin directory, configuration, manifest, dependency graph, load,
              bootstrap, readiness, service, drain or shutdown problem; each is on
              stderr (and, up to the end of the bootstrap, in "errors" with --json).
              A refused reload or a file not added while running is reported and
              leaves the exit status alone
          64  the command line is wrong
          70  plugin code ended the process: a crash, exit() or _exit(), a signal,
              in any phase; stderr names it: plugin NAME (FILE) crashed during PHASE: SIGNAL.
              While the host serves, only past --restart-limit, when nothing is left
              to serve, or with --restart=no
          124 plugin code did not finish loading or bootstrapping within --timeout,
              or the host was stuck behind plugin code past a deadline; stderr names it
          130, 143
              a second SIGINT (130) or SIGTERM (143) ended the host during shutdown

        """
    }
}
