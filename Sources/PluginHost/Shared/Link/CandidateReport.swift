import PluginABI

/// What an upgrade's new worker (a candidate) tells its supervisor when it has loaded the
/// plugin files, and again when it has bootstrapped them: facts only. The supervisor decides
/// from them whether it bootstraps beside the serving generation or after it, whether it may
/// serve, and whom to blame when it may not (``CandidateVerdict``); the worker waits for
/// that word.
struct CandidateReport: Equatable, Sendable {
    /// How far the candidate got.
    enum Stage: String, Equatable, Sendable {
        /// Loaded: nothing bootstrapped yet.
        case loaded
        /// Bootstrapped: nothing serves yet.
        case bootstrapped
    }

    /// A plugin of the candidate, with the number it was published under (`nil` for one the
    /// candidate never published: it was not in the order it loads).
    struct Plugin: Equatable, Sendable {
        var name: String
        var number: PluginNumber?
        /// How its manifest says a new generation takes it over.
        var upgrade: UpgradeOrder = .after
    }

    var stage: Stage
    /// The plugins that loaded (``Stage/loaded``), or that bootstrapped and run
    /// (``Stage/bootstrapped``).
    var running: [Plugin]
    /// The plugins it found a file of, and that did not load or did not bootstrap.
    var failed: [Plugin]
    /// The plugin files it found and could not use (not a plugin, unreadable).
    var unusableFiles: [String]

    var json: JSONOutput {
        func plugins(_ list: [Plugin]) -> JSONOutput {
            .array(list.map { plugin in
                var members: [(String, JSONOutput)] = [("name", .string(plugin.name)), ("upgrade", .string(plugin.upgrade.rawValue))]
                if let number = plugin.number { members.append(("number", .number(Double(number.rawValue)))) }
                return .object(members)
            })
        }
        return .object([
            ("stage", .string(stage.rawValue)), ("running", plugins(running)), ("failed", plugins(failed)),
            ("unusableFiles", .array(unusableFiles.map(JSONOutput.string))),
        ])
    }

    init(stage: Stage, running: [Plugin], failed: [Plugin], unusableFiles: [String]) {
        self.stage = stage
        self.running = running
        self.failed = failed
        self.unusableFiles = unusableFiles
    }

    init?(json: Setting) {
        func plugins(_ value: Setting?) -> [Plugin]? {
            guard case .array(let items)? = value else { return nil }
            return items.compactMap { item in
                guard case .object(let members) = item, let name = members["name"]?.text,
                    let upgrade = members["upgrade"]?.text.flatMap(UpgradeOrder.init(rawValue:))
                else { return nil }
                var number: PluginNumber?
                if case .number(let value)? = members["number"], let raw = Int32(exactly: value) { number = PluginNumber(rawValue: raw) }
                return Plugin(name: name, number: number, upgrade: upgrade)
            }
        }
        guard case .object(let members) = json, let stage = members["stage"]?.text.flatMap(Stage.init(rawValue:)),
            let running = plugins(members["running"]), let failed = plugins(members["failed"]),
            case .array(let files)? = members["unusableFiles"]
        else { return nil }
        self.init(stage: stage, running: running, failed: failed, unusableFiles: files.compactMap(\.text))
    }
}

/// The supervisor's word to a candidate that reported (``CandidateReport``) and waits.
enum CandidateVerdict: Int32, Equatable, Sendable, PageCode {
    /// Bootstrap now, beside the serving generation: nothing is handed over.
    case bootstrapBeside = 1
    /// Bootstrap now: the generation before has stopped, and what it handed over was sent.
    case bootstrapAfter = 2
    /// The bootstrapped plugins may serve: go on.
    case serve = 3
    /// It cannot replace the generation before: bootstrap nothing more, serve nothing, end.
    case abandon = 4

    static let fallback = CandidateVerdict.abandon
}
