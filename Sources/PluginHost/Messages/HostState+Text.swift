/// The host's state and a generation's role in an operator's words, as `status`, its JSON and
/// the metrics say them; the status document is read back by the same words.
extension HostState: Codable, CustomStringConvertible {
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
        case .stopping: "stopping"
        case .finished: "finished"
        }
    }

    init(from decoder: Decoder) throws {
        self = try Words.decode(Self.self, from: decoder)
    }

    func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

extension GenerationRole: Codable, CustomStringConvertible {
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

    init(from decoder: Decoder) throws {
        self = try Words.decode(Self.self, from: decoder)
    }

    func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// Reads a value by its words: the case whose description they are.
private enum Words {
    static func decode<Value: CaseIterable & CustomStringConvertible>(_ type: Value.Type, from decoder: Decoder) throws -> Value {
        let container = try decoder.singleValueContainer()
        let words = try container.decode(String.self)
        guard let value = Value.allCases.first(where: { $0.description == words }) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "\"\(words)\" is none of \(Value.allCases.map { "\"\($0)\"" }.joined(separator: ", "))")
        }
        return value
    }
}
