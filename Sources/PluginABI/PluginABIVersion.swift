/// The version of the contract between the host and its plugins.
///
/// A plugin's manifest records the ABI version it was built against. The host refuses a
/// plugin whose ABI version differs from its own before loading it, because such a plugin
/// may reference symbols or layouts this `libPluginABI.so` does not have. The number
/// changes only when a change breaks plugins already built; additions made with library
/// evolution (defaulted requirements, new types, events and registrations) keep it.
public enum PluginABIVersion {
    /// The ABI version of this build of `libPluginABI.so`.
    public static let current = 2
}
