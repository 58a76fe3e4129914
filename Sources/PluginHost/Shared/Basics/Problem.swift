/// Something that keeps plugins from loading or running, as the operator sees it.
///
/// Every problem names the plugin and/or the file it concerns; its ``message`` says what is
/// wrong and what to do. ``code`` is stable, for scripts reading `--json`.
struct Problem: Error, Equatable, Sendable, CustomStringConvertible {
    /// A stable, kebab-case identifier of the kind of problem.
    struct Code: Hashable, Sendable, CustomStringConvertible {
        let rawValue: String

        private init(_ rawValue: String) { self.rawValue = rawValue }

        static let directoryUnreadable = Code("directory-unreadable")
        static let configurationInvalid = Code("configuration-invalid")
        static let unreadableFile = Code("unreadable-file")
        static let notSharedObject = Code("not-a-shared-object")
        static let missingManifest = Code("missing-manifest")
        static let malformedManifest = Code("malformed-manifest")
        static let duplicateName = Code("duplicate-name")
        static let abiMismatch = Code("abi-mismatch")
        static let missingDependency = Code("missing-dependency")
        static let versionMismatch = Code("version-mismatch")
        static let undeclaredDependency = Code("undeclared-dependency")
        static let dependencyCycle = Code("dependency-cycle")
        static let loadFailed = Code("load-failed")
        static let entryPointMissing = Code("entry-point-missing")
        static let notAComponent = Code("not-a-component")
        static let componentMismatch = Code("component-mismatch")
        static let bootstrapFailed = Code("bootstrap-failed")
        static let dependencyFailed = Code("dependency-failed")
        static let unsafeFile = Code("unsafe-file")
        static let serviceFailed = Code("service-failed")
        static let notReady = Code("not-ready")
        static let drainFailed = Code("drain-failed")
        static let pluginNotAdded = Code("plugin-not-added")
        static let reloadFailed = Code("reload-failed")
        static let shutdownFailed = Code("shutdown-failed")
        static let shutdownTimedOut = Code("shutdown-timed-out")
        static let timelineUnwritable = Code("timeline-unwritable")

        var description: String { rawValue }
    }

    let code: Code
    let plugin: String?
    let file: String?
    let message: String

    init(_ code: Code, plugin: String? = nil, file: String? = nil, _ message: String) {
        self.code = code
        self.plugin = plugin
        self.file = file
        self.message = message
    }

    var description: String { message }
}
