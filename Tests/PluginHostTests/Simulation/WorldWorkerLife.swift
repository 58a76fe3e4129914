#if !STANDALONE_SIMULATOR
@testable import PluginHost
#endif

/// A simulated worker's life, as the world knows it: where its process is, from its fork to
/// the supervisor hearing of its end. What the supervisor told it and heard from it are the
/// worker's other fields; this is what it does.
indirect enum WorldWorkerLife: Equatable {
    case loading
    /// An upgrade's candidate that loaded: it waits for the supervisor's word to bootstrap.
    case prepared
    case bootstrapping
    /// An upgrade's candidate that bootstrapped: it waits for the word to serve.
    case bootstrapped
    /// It said it is ready, and serves.
    case serving
    /// It stops: as the supervisor asked, or by itself, with nothing to serve on a host that
    /// does not watch (what it is asked then, it no longer does).
    case stopping(byItself: Bool)
    /// Its process ended; the supervisor hears of it at `heardAt`.
    case ended(WorldWorkerEnd, heardAt: MonotonicInstant)
    /// Out of the world: the supervisor heard of its end (`heard`), or the host exited first,
    /// with the worker alive (no end) or its end on its way.
    case gone(WorldWorkerEnd?, heard: Bool)

    /// Whether it waits for the supervisor's word, and after which step.
    var awaitedWord: CandidateReport.Stage? {
        switch self {
        case .prepared: .loaded
        case .bootstrapped: .bootstrapped
        case .loading, .bootstrapping, .serving, .stopping, .ended, .gone: nil
        }
    }

    /// Whether it is in a step that calls plugins (loading or bootstrapping them).
    var isInPluginStep: Bool {
        switch self {
        case .loading, .bootstrapping: true
        case .prepared, .bootstrapped, .serving, .stopping, .ended, .gone: false
        }
    }

    /// Whether its process runs: it neither ended nor left the world.
    var runs: Bool {
        switch self {
        case .loading, .prepared, .bootstrapping, .bootstrapped, .serving, .stopping: true
        case .ended, .gone: false
        }
    }

    /// Whether its process ended (its end heard or not). Read without copying the end.
    var hasEnded: Bool {
        switch self {
        case .ended, .gone(.some, _): true
        case .loading, .prepared, .bootstrapping, .bootstrapped, .serving, .stopping, .gone(.none, _): false
        }
    }

    var isStopping: Bool {
        if case .stopping = self { true } else { false }
    }

    /// The step it is in as the supervisor can know it: once its process ended, the step it
    /// died in, until the supervisor hears of the end.
    var lastKnownStep: WorldWorkerLife {
        if case .ended(let end, _) = self { end.step } else { self }
    }
}

/// How a simulated worker's process ended: what the supervisor is told (its termination and
/// the evidence the driver gathers), and the truth behind it.
struct WorldWorkerEnd: Equatable {
    var termination: Termination
    var evidence: EndingEvidence
    /// How it really ended.
    var death: WorldTruth.Death
    /// What ran in it then.
    var running: [RunningCode]
    /// Whether a file it loaded was written in place under it before it died by itself.
    var rewrittenUnderIt: Bool
    /// The step it died in.
    var step: WorldWorkerLife
}
