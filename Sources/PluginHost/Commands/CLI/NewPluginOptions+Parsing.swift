extension NewPluginOptions {
    /// What `plugin-host new` was given, checked: the project's module, and its types, are
    /// named after the plugin, so every name must be a plugin name and a Swift identifier.
    init(_ arguments: ParsedArguments) throws(UsageError) {
        let name = try arguments.oneArgument("new takes one plugin name")
        if let problem = PluginManifest.problem(withName: name) { throw UsageError(message: "plugin name \(problem)") }
        for listed in [name] + arguments.requires where !Self.isSwiftIdentifier(listed) {
            throw UsageError(message: "new: '\(listed.debugEscaped)' is not a Swift identifier, which a plugin's module and its types are named by: "
                + "use letters, digits and _, not beginning with a digit (such as \(Self.identifierSuggestion(for: listed)))")
        }
        for (option, names) in [("--requires", arguments.requires), ("--optional", arguments.optional)] {
            for listed in names {
                if let problem = PluginManifest.problem(withName: listed) { throw UsageError(message: "\(option): \(problem)") }
                if listed == name { throw UsageError(message: "\(option): a plugin cannot depend on itself") }
            }
        }
        if let both = arguments.requires.first(where: arguments.optional.contains) {
            throw UsageError(message: "\(both) is given with both --requires and --optional; keep one")
        }
        self.init(name: name, requires: arguments.requires, optional: arguments.optional, service: arguments.service, parent: arguments.into ?? ".")
    }

    /// Whether `name` can name a Swift module and type: ASCII letters, digits and `_`, not
    /// beginning with a digit.
    static func isSwiftIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
        return name.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }
    }

    /// `name` made an identifier, as an example: `my-plugin` as `MyPlugin`, `9bad` as `Bad9`.
    static func identifierSuggestion(for name: String) -> String {
        let words = name.split { !($0.isASCII && ($0.isLetter || $0.isNumber)) }
        var joined = words.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        let digits = joined.prefix { $0.isNumber }
        joined = String(joined.dropFirst(digits.count)) + digits
        joined = joined.prefix(1).uppercased() + joined.dropFirst()
        return isSwiftIdentifier(joined) ? joined : "Ripener"
    }
}
