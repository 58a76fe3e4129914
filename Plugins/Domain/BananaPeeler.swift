import Persistence

/// The domain's one rule, on any banana store: peel the oldest unpeeled banana, harvesting
/// a new bunch when every banana in the store is peeled.
public struct BananaPeeler: BananaPeeling {
    /// How many bananas a new bunch has.
    public static let bunchSize = 3

    private let store: any BananaStoring

    public init(store: any BananaStoring) {
        self.store = store
    }

    public func peelNext() throws -> Peeling {
        try store.update { bananas in
            var harvested = false
            if !bananas.contains(where: { !$0.isPeeled }) {
                let next = (bananas.map(\.id).max() ?? 0) + 1
                bananas += (next..<next + Self.bunchSize).map { Banana(id: $0) }
                harvested = true
            }
            let index = bananas.firstIndex { !$0.isPeeled }!
            bananas[index].isPeeled = true
            let peeled = bananas.filter(\.isPeeled).count
            return Peeling(banana: bananas[index], harvested: harvested, peeled: peeled, unpeeled: bananas.count - peeled)
        }
    }

    public var storePath: String { store.path }
}
