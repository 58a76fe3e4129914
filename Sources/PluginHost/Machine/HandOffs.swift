/// What generations hand over to the generations that replace them (docs/operations.md,
/// "Handing over state"): the part of the machine that keeps what each generation handed over
/// while the driver holds it, decides which generation inherits it, and closes what nobody
/// will take. A generation's hand-off goes once, to the next generation to bootstrap after
/// the generation it came from ended; a generation that ends without being replaced leaves
/// nothing to inherit.
struct HandOffs: Equatable, Sendable {
    /// What each generation handed over that the driver still holds, by generation.
    private var held: [Int: [String]] = [:]
    /// The generation whose hand-off the next generation to bootstrap receives.
    private var heir: Int?

    /// Generation `number` handed over `items`, which the driver now holds.
    mutating func received(_ items: [String], from number: Int) {
        if !items.isEmpty { held[number] = items }
    }

    /// Generation `number` ended. When a generation is to replace it (it spoke for the host),
    /// its hand-off is the one the next to bootstrap receives, and an older one nobody took
    /// is closed; otherwise what it handed over is closed, unless it is already the heir.
    ///
    /// - Returns: What the driver must close.
    mutating func ended(_ number: Int, isReplaced: Bool) -> [SupervisionAction] {
        if isReplaced {
            let earlier = heir
            heir = number
            return earlier.map { $0 == number ? [] : discard($0) } ?? []
        }
        return heir == number ? [] : discard(number)
    }

    /// Generation `number` is about to bootstrap: it receives the heir's hand-off, if any.
    ///
    /// - Returns: What to tell the operator, and what the driver must do.
    mutating func give(to number: Int) -> [SupervisionAction] {
        let from = heir
        heir = nil
        var actions: [SupervisionAction] = []
        if let from, let items = held.removeValue(forKey: from), !items.isEmpty {
            actions.append(.say(.handingOver(items: items, from: from, to: number)))
        }
        actions.append(.handOver(from: from, to: number))
        return actions
    }

    /// Closes what generation `number` handed over, if the driver holds any.
    private mutating func discard(_ number: Int) -> [SupervisionAction] {
        held.removeValue(forKey: number) == nil ? [] : [.discardHandOff(from: number)]
    }
}
