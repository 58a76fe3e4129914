/// The name of a plugin and the names of the plugins it depends on, from its manifest.
///
/// It decides what a component may see: while a component bootstraps,
/// ``Bootstrapped/component(_:)`` finds only components of the plugins named in `requires`
/// and `optional` (those that are present), and of the plugins those depend on, and so on.
package struct PluginIdentity: Sendable, Hashable, CustomStringConvertible {
    /// The plugin's unique name, such as `Persistence`.
    package var name: String
    /// The names of the plugins this one requires, in the order its manifest lists them.
    package var requires: [String]
    /// The names of the plugins this one uses when they are present.
    package var optional: [String]

    package init(name: String, requires: [String] = [], optional: [String] = []) {
        self.name = name
        self.requires = requires
        self.optional = optional
    }

    /// The plugins whose components this one may see: `requires`, then `optional`.
    package var dependencies: [String] { requires + optional }

    package var description: String { name }
}
