import PluginABI

#if canImport(Glibc)
import Glibc
#endif

/// Never returns from the phase `SLEEPER_PHASE` names (`load` or `bootstrap`, the default).
public final class SleeperComponent: Bootstrapping {
    public init(_ bootstrapped: Bootstrapped) throws {
        if environment("SLEEPER_PHASE") != "load" { sleepForever() }
    }
}

func environment(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }

func sleepForever() -> Never {
    while true { sleep(1000) }
}

@c(plugin_host_bootstrapping)
public func pluginHostBootstrapping() -> UnsafeMutableRawPointer {
    if environment("SLEEPER_PHASE") == "load" { sleepForever() }
    return PluginEntryPoint.export(SleeperComponent.self)
}
