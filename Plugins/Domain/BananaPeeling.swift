import Persistence

/// What Domain offers the plugins that require it: the domain's one rule, peeling bananas.
///
/// Its component conforms to it; another plugin finds it with
/// `bootstrapped.component(BananaPeeling.self)`, and its tests stand in a peeler of their own.
public protocol BananaPeeling: Sendable {
    /// Peels the unpeeled banana with the smallest id, harvesting a new bunch first when
    /// every banana is peeled, and saves the store.
    ///
    /// - Throws: When the store cannot be saved; nothing changes then.
    func peelNext() throws -> Peeling

    /// Where the bananas are kept.
    var storePath: String { get }
}

/// What one call to ``BananaPeeling/peelNext()`` did.
public struct Peeling: Sendable, Equatable {
    /// The banana peeled.
    public let banana: Banana
    /// Whether a new bunch had to be harvested first.
    public let harvested: Bool
    /// How many bananas are peeled now, and how many are left.
    public let peeled: Int
    public let unpeeled: Int

    public init(banana: Banana, harvested: Bool, peeled: Int, unpeeled: Int) {
        self.banana = banana
        self.harvested = harvested
        self.peeled = peeled
        self.unpeeled = unpeeled
    }
}
