/// A plugin as a worker generation published it to its supervisor: its name, the build of
/// the file it came from, what it requires, and what became of it. The supervisor decides
/// with these values; it never reads a worker's page while it decides.
struct PublishedPlugin: Equatable, Sendable {
    var name: String
    /// The file, as reports name it.
    var file: String
    var version: String
    /// The build: which version of which file; `nil` when it could not be examined.
    var identity: FileIdentity?
    /// The names of the plugins it requires.
    var requires: [String] = []
    var state: SupervisionPage.PluginState = .published
    /// Whether its component runs a service.
    var providesService = false

    /// `Domain (plugins/libDomain.so)`: the plugin as the operator reads it.
    var label: String { "\(name) (\(file))" }

    /// `Domain 1.0.0`.
    var nameAndVersion: String { "\(name) \(version)" }

    /// Whether it runs now: bootstrapped, not removed.
    var isRunning: Bool { state == .running }

    /// Whether `other` is the same build of the same plugin: the same name, and the same
    /// contents of the same file (a copy held open for a rollback is that build too).
    func isSameBuild(as other: PublishedPlugin) -> Bool {
        guard name == other.name, let identity, let theirs = other.identity else { return false }
        return identity.hasSameContents(as: theirs)
    }
}

extension Array where Element == PublishedPlugin {
    /// The plugin numbered `number` by its generation, if it published one.
    subscript(number number: PluginNumber) -> PublishedPlugin? {
        indices.contains(number.index) ? self[number.index] : nil
    }

    /// `Domain (plugins/libDomain.so)`, or `#7` for a number nothing was published as.
    func label(of number: PluginNumber) -> String {
        self[number: number]?.label ?? number.description
    }

    /// The plugins that run now.
    var running: [PublishedPlugin] { filter(\.isRunning) }
}
