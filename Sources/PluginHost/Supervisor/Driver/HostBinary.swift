/// The plugin-host binary a supervisor runs: where it was started from, its version and its
/// ELF build id, read from the running image itself (`/proc/self/exe`), so that a file
/// replaced at that path since (a package upgrade) is told apart from what runs, with what the
/// new file says it is.
struct HostBinary: Sendable {
    /// The path it was started from, as the kernel resolved it.
    let path: String
    let version: String
    /// Its ELF build id, in hexadecimal; `nil` when it was linked without one.
    let buildID: String?
    /// The running image's contents, to compare with the file at ``path`` now.
    let identity: FileIdentity?
    /// The file at ``path`` as last looked at, when it was another build: its contents, and
    /// what it says it is; read again only when the file changes.
    private var lastSeen: (identity: FileIdentity, says: HostIdentity?)?

    /// The binary this process runs.
    static func running() -> HostBinary {
        let image = try? ReadOnlyFile(path: "/proc/self/exe")
        // A file replaced or removed since it was started reads `PATH (deleted)`.
        var path = Process.executablePath ?? "plugin-host"
        if path.hasSuffix(" (deleted)") { path.removeLast(" (deleted)".count) }
        return HostBinary(
            path: path, version: HostVersion.current, buildID: image.flatMap(ManifestReader.buildID(of:)),
            identity: image.flatMap { try? $0.status().identity })
    }

    private init(path: String, version: String, buildID: String?, identity: FileIdentity?) {
        self.path = path
        self.version = version
        self.buildID = buildID
        self.identity = identity
    }

    /// The file at ``path`` now, as a status says it.
    struct OnDisk: Equatable, Sendable {
        /// Whether it is another build than the one that runs; `nil` when that cannot be told.
        var changed: Bool?
        /// When it is another build, what it says it is; `nil` when it says nothing (no
        /// plugin-host, or gone).
        var says: HostIdentity?
    }

    /// Why the file at ``path`` now cannot be started as the new host of a host upgrade: it
    /// says it is no plugin-host (or says nothing), it speaks another supervision protocol,
    /// or it is the very build that runs. `nil` when it can.
    func problemAsNewHost() -> String? {
        guard let status = try? FileStatus(path: path) else { return "\(path) is gone; install the new plugin-host there first" }
        if let identity, status.identity.hasSameContents(as: identity) {
            return "\(path) is the build that runs (\(version), build id \(buildID ?? "none")); install the new plugin-host there first"
        }
        guard let says = HostIdentity.of(file: path) else {
            return "\(path) says it is no plugin-host (it has no .plugin_host_identity section); install a plugin-host there"
        }
        guard says.supervision == HostIdentity.current.supervision else {
            return "\(path) is plugin-host \(says.version), which speaks supervision protocol \(says.supervision.map(String.init) ?? "none"), "
                + "not \(HostIdentity.current.supervision.map(String.init) ?? "none"); stop this host and start the new one instead"
        }
        return nil
    }

    /// Looks at the file at ``path`` now.
    mutating func onDisk() -> OnDisk {
        guard let identity else { return OnDisk(changed: nil) }
        guard let now = (try? FileStatus(path: path))?.identity else { return OnDisk(changed: true) }
        if now.hasSameContents(as: identity) { return OnDisk(changed: false) }
        if let lastSeen, lastSeen.identity == now { return OnDisk(changed: true, says: lastSeen.says) }
        let says = HostIdentity.of(file: path)
        lastSeen = (now, says)
        return OnDisk(changed: true, says: says)
    }
}
