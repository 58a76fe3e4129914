import Glibc
import PluginABI

/// The reference row of the start-up benchmark: the loader a Swift user would write instead
/// of the host. Takes the plugin files in a valid order (the host's bootstrap order), dlopens
/// each as the host does, casts what its entry point hands over, constructs its component
/// with a view of the chain and appends it; then delivers Shutdown to the components in
/// reverse order. No manifest, no checks, no report, no supervisor, no threads, no deadlines.
///
///     naive-loader PLUGIN...
@main
enum NaiveLoader {
    static func main() async throws {
        var chain = Bootstrapped()
        var lifecycles: [Lifecycle] = []
        for file in CommandLine.arguments.dropFirst() {
            guard let library = dlopen(file, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE),
                let symbol = dlsym(library, "plugin_host_bootstrapping")
            else { fatalError(String(cString: dlerror())) }
            let entryPoint = unsafeBitCast(symbol, to: (@convention(c) () -> UnsafeMutableRawPointer).self)
            guard let exported = Unmanaged<AnyObject>.fromOpaque(entryPoint()).takeRetainedValue() as? ExportedComponent else {
                fatalError("\(file): not a component")
            }
            let name = file.split(separator: "/").last.map { String($0.dropFirst(3).dropLast(3)) } ?? file
            let identity = PluginIdentity(name: name)
            let lifecycle = Lifecycle()
            let component = try await exported.type.init(chain.view(for: identity, lifecycle: lifecycle))
            chain = try chain.appending(component, as: identity)
            lifecycles.append(lifecycle)
        }
        for lifecycle in lifecycles.reversed() { _ = try await lifecycle.deliver(Shutdown()) }
    }
}
