/// What became of an operator's request, in the words its answer carries.
extension RestartOutcome {
    /// `generation 4 serves`, `generation 4 ended before it served: plugin Echo (...) crashed ...`.
    var message: String {
        switch self {
        case .serves(let generation): "generation \(generation) serves"
        case .couldNotStart(let generation, let reason): "generation \(generation) could not start: \(reason)"
        case .endedBeforeServing(let generation, let ending): "generation \(generation) ended before it served: \(ending.whatHappened)"
        case .permanent(let builds): builds.map(\.nameAndVersion).joined(separator: ", ") + " permanent"
        }
    }
}

extension WorkerEnding {
    /// Why a reload was not applied: `generation` ended first.
    func reloadReason(generation: Int) -> String {
        "generation \(generation) ended before it told the reload's outcome: \(whatHappened)"
    }

    /// The line of an end the host did not mean; `it was ended` for one it did.
    var whatHappened: String {
        account?.message ?? "it was ended"
    }
}
