/// A component that can take new settings while it runs.
///
/// On SIGHUP the host re-reads its configuration file and calls `reload(_:)` of every
/// reloadable component, in bootstrap order, each with its own new settings. A component
/// that throws keeps running as it was; the host reports the error and keeps running.
public protocol Reloadable: Bootstrapping {
    /// Applies new settings.
    ///
    /// - Parameter settings: The component's settings from the re-read configuration file.
    /// - Throws: Any error, to say the new settings were not applied.
    func reload(_ settings: Settings) async throws
}

extension Reloadable {
    /// `self`.
    public var asReloadable: (any Reloadable)? { self }
}
