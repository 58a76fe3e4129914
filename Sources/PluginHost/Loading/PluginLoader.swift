import PluginABI

/// Loads plugin files and obtains their components through the C entry point.
enum PluginLoader {
    /// The C type of ``PluginEntryPoint/symbolName``.
    private typealias EntryPoint = @convention(c) () -> UnsafeMutableRawPointer?

    /// Loads the plugin file of `candidate` and returns its component.
    ///
    /// The caller has checked the manifest, including its ABI version, before calling
    /// this: it runs the plugin's initializers and its entry point. After the call the
    /// component is checked to be a ``Bootstrapping`` of the shared `libPluginABI.so` and
    /// to be defined in this very file, so that a plugin cannot hand over another plugin's
    /// component under its own name.
    ///
    /// - Throws: ``Problem`` with code `load-failed`, `entry-point-missing`,
    ///   `not-a-component` or `component-mismatch`.
    static func component(of candidate: PluginCandidate) throws(Problem) -> any Bootstrapping {
        let library: DynamicLibrary
        let entry: UnsafeMutableRawPointer
        do {
            library = try DynamicLibrary(loading: candidate.file)
        } catch {
            throw Problem(
                .loadFailed, plugin: candidate.name, file: candidate.file,
                "plugin \(candidate.label) failed to load: \(error.message); "
                    + "rebuild it against this host's libPluginABI.so and check that the libraries it needs are installed")
        }
        do {
            entry = try library.address(of: PluginEntryPoint.symbolName)
        } catch {
            throw Problem(
                .entryPointMissing, plugin: candidate.name, file: candidate.file,
                "plugin \(candidate.label) has no entry point \(PluginEntryPoint.symbolName); "
                    + "define it with @c(\(PluginEntryPoint.symbolName)) as the README's \"Writing a plugin\" shows")
        }

        guard let pointer = unsafeBitCast(entry, to: EntryPoint.self)() else {
            throw Problem(
                .notAComponent, plugin: candidate.name, file: candidate.file,
                "plugin \(candidate.label): its entry point returned a null pointer instead of a component")
        }
        let object = Unmanaged<AnyObject>.fromOpaque(pointer).takeRetainedValue()
        // A class cast to the box PluginEntryPoint.export makes; a protocol cast only for an
        // entry point that hands over its object some other way.
        guard let component = (object as? ExportedComponent)?.component ?? (object as? any Bootstrapping) else {
            throw Problem(
                .notAComponent, plugin: candidate.name, file: candidate.file,
                "plugin \(candidate.label): its entry point returned a \(readableName(of: type(of: object))), "
                    + "which does not conform to PluginABI.Bootstrapping as the host's libPluginABI.so defines it; "
                    + "return a Bootstrapping component and link PluginABI dynamically (-lPluginABI), never statically")
        }

        let componentType: AnyObject.Type = type(of: component)
        let metadata = UInt(bitPattern: unsafeBitCast(componentType, to: UnsafeRawPointer.self))
        // In the plugin's own image? Its segments' span, read with the manifest, plus where
        // it was mapped: O(1), where asking dladdr would walk every loaded object.
        if let span = candidate.loadedSpan, let base = library.loadBase, metadata >= base,
            span.contains(UInt64(metadata - base))
        {
            return component
        }
        let definingFile = DynamicLibrary.file(containing: UnsafeRawPointer(bitPattern: metadata)!)
        guard let definingFile, Self.isSameFile(definingFile, candidate.file) else {
            throw Problem(
                .componentMismatch, plugin: candidate.name, file: candidate.file,
                "plugin \(candidate.label) returned a \(readableName(of: componentType)), which is defined in "
                    + "\(definingFile ?? "no loaded file"), not in \(candidate.file); "
                    + "a plugin's entry point must return a component class of its own")
        }
        return component
    }

    private static func isSameFile(_ first: String, _ second: String) -> Bool {
        guard let a = try? FileStatus(path: first), let b = try? FileStatus(path: second) else { return false }
        return a.isSameFile(as: b)
    }
}
