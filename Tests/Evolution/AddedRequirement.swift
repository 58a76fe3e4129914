// Compiled into the evolved PluginABI of the evolution test only, never into the real one:
// the default of the requirement the test adds to `Bootstrapping` after the baseline.
extension Bootstrapping {
    public static var addedAfterBaseline: String { "the default" }
}
