/// The options of a run.
struct RunOptions: Equatable {
    var search: SearchOptions
    /// The configuration file, if any.
    var configurationFile: String?
    /// The configuration file's contents, read once when the host started, when it cannot
    /// be read again (a pipe: `--config /dev/stdin`, `--config <(...)`).
    var configurationSnapshot: [UInt8]?
    /// Print the report as JSON instead of text.
    var json = false
    /// Run every plugin that does not depend on a failed one, instead of stopping.
    var keepGoing = false
    /// How long one plugin may take to load or to bootstrap; `nil` for no limit.
    var timeout: Duration? = RunOptions.defaultTimeout
    /// How many threads run plugin code.
    var jobs = RunOptions.defaultJobs
    /// How long one shutdown hook may take; `nil` for no limit.
    var shutdownTimeout: Duration? = RunOptions.defaultShutdownTimeout
    /// Where to write an SVG timeline of the run.
    var timeline: String?
    /// Rescan the plugin directories whenever a `*.so` file in them changes.
    var watch = false
    /// How often to ask the components for their health while the services run: `nil` for
    /// the default (half of systemd's watchdog interval when it has one, else never),
    /// `.zero` for never.
    var healthInterval: Duration?
    /// When to start a new worker generation after one fails while serving, and how often.
    var restart = RestartPolicy()
    /// How long the builds an upgrade brings in are on trial (`--trial`); `nil` for none.
    var trial: Duration? = .seconds(30)
    /// Where the record of what the host proved is kept (`--state`); `nil` for the default.
    var state: String?
    /// The sockets to listen on for plugins, besides those systemd passes.
    var listen: [ListenAddress] = []
    /// Where to make the control socket; `nil` for its default path (see ``ControlPath``).
    var control: String?
    /// Where to serve the metrics as `GET /metrics` over HTTP, if anywhere.
    var metricsListen: String?

    /// The default of `--timeout`.
    static let defaultTimeout: Duration? = .seconds(30)
    /// The default of `--shutdown-timeout`.
    static let defaultShutdownTimeout: Duration? = .seconds(10)
    /// The default of `--jobs`: the number of processors online.
    static var defaultJobs: Int { processorCount }
}

/// A socket to listen on: `--listen NAME=ADDRESS`.
struct ListenAddress: Equatable {
    let name: String
    let address: String
}
