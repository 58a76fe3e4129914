/// What a plugin-host binary says it is, in its ELF section ``sectionName``: read from the
/// file without running it, so that a running host can tell what the binary installed at its
/// path now is (another version of plugin-host, or no plugin-host at all).
struct HostIdentity: Codable, Equatable, Sendable {
    static let sectionName = ".plugin_host_identity"

    /// `plugin-host`.
    var program: String
    var version: String
    /// The supervision protocol it speaks to a host before it or a new host in a host upgrade
    /// (docs/operations.md, "Upgrading the host"): a host starts as its new host only a
    /// binary of the same protocol. `nil` for a binary from before host upgrades.
    var supervision: Int?

    /// The supervision protocol of this binary.
    static let supervisionProtocol = 1

    /// What this binary says it is: what its section holds.
    static var current: HostIdentity { HostIdentity(program: "plugin-host", version: HostVersion.current, supervision: supervisionProtocol) }

    /// The section's bytes: the identity as compact JSON, its fields in this order.
    var bytes: [UInt8] {
        var members: [(String, JSONOutput)] = [("program", .string(program)), ("version", .string(version))]
        if let supervision { members.append(("supervision", .number(Double(supervision)))) }
        return Array(JSONOutput.object(members).rendered().utf8)
    }

    /// What the file at `path` says it is; `nil` when it says nothing (it is no ELF file, no
    /// plugin-host, or one from before binaries said what they are).
    static func of(file path: String) -> HostIdentity? {
        guard let bytes = ManifestReader.section(sectionName, of: path, maximumSize: 4096),
            let value = try? JSONParser.parse(bytes), let identity = try? JSONCoding.decode(HostIdentity.self, from: value),
            identity.program == "plugin-host"
        else { return nil }
        return identity
    }
}
