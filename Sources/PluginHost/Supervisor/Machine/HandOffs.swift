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

    /// What the machine tells the hand-offs.
    enum Fact: Equatable, Sendable {
        /// A generation that stopped handed over these items, which the driver now holds.
        case handedOver([String], by: Int)
        /// A generation ended; `replaced`: another is to replace it (it spoke for the host).
        case ended(Int, replaced: Bool)
        /// A generation is about to bootstrap.
        case bootstraps(Int)
    }

    /// Moves the hand-offs on by `fact`.
    ///
    /// - Returns: What to tell the operator, and what the driver must hand over or close.
    mutating func handle(_ fact: Fact) -> [SupervisionAction] {
        switch fact {
        case .handedOver(let items, let number):
            if !items.isEmpty { held[number] = items }
            return []
        case .ended(let number, let replaced):
            // Its hand-off is the one the next to bootstrap receives, and an older one nobody
            // took is closed; a generation not replaced leaves nothing, unless it is the heir.
            if replaced {
                let earlier = heir
                heir = number
                return earlier.map { $0 == number ? [] : discard($0) } ?? []
            }
            return heir == number ? [] : discard(number)
        case .bootstraps(let number):
            // It receives the heir's hand-off, if any: once.
            let from = heir
            heir = nil
            var actions: [SupervisionAction] = []
            if let from, let items = held.removeValue(forKey: from), !items.isEmpty {
                actions.append(.say(.handingOver(items: items, from: from, to: number)))
            }
            actions.append(.handOver(from: from, to: number))
            return actions
        }
    }

    /// Closes what generation `number` handed over, if the driver holds any.
    private mutating func discard(_ number: Int) -> [SupervisionAction] {
        held.removeValue(forKey: number) == nil ? [] : [.discardHandOff(from: number)]
    }
}
