import Glibc
import PluginABI

/// A minimal host for the evolution test, built against a PluginABI that has a requirement
/// the plugin never saw: loads the plugin named by the first argument as the host does,
/// asks its component type for the added requirement and bootstraps it.
@main
struct EvolutionProbe {
    static func main() async throws {
        let path = CommandLine.arguments[1]
        guard let library = dlopen(path, RTLD_NOW) else { fatalError("cannot load \(path): \(String(cString: dlerror()))") }
        guard let symbol = dlsym(library, PluginEntryPoint.symbolName) else { fatalError("\(path) has no entry point") }
        let entryPoint = unsafeBitCast(symbol, to: (@convention(c) () -> UnsafeMutableRawPointer).self)
        let exported = Unmanaged<ExportedComponent>.fromOpaque(entryPoint()).takeRetainedValue()
        print("added requirement: \(exported.type.addedAfterBaseline)")
        _ = try await BootstrapHarness().bootstrap(exported.type, as: "Legacy")
    }
}
