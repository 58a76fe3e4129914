/// One banana in the store.
public struct Banana: Codable, Sendable, Equatable {
    /// A number unique within the store, counting from 1.
    public let id: Int
    /// Whether the banana has been peeled.
    public var isPeeled: Bool

    public init(id: Int, isPeeled: Bool = false) {
        self.id = id
        self.isPeeled = isPeeled
    }
}
