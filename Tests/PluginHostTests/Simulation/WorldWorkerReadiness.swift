#if !STANDALONE_SIMULATOR
@testable import PluginHost
#endif

/// A simulated worker's word that it is ready, as the world knows it: not said yet, said (and
/// perhaps still on its way to the supervisor), or heard by the supervisor.
enum WorldWorkerReadiness: Equatable {
    case notReady
    /// Said at `at`; the word reaches the supervisor at `arrives`, or was sent at once, or is
    /// never sent because the worker ended first (`nil`).
    case said(at: MonotonicInstant, arrives: MonotonicInstant?)
    /// The supervisor heard the word the worker said at `saidAt`.
    case heard(saidAt: MonotonicInstant)

    /// When the worker said it is ready, once it did.
    var saidAt: MonotonicInstant? {
        switch self {
        case .notReady: nil
        case .said(let at, _): at
        case .heard(let at): at
        }
    }

    /// When the word still on its way reaches the supervisor.
    var arrives: MonotonicInstant? {
        if case .said(_, let arrives) = self { arrives } else { nil }
    }

    /// Whether the supervisor heard it.
    var isHeard: Bool {
        if case .heard = self { true } else { false }
    }

    /// The word on its way is sent now, or never: it is no longer due.
    func noLongerDue() -> WorldWorkerReadiness {
        if case .said(let at, _) = self { .said(at: at, arrives: nil) } else { self }
    }
}

/// What hangs in a simulated worker: its next plugin call, or the step of one plugin (an index
/// into its published plugins), which runs past its limit.
enum WorldWorkerHang: Equatable {
    case nextPluginCall
    case inPlugin(Int)

    var plugin: Int? {
        if case .inPlugin(let plugin) = self { plugin } else { nil }
    }
}
