/// How a new worker generation that runs a plugin takes over from one that runs it too, as
/// the plugin's manifest says (`"upgrade"`).
enum UpgradeOrder: String, Equatable, Sendable {
    /// The new generation bootstraps the plugin once the one before has stopped: for a plugin
    /// that holds something only one process may (a store file, a lock). The default.
    case after
    /// The new generation bootstraps the plugin and gets ready while the one before still
    /// serves, which then drains: no moment without a worker that accepts. An upgrade takes
    /// this order only when every plugin of the new generation allows it.
    case beside
}
