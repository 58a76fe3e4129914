import PluginABI

/// What a plugin declares about itself, stored as JSON in its `.so` file.
///
/// ```json
/// { "name": "Domain", "version": "1.2.0", "abi": 1, "requires": ["Persistence"], "optional": ["Metrics"],
///   "requiredVersions": {"Persistence": "^1.0.0"} }
/// ```
///
/// `optional` names plugins used when present: they are ordered first and visible when they
/// are installed, and the plugin bootstraps without them when they are not. `settings`, when
/// present, lists every key the plugin reads from its settings: the host names any other key
/// the configuration gives it, before loading anything. `requiredVersions` gives, for any of
/// the plugins in `requires`, the versions it works with (a ``VersionRange``); a plugin named
/// without one works with any version.
///
/// Keys other than these are ignored, so that later versions may add some.
///
/// A manifest is immutable, and a class so that copying a plugin's description (which
/// ordering a thousand plugins does often) costs one reference, not a dozen.
final class PluginManifest: Equatable, Sendable {
    /// The longest plugin name accepted.
    static let maximumNameLength = 64

    let name: String
    let version: SemanticVersion
    /// The plugin ABI version the plugin was built against.
    let abi: Int
    /// The plugins that must be bootstrapped before this one, in the order given.
    let requires: [String]
    /// The plugins bootstrapped before this one when they are installed.
    let optional: [String]
    /// Every key the plugin reads from its settings, when it declares them.
    let settings: [String]?
    /// The versions of the required plugins this one works with, where it says.
    let requiredVersions: [String: VersionRange]
    /// How a new generation that runs the plugin takes over from one that runs it too.
    let upgrade: UpgradeOrder
    /// The whole manifest as read, with any keys this host does not know.
    let document: Setting

    /// ``document`` as JSON to print, its keys sorted.
    var raw: JSONOutput { JSONOutput(document) }

    init(
        name: String, version: SemanticVersion, abi: Int, requires: [String] = [], optional: [String] = [],
        settings: [String]? = nil, requiredVersions: [String: VersionRange] = [:], upgrade: UpgradeOrder = .after,
        document: Setting = .object([:])
    ) {
        self.name = name
        self.version = version
        self.abi = abi
        self.requires = requires
        self.optional = optional
        self.settings = settings
        self.requiredVersions = requiredVersions
        self.upgrade = upgrade
        self.document = document
    }

    static func == (left: PluginManifest, right: PluginManifest) -> Bool {
        left === right
            || (left.name == right.name && left.version == right.version && left.abi == right.abi
                && left.requires == right.requires && left.optional == right.optional && left.requiredVersions == right.requiredVersions
                && left.document == right.document)
    }

    /// `requires` then `optional` (marked `?`), comma-separated, or `-`: as tables show them.
    var dependencyList: String { dependencyList(showingRanges: false) }

    /// ``dependencyList``, each required plugin followed by its range when it has one
    /// (`Domain ^1.0.0,Metrics?`): as `list` shows them.
    func dependencyList(showingRanges: Bool) -> String {
        let required = requires.map { name in
            showingRanges ? requiredVersions[name].map { "\(name) \($0)" } ?? name : name
        }
        let all = required + optional.map { $0 + "?" }
        return all.isEmpty ? "-" : all.joined(separator: ",")
    }

    /// The identity the chain uses to decide what the plugin's component may see.
    var identity: PluginIdentity { PluginIdentity(name: name, requires: requires, optional: optional) }

