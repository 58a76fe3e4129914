/// Which running host a client command asks, and how it prints the answer.
struct ControlOptions: Equatable {
    /// `--control PATH`, else the default path of the host of the plugin directories.
    var target: ControlTarget
    var json = false

    init(target: ControlTarget, json: Bool = false) {
        self.target = target
        self.json = json
    }
}

/// Where a client finds a running host.
enum ControlTarget: Equatable {
    /// The path `--control` gave.
    case path(String)
    /// The host of these plugin directories, at its default path (see ``ControlPath``).
    case directories([String])

    /// The control socket's path.
    func path(environment: (String) -> String?, user: UInt32) -> String {
        switch self {
        case .path(let path): path
        case .directories(let directories): ControlPath.forClient(of: directories, environment: environment, user: user)
        }
    }
}

/// What `--running` shows of a running host.
enum RunningView: Equatable {
    case list
    /// One plugin, by name.
    case inspect(String)
    case graph
}
