import PluginABI

#if canImport(Glibc)
import Glibc
#endif

/// Leaves a mark the moment the dynamic loader maps it, before any entry point: an ELF
/// constructor creates the file `MARKER_FILE` names, and aborts when `MARKER_CRASH` is set.
/// Commands that must not load plugins (list, inspect, check, graph) are tested with it.
@c func markerLoaded() {
    if let path = getenv("MARKER_FILE") { _ = creat(path, 0o644) }
    if getenv("MARKER_CRASH") != nil { abort() }
}

@section(".init_array") @used let markOnLoad: @convention(c) () -> Void = markerLoaded

public final class MarkerComponent: Bootstrapping {
    public init(_ bootstrapped: Bootstrapped) throws {}
}

@c(plugin_host_bootstrapping)
public func pluginHostBootstrapping() -> UnsafeMutableRawPointer {
    PluginEntryPoint.export(MarkerComponent.self)
}
