/// The name of a plugin and the names of the plugins it depends on.
///
/// The host builds one from each plugin's manifest. It decides what a component may see:
/// while a component bootstraps, ``Bootstrapped/component(_:)`` finds only components of
/// the plugins named in `requires` and `optional` (those that are present), and of the
/// plugins those depend on, and so on.
public struct PluginIdentity: Sendable, Hashable, CustomStringConvertible {
    /// The plugin's unique name, such as `Persistence`.
    public var name: String
    /// The names of the plugins this one requires, in the order its manifest lists them.
    public var requires: [String]
    /// The names of the plugins this one uses when they are present.
    public var optional: [String]

    /// Creates an identity.
    ///
    /// - Parameters:
    ///   - name: The plugin's unique name.
    ///   - requires: The names of the plugins it requires.
    ///   - optional: The names of the plugins it uses when present.
    public init(name: String, requires: [String] = [], optional: [String] = []) {
        self.name = name
        self.requires = requires
        self.optional = optional
    }

    /// The plugins whose components this one may see: `requires`, then `optional`.
    public var dependencies: [String] { requires + optional }

    public var description: String { name }
}
