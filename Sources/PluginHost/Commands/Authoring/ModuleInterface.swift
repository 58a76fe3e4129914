/// What a plugin's installed module interface (`NAME.swiftinterface`) says about the way
/// other plugins use it: its component class, the protocol the component conforms to that
/// the module exports, and that protocol's requirements, from which a stand-in for tests is
/// written.
///
/// The interface is the compiler's own textual output, one declaration per line, so reading
/// it needs no Swift parser: lines are matched, not understood. Whatever does not match
/// leaves the answer empty, and the caller falls back to a project without stand-ins.
struct ModuleInterface {
    let module: String
    private let lines: [Substring]

    /// - Parameters:
    ///   - module: The module name, the plugin's name.
    ///   - text: The contents of its `.swiftinterface`.
    init(module: String, text: String) {
        self.module = module
        lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    }

    /// The class that conforms to `PluginABI.Bootstrapping`, and the protocols of this
    /// module it conforms to as well, in the order declared.
    var component: (name: String, protocols: [String])? {
        for line in lines where line.contains("class ") && line.contains("PluginABI.Bootstrapping") {
            guard let classRange = line.firstRange(of: "class "), let colon = line.firstIndex(of: ":") else { continue }
            let name = line[classRange.upperBound..<colon].trimmingSpaces
            let conformances = line[line.index(after: colon)...].split(separator: ",").map { part in
                part.trimmingSpaces.split(separator: " ").first.map(String.init) ?? ""
            }
            let own = conformances.filter { $0.hasPrefix(module + ".") }.map { String($0.dropFirst(module.count + 1)) }
            return (name, own)
        }
        return nil
    }

    /// The members a stand-in for `protocolName` needs, one declaration per element, each
    /// with a body that stops the test when called; `nil` when a requirement is of a kind a
    /// stand-in cannot be written for this way (an associated type, say).
    func standInMembers(of protocolName: String) -> [String]? {
        guard let start = lines.firstIndex(where: { $0.hasPrefix("public protocol \(protocolName) ") || $0 == "public protocol \(protocolName) {" })
        else { return nil }
        var members: [String] = []
        for line in lines[(start + 1)...] {
            if line == "}" { return members }
            let requirement = line.trimmingSpaces
            guard !requirement.isEmpty else { continue }
            guard let member = Self.standIn(for: requirement, protocolName: protocolName) else { return nil }
            members.append(member)
        }
        return nil
    }

    private static func standIn(for requirement: String, protocolName: String) -> String? {
        let stop = "fatalError(\"stand-in for \(protocolName): implement what the test needs\")"
        var declaration = requirement
        if declaration.hasPrefix("mutating ") { declaration.removeFirst("mutating ".count) }
        let head = declaration.split(separator: " ").first { !$0.hasPrefix("@") && $0 != "static" } ?? ""
        switch head {
        case "func", "init":
            return "\(declaration) { \(stop) }"
        case "var", "subscript":
            guard let accessors = declaration.firstRange(of: " { get") else { return nil }
            let signature = declaration[..<accessors.lowerBound]
            return declaration[accessors.lowerBound...].contains("set")
                ? "\(signature) { get { \(stop) } set {} }" : "\(signature) { \(stop) }"
        default:
            return nil
        }
    }
}
