import Glibc
import PluginABI

/// The reference row of the start-up benchmark: the least a Swift host can do. Lists the
/// directory with readdir, dlopens each `*.so` as the host does, casts what its entry point
/// hands over and bootstraps it onto the chain, in directory order. No manifest, no order,
/// no checks, no report, no supervisor, no threads.
///
///     naive-loader DIRECTORY
@main
enum NaiveLoader {
    static func main() async throws {
        let directory = CommandLine.arguments[1]
        guard let stream = opendir(directory) else { fatalError("cannot open \(directory)") }
        var files: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasSuffix(".so") { files.append(name) }
        }
        closedir(stream)
        var chain = Bootstrapped()
        for file in files {
            guard let library = dlopen(directory + "/" + file, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE),
                let symbol = dlsym(library, "plugin_host_bootstrapping")
            else { fatalError(String(cString: dlerror())) }
            let entryPoint = unsafeBitCast(symbol, to: (@convention(c) () -> UnsafeMutableRawPointer).self)
            guard let exported = Unmanaged<AnyObject>.fromOpaque(entryPoint()).takeRetainedValue() as? ExportedComponent else {
                fatalError("\(file): not a component")
            }
            let identity = PluginIdentity(name: String(file.dropFirst(3).dropLast(3)))
            let component = try await exported.type.init(chain.view(for: identity))
            chain = try chain.appending(component, as: identity)
        }
    }
}
