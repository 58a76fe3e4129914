/// The versions of a required plugin that a plugin works with, as its manifest's
/// `"requiredVersions"` states them: comparisons that must all hold, separated by spaces
/// (`>=1.2.0 <2.0.0`), or `^1.2.0` for the versions SwiftPM's `from: "1.2.0"` accepts (the same
/// major version, `>=1.2.0 <2.0.0`; for 0.x, the same minor version).
///
/// Comparisons are `>=`, `>`, `<=`, `<` and `=` (also a bare version). Versions compare as
/// Semantic Versioning orders them, except that `<2.0.0` also leaves out the pre-releases of
/// 2.0.0 (as npm and Cargo do).
struct VersionRange: Hashable, Sendable, CustomStringConvertible {
    /// One comparison with a version.
    struct Bound: Hashable, Sendable {
        enum Relation: String, Hashable, Sendable, CaseIterable {
            case atLeast = ">="
            case above = ">"
            case atMost = "<="
            case below = "<"
            case exactly = "="
        }

        let relation: Relation
        let version: SemanticVersion

        func admits(_ candidate: SemanticVersion) -> Bool {
            switch relation {
            case .atLeast: candidate >= version
            case .above: candidate > version
            case .atMost: candidate <= version
            // `<2.0.0` leaves out 2.0.0's pre-releases too: they come before 2.0.0, but are
            // builds of the version the range stops short of.
            case .below:
                candidate < version
                    && !(version.preRelease.isEmpty && !candidate.preRelease.isEmpty
                        && (candidate.major, candidate.minor, candidate.patch) == (version.major, version.minor, version.patch))
            case .exactly: candidate == version
            }
        }
    }

    let bounds: [Bound]
    /// The text as the manifest gave it.
    let description: String

    /// Parses `text`, or says why it is no range.
    init(_ text: String) throws(ManifestError) {
        let terms = text.split(separator: " ", omittingEmptySubsequences: true)
        guard !terms.isEmpty else { throw .malformed("an empty version range; give one such as \">=1.2.0 <2.0.0\" or \"^1.2.0\"") }
        var bounds: [Bound] = []
        for term in terms {
            if term.hasPrefix("^") {
                guard let version = SemanticVersion(String(term.dropFirst())) else { throw Self.notAVersion(term, in: text) }
                let next = version.major > 0
                    ? SemanticVersion(major: version.major + 1, minor: 0, patch: 0)
                    : SemanticVersion(major: 0, minor: version.minor + 1, patch: 0)
                bounds += [Bound(relation: .atLeast, version: version), Bound(relation: .below, version: next)]
                continue
            }
            // The longest operator first: `>=` before `>`.
            let relation = Bound.Relation.allCases.sorted { $0.rawValue.count > $1.rawValue.count }
                .first { term.hasPrefix($0.rawValue) } ?? .exactly
            let versionText = term.hasPrefix(relation.rawValue) ? term.dropFirst(relation.rawValue.count) : term[...]
            guard let version = SemanticVersion(String(versionText)) else { throw Self.notAVersion(term, in: text) }
            bounds.append(Bound(relation: relation, version: version))
        }
        self.bounds = bounds
        description = terms.joined(separator: " ")
    }

    /// Whether `version` is within the range.
    func admits(_ version: SemanticVersion) -> Bool {
        bounds.allSatisfy { $0.admits(version) }
    }

    /// The range SwiftPM's `from:` gives for a plugin built against `version`: `^version`.
    static func compatible(with version: SemanticVersion) -> String {
        "^\(version.major).\(version.minor).\(version.patch)"
    }

    private static func notAVersion(_ term: Substring, in text: String) -> ManifestError {
        .malformed("\"\(String(term).debugEscaped)\" in the version range \"\(text.debugEscaped)\" is not a comparison with a semantic version; "
            + "write ranges such as \">=1.2.0 <2.0.0\" or \"^1.2.0\"")
    }
}
