/// The host's state and a generation's role in an operator's words, as `status`, its JSON and
/// the metrics say them; the status document is read back by the same words.
extension HostState: SaidInWords {
    /// `serving`, `backing off`.
    var description: String {
        switch self {
        case .starting: "starting"
        case .serving: "serving"
        case .recovering: "recovering"
        case .backingOff: "backing off"
        case .upgrading: "upgrading"
        case .handingOver: "handing over"
        case .takingOver: "taking over"
        case .upgradingHost: "upgrading the host"
        case .stopping: "stopping"
        case .finished: "finished"
        }
    }
}

extension GenerationRole: SaidInWords {
    /// `serving`, `loading beside the serving one`, `draining`.
    var description: String {
        switch self {
        case .starting: "starting"
        case .recovering: "recovering"
        case .loadingBeside: "loading beside the serving one"
        case .waitingToTakeOver: "waiting to take over"
        case .takingOver: "taking over"
        case .serving: "serving"
        case .draining: "draining"
        case .stopping: "stopping"
        case .beingEnded: "being ended"
        case .ended: "ended"
        }
    }
}

extension GenerationPlan.Cause: SaidInWords {
    /// `upgrade`, `operator restart`.
    var description: String {
        switch self {
        case .start: "start"
        case .restart: "restart"
        case .upgrade: "upgrade"
        case .restore: "restore"
        case .operatorRestart: "operator restart"
        case .hostUpgrade: "host upgrade"
        }
    }
}

extension UpgradeRecord.Result: SaidInWords {
    /// `upgraded`, `rolled back`.
    var description: String {
        switch self {
        case .upgraded: "upgraded"
        case .failed: "failed"
        case .rolledBack: "rolled back"
        case .refused: "refused"
        }
    }
}

/// A value written, and read back, as its words (its description): the status document carries
/// the value, and its JSON says the words.
protocol SaidInWords: CaseIterable, Codable, CustomStringConvertible {}

extension SaidInWords {
    init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        let words = try container.decode(String.self)
        guard let value = Self.allCases.first(where: { $0.description == words }) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "\"\(words)\" is none of \(Self.allCases.map { "\"\($0)\"" }.joined(separator: ", "))")
        }
        self = value
    }

    func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
