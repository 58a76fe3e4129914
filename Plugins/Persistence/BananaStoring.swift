/// What Persistence offers the plugins that require it: a durable store of bananas.
///
/// Its component conforms to it; another plugin finds the store with
/// `bootstrapped.component(BananaStoring.self)`, and its tests stand in a store of their own.
public protocol BananaStoring: Sendable {
    /// Where the bananas are kept.
    var path: String { get }

    /// Changes the bananas and saves them before returning.
    ///
    /// - Parameter change: Modifies the bananas; the store is unchanged when it throws.
    /// - Returns: What `change` returned.
    /// - Throws: What `change` throws, or an error saying the store could not be saved; the
    ///   store then still holds the previous bananas.
    func update<Result>(_ change: (inout [Banana]) throws -> Result) throws -> Result
}
