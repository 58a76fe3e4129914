import Persistence

/// The domain's one rule: peel the oldest unpeeled banana, harvesting a new bunch when
/// every banana in the store is peeled.
public struct BananaPeeler: Sendable {
    /// How many bananas a new bunch has.
    public static let bunchSize = 3

    private let store: BananaStore

    public init(store: BananaStore) {
        self.store = store
    }

    /// What one call to ``peelNext()`` did.
    public struct Peeling: Sendable, Equatable {
        /// The banana peeled.
        public let banana: Banana
        /// Whether a new bunch had to be harvested first.
        public let harvested: Bool
        /// How many bananas are peeled now, and how many are left.
        public let peeled: Int
        public let unpeeled: Int
    }

    /// Peels the unpeeled banana with the smallest id and saves the store.
    ///
    /// - Throws: ``BananaStoreError`` when the store cannot be saved; nothing changes then.
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

    /// Where the bananas are kept.
    public var storePath: String { store.path }
}
