import PluginABI

/// Loads plugin files and obtains their component types through the C entry point.
enum PluginLoader {
    /// Loads the plugin file of `candidate` and returns its component type.
    ///
    /// The caller has checked the manifest, including its ABI version, before calling
    /// this: it runs the plugin's initializers and its entry point. The file is loaded by
    /// its absolute path, so that a working directory changed by plugin code does not
    /// matter. After the call the type is checked to be a ``Bootstrapping`` of the shared
    /// `libPluginABI.so` and to be the plugin's own: its class, or its conformance to
    /// `Bootstrapping` (for a generic class, whose metadata the runtime makes), must be
    /// defined in this very file, so that a plugin cannot hand over another plugin's
    /// component under its own name.
    ///
    /// - Parameter mapped: Called with where the file's executable code was mapped, once
    ///   it is, before the entry point runs.
    /// - Throws: ``Problem`` with code `load-failed`, `entry-point-missing`,
    ///   `not-a-component` or `component-mismatch`.
    static func componentType(of candidate: PluginCandidate, mapped: (Range<UInt64>) -> Void = { _ in }) throws(Problem) -> any Bootstrapping.Type {
        let library: DynamicLibrary
        do {
            library = try DynamicLibrary(loading: candidate.path)
            ExitTrap.endIfForkedCopy()
            LoadedFiles.keep(loadedFrom: candidate.path, as: candidate.status?.identity)
        } catch {
            throw candidate.problem(
                .loadFailed, "plugin \(candidate.label) failed to load: \(error.message); "
                    + "rebuild it against this host's libPluginABI.so and check that the libraries it needs are installed")
        }
        let base = library.loadBase
        if let base, let code = candidate.segments?.code {
            mapped(UInt64(base) + code.lowerBound..<UInt64(base) + code.upperBound)
        }

        let object: AnyObject?
        do {
            object = try library.callEntryPoint(named: PluginEntryPoint.symbolName)
            ExitTrap.endIfForkedCopy()
        } catch {
            throw candidate.problem(
                .entryPointMissing, "plugin \(candidate.label) has no entry point \(PluginEntryPoint.symbolName); "
                    + "define it with @c(\(PluginEntryPoint.symbolName)) as docs/writing-plugins.md shows")
        }
        guard let object else {
            throw candidate.problem(
                .notAComponent, "plugin \(candidate.label): its entry point returned a null pointer instead of a component")
        }
        // A class cast to the box PluginEntryPoint.export makes.
        guard let componentType = (object as? ExportedComponent)?.type else {
            throw candidate.problem(
                .notAComponent, "plugin \(candidate.label): its entry point returned a \(readableName(of: type(of: object))), "
                    + "not a component type exported with PluginEntryPoint.export from the host's libPluginABI.so; "
                    + "return PluginEntryPoint.export(YourComponent.self) and link PluginABI dynamically (-lPluginABI), never statically")
        }

        let (metadata, conformance) = SwiftRuntime.addresses(of: componentType)
        // In the plugin's own image? Its segments' span, read with the manifest, plus where
        // it was mapped: O(1), where asking dladdr would walk every loaded object.
        if let whole = candidate.segments?.whole, let base {
            for address in [metadata, conformance].compactMap({ $0 }) where address >= base && whole.contains(UInt64(address - base)) {
                return componentType
            }
        }
        let definingFile = SwiftRuntime.pointer(to: metadata).flatMap(DynamicLibrary.file(containing:))
        if let definingFile, isSameFile(definingFile, candidate.path) { return componentType }
        let conformingFile = conformance.flatMap(SwiftRuntime.pointer(to:)).flatMap(DynamicLibrary.file(containing:))
        if let conformingFile, isSameFile(conformingFile, candidate.path) { return componentType }
        throw candidate.problem(
            .componentMismatch, "plugin \(candidate.label) returned a \(readableName(of: componentType)), which is defined in "
                + "\(conformingFile ?? definingFile ?? "no loaded file"), not in \(candidate.file); "
                + "a plugin's entry point must return a component class of its own")
    }

    private static func isSameFile(_ first: String, _ second: String) -> Bool {
        guard let a = try? FileStatus(path: first), let b = try? FileStatus(path: second) else { return false }
        return a.isSameFile(as: b)
    }
}
