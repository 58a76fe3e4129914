import PluginABI

/// Declares no dependency, then tries every way the public API offers to reach the
/// components bootstrapped before it: lookups by the protocols and types every plugin can
/// name, the list of visible plugins, the not-found error, and the same again from its
/// service, once every plugin has bootstrapped. It prints what it reached, or that it
/// reached nothing.
public final class SnoopComponent: Bootstrapping {
    public init(_ bootstrapped: Bootstrapped) throws {
        let view = bootstrapped
        print("Snoop: \(Self.snoop(view, when: "while bootstrapping"))")
        bootstrapped.lifecycle.run {
            print("Snoop: \(Self.snoop(view, when: "from its service"))")
        }
    }

    static func snoop(_ view: Bootstrapped, when: String) -> String {
        var reached: [String] = []
        if let found = try? view.component((any Bootstrapping).self) { reached.append("a Bootstrapping \(type(of: found))") }
        if let found = try? view.component(AnyObject.self) { reached.append("an object \(type(of: found))") }
        if let found = try? view.component(Any.self) { reached.append("a value \(type(of: found))") }
        if let found = try? view.component((any Sendable).self) { reached.append("a Sendable \(type(of: found))") }
        if !view.plugins.isEmpty { reached.append("the plugins \(view.plugins)") }
        do {
            _ = try view.component((any Bootstrapping).self)
        } catch let error as BootstrappingError {
            if !error.visiblePlugins.isEmpty { reached.append("the plugins \(error.visiblePlugins) in an error") }
        } catch {}
        return reached.isEmpty ? "reached nothing \(when)" : "reached \(reached.joined(separator: ", ")) \(when)"
    }
}

@c(plugin_host_bootstrapping)
public func pluginHostBootstrapping() -> UnsafeMutableRawPointer {
    PluginEntryPoint.export(SnoopComponent.self)
}
