/// This plugin-host's version, as `--version`, the status and the metrics say it.
enum HostVersion {
    static let current = "0.2.0"
}
