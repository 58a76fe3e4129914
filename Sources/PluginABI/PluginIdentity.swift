/// The name of a plugin and the names of the plugins it requires.
///
/// The host builds one from each plugin's manifest. It decides what a component may see:
/// while a component bootstraps, ``Bootstrapped/component(_:)`` finds only components of
/// the plugins named in `requires`, and of the plugins those require, and so on.
public struct PluginIdentity: Sendable, Hashable, CustomStringConvertible {
    /// The plugin's unique name, such as `Persistence`.
    public var name: String
    /// The names of the plugins this one requires, in the order its manifest lists them.
    public var requires: [String]

    /// Creates an identity.
    ///
    /// - Parameters:
    ///   - name: The plugin's unique name.
    ///   - requires: The names of the plugins it requires.
    public init(name: String, requires: [String] = []) {
        self.name = name
        self.requires = requires
    }

    public var description: String { name }
}