    /// Reads a manifest from its JSON text.
    ///
    /// - Throws: ``ManifestError/malformed(_:)`` saying which field is wrong and why.
    convenience init(json bytes: [UInt8]) throws(ManifestError) {
        let document: Setting
        do {
            document = try JSONParser.parse(bytes)
        } catch {
            throw .malformed("not valid JSON: \(error)")
        }
        guard case .object(let fields) = document else {
            throw .malformed("the manifest must be a JSON object, found \(document.typeName)")
        }

        guard case .string(let name)? = fields["name"] else {
            throw .malformed(Self.wrongField("name", "a string", fields["name"]))
        }
        if let problem = Self.problem(withName: name) { throw .malformed("\"name\" \(problem)") }

        guard case .string(let versionText)? = fields["version"] else {
            throw .malformed(Self.wrongField("version", "a string", fields["version"]))
        }
        guard let version = SemanticVersion(versionText) else {
            throw .malformed("\"version\" \"\(versionText.debugEscaped)\" is not a semantic version such as 1.0.0")
        }

        guard case .number(let abiNumber)? = fields["abi"], abiNumber.rounded() == abiNumber,
            abiNumber >= 1, abiNumber <= Double(Int32.max)
        else {
            throw .malformed(Self.wrongField("abi", "a whole number of at least 1", fields["abi"]))
        }

        let requires = try Self.pluginNames(fields["requires"], key: "requires", of: name, excluding: [])
        let optional = try Self.pluginNames(fields["optional"], key: "optional", of: name, excluding: requires)
        var settings: [String]?
        switch fields["settings"] {
        case nil, .null?: break
        case .array(let entries)?:
            settings = []
            for entry in entries {
                guard case .string(let key) = entry, !key.isEmpty else {
                    throw .malformed("\"settings\" must list the keys of the plugin's settings as strings, found \(entry.valueDescription)")
                }
                guard settings?.contains(key) == false else { throw .malformed("\"settings\" lists \"\(key.debugEscaped)\" twice") }
                settings?.append(key)
            }
        case let other?:
            throw .malformed("\"settings\" must be an array of the keys of the plugin's settings, found \(other.typeName)")
        }
        var requiredVersions: [String: VersionRange] = [:]
        switch fields["requiredVersions"] {
        case nil, .null?: break
        case .object(let ranges)?:
            for (required, value) in ranges.sorted(by: { $0.key < $1.key }) {
                guard requires.contains(required) else {
                    throw .malformed("\"requiredVersions\" gives a range for \(required.debugEscaped), which is not in \"requires\"; "
                        + "a range applies to a required plugin")
                }
                guard case .string(let text) = value else {
                    throw .malformed("\"requiredVersions\" must give each range as a string such as \">=1.2.0 <2.0.0\", found \(value.typeName) for \(required)")
                }
                requiredVersions[required] = try VersionRange(text)
            }
        case let other?:
            throw .malformed("\"requiredVersions\" must be an object of ranges by plugin name, found \(other.typeName)")
        }
        let upgrade: UpgradeOrder
        switch fields["upgrade"] {
        case nil, .null?: upgrade = .after
        case .string(let text)?:
            guard let order = UpgradeOrder(rawValue: text) else {
                throw .malformed("\"upgrade\" must be \"after\" or \"beside\", found \"\(text.debugEscaped)\"")
            }
            upgrade = order
        case let other?:
            throw .malformed("\"upgrade\" must be \"after\" or \"beside\", found \(other.typeName)")
        }
        self.init(
            name: name, version: version, abi: Int(abiNumber), requires: requires, optional: optional, settings: settings,
            requiredVersions: requiredVersions, upgrade: upgrade, document: document)
    }

    /// The plugin names listed under `key`: absent or `null` is none.
    private static func pluginNames(
        _ value: Setting?, key: String, of name: String, excluding earlier: [String]
    ) throws(ManifestError) -> [String] {
        var names: [String] = []
        switch value {
        case nil, .null?: break
        case .array(let entries)?:
            for entry in entries {
                guard case .string(let listed) = entry else {
                    throw .malformed("\"\(key)\" must list plugin names as strings, found \(entry.typeName)")
                }
                if let problem = problem(withName: listed) {
                    throw .malformed("\"\(key)\" entry \(problem)")
                }
                guard listed != name else {
                    throw .malformed("plugin \(name) requires itself; remove \"\(name)\" from \"\(key)\"")
                }
                guard !names.contains(listed) else {
                    throw .malformed("\"\(key)\" lists \(listed) twice")
                }
                guard !earlier.contains(listed) else {
                    throw .malformed("\(listed) is listed in both \"requires\" and \"\(key)\"; keep one")
                }
                names.append(listed)
            }
        case let other?:
            throw .malformed("\"\(key)\" must be an array of plugin names, found \(other.typeName)")
        }
        return names
    }

    /// Why `name` cannot name a plugin, or `nil` when it can.
    ///
    /// A name starts with a letter or digit and holds only ASCII letters, digits, `.`,
    /// `_` and `-`: it appears in file names, error messages and Graphviz output.
    static func problem(withName name: String) -> String? {
        if name.isEmpty { return "is empty" }
        if name.utf8.count > maximumNameLength {
            return "is longer than \(maximumNameLength) characters"
        }
        let allowed = name.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
        guard allowed, let first = name.utf8.first, first != UInt8(ascii: "."), first != UInt8(ascii: "-"), first != UInt8(ascii: "_")
        else {
            return "\"\(name.debugEscaped)\" may hold only ASCII letters, digits, '.', '_' and '-', "
                + "and must start with a letter or digit"
        }
        return nil
    }

    private static func wrongField(_ key: String, _ expected: String, _ found: Setting?) -> String {
        "\"\(key)\" must be \(expected), " + (found.map { "found \($0.typeName)" } ?? "but it is missing")
    }
}
