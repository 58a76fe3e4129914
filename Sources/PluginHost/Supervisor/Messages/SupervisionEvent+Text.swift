extension SupervisionEvent {
    /// What kind of event it is, in a few words: `worker ended`, `SIGTERM`.
    var kind: String {
        switch self {
        case .signal(let signal, _): signal.asksToStop ? "SIGINT/SIGTERM" : signal.name
        case .directoryChanged: "directory changed"
        case .tick: "deadline"
        case .started: "worker started"
        case .couldNotStart: "fork refused"
        case .holding: "builds held"
        case .ready: "ready"
        case .candidate: "candidate report"
        case .upgradeRequested: "files changed"
        case .notification: "notification"
        case .health: "health"
        case .overran: "step overran"
        case .suspended: "stopped by a signal"
        case .resumed: "resumed"
        case .handedOver: "handed over"
        case .ended: "worker ended"
        case .news: "news"
        case .control(_, let request): request == .stop ? "plugin-host stop" : "control request"
        case .restartChecked: "files checked"
        case .clientLeft: "client left"
        case .recordKept: "record kept"
        case .hostBinaryChecked: "host binary checked"
        case .newHostStarted: "new host started"
        case .newHostFailed: "new host ended"
        case .hostSaid: "host said"
        case .hostBeforeEnded: "host before ended"
        }
    }
}
