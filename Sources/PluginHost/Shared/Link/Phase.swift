/// What a plugin's code is doing in a step, as the supervision page records it.
enum Phase: Int32, Sendable, CustomStringConvertible, PageCode {
    case unknown = 0
    /// `dlopen`, its initializers and the entry point.
    case load = 1
    case bootstrap = 2
    /// A service's `run()`.
    case run = 3
    case reload = 4
    case shutdown = 5
    /// A cancelled service, until its `run()` returns.
    case stop = 6
    /// `exit` and the `atexit` handlers.
    case exit = 7
    /// Waiting for a component to say it is ready.
    case ready = 8
    case health = 9
    case drain = 10
    /// Telling a component that a plugin it uses optionally came or goes.
    case change = 11

    static let fallback = Phase.unknown

    var description: String {
        switch self {
        case .unknown: "an unknown phase"
        case .load: "load"
        case .bootstrap: "bootstrap"
        case .run: "the run phase"
        case .reload: "reload"
        case .shutdown: "shutdown"
        case .stop: "stop"
        case .exit: "exit"
        case .ready: "readiness"
        case .health: "health check"
        case .drain: "drain"
        case .change: "a plugin change"
        }
    }
}

extension Phase {
    /// What a plugin in this phase is doing, after "plugin NAME was": `bootstrapping`.
    var activity: String {
        switch self {
        case .unknown: "running"
        case .load: "loading"
        case .bootstrap: "bootstrapping"
        case .run: "running its service"
        case .reload: "reloading"
        case .shutdown: "shutting down"
        case .stop: "stopping its service"
        case .exit: "in an exit handler"
        case .ready: "getting ready"
        case .health: "answering a health check"
        case .drain: "draining"
        case .change: "hearing of a plugin change"
        }
    }
}

/// What the worker as a whole is doing, as the supervision page records it.
enum WorkerPhase: Int32, Sendable, CustomStringConvertible, PageCode {
    case startUp = 0
    case survey = 1
    case loading = 2
    case bootstrapping = 3
    case report = 4
    case running = 5
    case stopping = 6
    case shuttingDown = 7
    case exiting = 8
    /// An upgrade's new worker loaded its plugins, and waits for the supervisor's word to
    /// bootstrap them (beside the generation before, or once it has stopped).
    case prepared = 9
    /// An upgrade's new worker bootstrapped its plugins, and waits for the supervisor's word
    /// to serve.
    case bootstrapped = 10

    static let fallback = WorkerPhase.startUp

    /// Whether the worker was past its run phase: its services ran, and it was stopping them,
    /// shutting down or exiting.
    var isAfterItsServicesRan: Bool {
        switch self {
        case .stopping, .shuttingDown, .exiting: true
        case .startUp, .survey, .loading, .bootstrapping, .report, .running, .prepared, .bootstrapped: false
        }
    }

    var description: String {
        switch self {
        case .startUp: "start-up"
        case .survey: "the survey of plugin files"
        case .loading: "load"
        case .bootstrapping: "bootstrap"
        case .report: "the report"
        case .running: "the run phase"
        case .stopping: "the stop of the services"
        case .shuttingDown: "shutdown"
        case .exiting: "exit"
        case .prepared: "the wait for the word to bootstrap"
        case .bootstrapped: "the wait for the word to serve"
        }
    }
}

/// What happens when a step overruns its deadline.
enum OverrunPolicy: Int32, Sendable, PageCode {
    /// How long the worker may take, beyond a deadline it handles itself, before the
    /// supervisor decides it is stuck.
    static let grace: Duration = .seconds(1)

    /// The supervisor ends the worker at the deadline: loads and bootstraps, whose
    /// overrun leaves the process in a state nobody can trust.
    case endHost = 1
    /// The worker names the step and goes on without it; the supervisor ends the worker
    /// only when it does not go on within a grace period (it is stuck itself).
    case skip = 2

    static let fallback = OverrunPolicy.endHost
}

extension OverrunPolicy {
    /// When the supervisor acts on a step with this policy and `deadline`.
    func limit(forDeadline deadline: MonotonicInstant) -> MonotonicInstant {
        self == .endHost ? deadline : deadline + Self.grace
    }
}
