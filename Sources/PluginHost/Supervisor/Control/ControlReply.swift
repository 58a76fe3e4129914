/// One answer on the control socket, as one line of JSON (docs/operations.md, "The control
/// socket"): written by the supervisor from the machine's ``ControlAnswer`` and read by the
/// client through this same type. Only the members an answer has are written:
/// `{"ok": true, "status": {...}}`, `{"ok": false, "error": "..."}`.
struct ControlReply: Codable, Equatable, Sendable {
    /// Whether the host did what was asked.
    var ok: Bool
    /// Why it did not, when no more particular member says so.
    var error: String?
    /// For a follower: what changed, in a few words (`following` first).
    var change: String?
    var status: StatusDocument?
    /// The figures, in the Prometheus text format.
    var metrics: String?
    var reload: Reload?
    var restart: Restart?
    var stopped: Stopped?

    struct Reload: Codable, Equatable, Sendable {
        var applied: Bool
        /// Why it was refused.
        var reasons: [String]
    }

    /// The outcome of `restart`, `accept`, `rollback` and `upgrade-host`: whether a generation
    /// (of the new host, for `upgrade-host`) serves after it.
    struct Restart: Codable, Equatable, Sendable {
        var serving: Bool
        var message: String
    }

    struct Stopped: Codable, Equatable, Sendable {
        /// The status the host ended with.
        var status: Int
    }
}

extension ControlReply {
    /// The answer the machine gave, with the status document when it carries one.
    init(_ answer: ControlAnswer, document: StatusDocument?) {
        switch answer {
        case .status: self.init(ok: true, status: document)
        case .change(let what, _): self.init(ok: true, change: what, status: document)
        case .metrics: self.init(ok: true, metrics: document?.metrics ?? "")
        case .reload(let applied, let reasons): self.init(ok: applied, reload: Reload(applied: applied, reasons: reasons))
        case .reloadEnded(let generation, let ending):
            self.init(ok: false, reload: Reload(applied: false, reasons: [ending.reloadReason(generation: generation)]))
        case .restart(let outcome): self.init(ok: outcome.ok, restart: Restart(serving: outcome.ok, message: outcome.message))
        case .stopped(let status): self.init(ok: true, stopped: Stopped(status: Int(status.rawValue)))
        case .refused(let refusal): self.init(ok: false, error: refusal.description)
        case .hostUpgrade(let outcome): self.init(ok: outcome.succeeded, restart: Restart(serving: outcome.succeeded, message: outcome.description))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(ok, forKey: .ok)
        if let error { try container.encode(error, forKey: .error) }
        if let change { try container.encode(change, forKey: .change) }
        if let status { try container.encode(status, forKey: .status) }
        if let metrics { try container.encode(metrics, forKey: .metrics) }
        if let reload { try container.encode(reload, forKey: .reload) }
        if let restart { try container.encode(restart, forKey: .restart) }
        if let stopped { try container.encode(stopped, forKey: .stopped) }
    }

    /// The answer as one line's JSON.
    var json: JSONOutput { JSONCoding.document(self) }
}
