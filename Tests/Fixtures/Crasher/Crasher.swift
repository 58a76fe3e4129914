import PluginABI

#if canImport(Glibc)
import Glibc
#endif

/// Crashes on purpose, as `CRASHER_MODE` says, during the phase `CRASHER_PHASE` names
/// (`load`: in the entry point; `bootstrap`, the default: in its initializer).
public final class CrasherComponent: Bootstrapping {
    public init(_ bootstrapped: Bootstrapped) throws {
        if environment("CRASHER_PHASE") != "load" { crash() }
    }
}

func environment(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }

/// Unbounded recursion with a 4 KiB frame, which the optimizer cannot turn into a loop
/// because each frame's buffer is used after the recursive call returns.
@inline(never)
func recurse(_ depth: Int) -> Int {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 4096) { frame in
        frame[depth % 4096] = UInt8(truncatingIfNeeded: depth)
        return recurse(depth &+ 1) &+ Int(frame[depth % 4096])
    }
}

func crash() {
    let values = [1, 2, 3]
    let nothing: Int? = environment("CRASHER_NOTHING").flatMap { Int($0) }
    switch environment("CRASHER_MODE") ?? "segfault" {
    case "segfault": UnsafeMutablePointer<Int>(bitPattern: 8)!.pointee = 1
    case "force-unwrap": print(nothing!)
    case "index-out-of-range": print(values[values.count + (nothing ?? 0)])
    case "fatal-error": fatalError("Crasher gave up")
    case "abort": abort()
    case "stack-overflow": print(recurse(0))
    case "exit": exit(0)
    default: break
    }
}

@c(plugin_host_bootstrapping)
public func pluginHostBootstrapping() -> UnsafeMutableRawPointer {
    if environment("CRASHER_PHASE") == "load" { crash() }
    return PluginEntryPoint.export(CrasherComponent.self)
}
