/// Which builds of plugins a worker generation must not load, and the builds to load in
/// their place.
///
/// A build is one version of a plugin file (``FileIdentity``). The supervisor leaves out the
/// build of a plugin that crashed or hung while the host served, or whose upgrade failed,
/// until its file changes; when it still holds the build that ran before (an open
/// descriptor of the file, kept even after the file was replaced), that build is loaded
/// instead.
///
/// Builds are compared by their contents (``FileIdentity/hasSameContents(as:)``): a file's
/// change time moves when a name of it is replaced or removed, so the copy held open for a
/// rollback is the same build as the file it was opened from, and a build left out is left
/// out in both.
/// Why a build is left out is `Reason`: the supervisor's decision as a value, the worker's as
/// the words it tells (`BuildSelection<String>`).
struct BuildSelection<Reason: Sendable & Equatable>: Sendable, Equatable {
    /// A build left out, and why: `crashed during the run phase: SIGSEGV`.
    struct Excluded: Sendable, Equatable {
        let name: String
        let file: String
        let identity: FileIdentity
        let reason: Reason
        /// Whether it waits for the host to serve, to be tried again as an upgrade (it was on
        /// trial when the host last stopped), rather than for its file to change.
        var awaitsTrial = false
    }

    var excluded: [Excluded] = []
    var substitutes: [BuildSubstitute] = []

    /// The exclusion of the build of `candidate`, if it is excluded.
    func exclusion(of candidate: PluginCandidate) -> Excluded? {
        guard let identity = candidate.status?.identity else { return nil }
        return excluded.first { $0.name == candidate.name && $0.identity.hasSameContents(as: identity) }
    }

    /// Whether `identity` is an excluded build of `name`.
    func excludes(_ name: String, _ identity: FileIdentity?) -> Bool {
        guard let identity else { return false }
        return excluded.contains { $0.name == name && $0.identity.hasSameContents(as: identity) }
    }

    /// The build to load in place of `name`'s excluded one, when there is one that is not
    /// excluded itself.
    func substitute(for name: String) -> BuildSubstitute? {
        substitutes.first { $0.name == name && !$0.path.isEmpty && !excludes(name, $0.identity) }
    }
}

/// A plugin a generation does not run, and why.
struct LeftOutPlugin: Sendable, Equatable {
    let name: String
    let file: String
    /// Why: `crashed during the run phase: SIGSEGV`, or `requires Ticker, which is left out`.
    let reason: String
    /// The version of the build that ran before, when it runs in place of the file's build.
    var runningInstead: String? = nil

    var label: String { "\(name) (\(file))" }
}

/// A build that ran before, to load in place of an excluded one.
struct BuildSubstitute: Sendable, Equatable {
    let name: String
    /// The file it came from, as reports name it.
    let file: String
    let identity: FileIdentity
    /// Where the host loads it from: an open descriptor of the file, as the supervisor
    /// that holds it fills in; empty until then.
    var path: String = ""
    /// Whether that descriptor is of the copy the record keeps of the build, rather than
    /// of a file it ran from.
    var fromCopy = false
}
