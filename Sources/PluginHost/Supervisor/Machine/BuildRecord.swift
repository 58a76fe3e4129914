/// What the host proved about builds, kept on disk so that it outlives the process that
/// proved it: the builds left out, each with why; the builds that are permanent, each with a
/// copy the driver keeps, so that one can run again after its file was replaced; and the
/// builds on trial. The supervisor reads it when it starts: the machine leaves out what it
/// leaves out, runs the permanent build in place of a file it leaves out, and tries a build
/// that was on trial again as an upgrade once the host serves, rather than run it as
/// permanent. Whenever what it holds changes, the machine says what to keep
/// (``SupervisionAction/keepRecord(_:)``) and the driver writes it.
struct BuildRecord: Equatable, Sendable {
    /// A build left out: its plugin, its file and version as they were, its contents (by
    /// identity: the same device, inode, size and modification time), and why.
    struct LeftOut: Equatable, Sendable {
        let name: String
        /// An absolute path once kept on disk.
        var file: String
        let version: String
        let identity: FileIdentity
        let reason: LeaveOutReason
        /// When the record first kept it, in seconds since 1970: the driver's business, `nil`
        /// in what the machine says to keep.
        var since: Int64? = nil
        /// Whether its file still holds it, as a start reads the record: one that does not is
        /// kept left out for its copy alone, and the start does not name it.
        var inDirectory = true
    }

    /// A build that served: its plugin, its file and version as they were, its contents.
    struct Build: Equatable, Sendable {
        let name: String
        /// An absolute path once kept on disk.
        var file: String
        let version: String
        let identity: FileIdentity
        /// The copy of its bytes the driver keeps in the state directory, by the copy's own
        /// identity: the driver's business, `nil` in what the machine says to keep.
        var copy: FileIdentity?
        /// When the record first kept it as it is (permanent, or on trial), in seconds since
        /// 1970: the driver's business, `nil` in what the machine says to keep.
        var since: Int64?

        init(name: String, file: String, version: String, identity: FileIdentity, copy: FileIdentity? = nil, since: Int64? = nil) {
            self.name = name
            self.file = file
            self.version = version
            self.identity = identity
            self.copy = copy
            self.since = since
        }

        init(_ build: PublishedPlugin, identity: FileIdentity) {
            self.init(name: build.name, file: build.file, version: build.version, identity: identity)
        }

        /// The build as a generation's plan and the ledger name it.
        var published: PublishedPlugin {
            PublishedPlugin(name: name, file: file, version: version, identity: identity, state: .running)
        }
    }

    /// The builds left out, the newest last.
    var leftOut: [LeftOut] = []
    /// The builds that became permanent, of each plugin the newest last: the last of a plugin
    /// is the one a start runs in place of a file it does not run as permanent.
    var permanent: [Build] = []
    /// The builds on trial when it was written.
    var onTrial: [Build] = []

    /// How many builds left out the record keeps of each plugin: the newest. A build stays
    /// left out until its file changes, so an older one is a file long replaced.
    static let leftOutPerPlugin = 8
    /// How many permanent builds the record keeps of each plugin, each with a copy: the newest.
    static let permanentPerPlugin = 3
}

extension BuildRecord {
    /// The record as a start takes it: a build left out stays out while it can still be loaded,
    /// from its file (`fileHolds`) or as a permanent build the record keeps; a build whose file
    /// holds another build now, and that the record keeps no copy of, is forgotten. A build on
    /// trial is tried again only while its file holds it.
    ///
    /// - Parameter fileHolds: Whether the file of the build of a plugin with that name holds
    ///   these contents now.
    func forgettingChangedFiles(_ fileHolds: (_ name: String, _ file: String, _ identity: FileIdentity) -> Bool) -> BuildRecord {
        var record = self
        record.leftOut.removeAll { build in
            !fileHolds(build.name, build.file, build.identity)
                && !permanent.contains { $0.name == build.name && $0.identity.hasSameContents(as: build.identity) }
        }
        for index in record.leftOut.indices {
            record.leftOut[index].inDirectory = fileHolds(record.leftOut[index].name, record.leftOut[index].file, record.leftOut[index].identity)
        }
        record.onTrial.removeAll { build in !fileHolds(build.name, build.file, build.identity) }
        return record
    }
}

extension BuildRecord {
    /// One build the record holds, with its one life.
    struct Entry: Equatable, Sendable {
        let name: String
        let file: String
        let version: String
        let identity: FileIdentity
        let life: BuildLife
        /// When the record first kept it so, in seconds since 1970, when the driver said.
        let since: Int64?
        /// Whether the driver keeps a copy of its bytes, so that it can run again after its
        /// file was replaced.
        let copy: Bool
    }

    /// Every build the record holds, each once with its life (``BuildLife/lives(onTrial:permanent:leftOut:isSame:)``),
    /// by plugin: those with a permanent build first, in the order the record keeps them.
    var entries: [Entry] {
        var plugins: [String] = []
        for name in permanent.map(\.name) + onTrial.map(\.name) + leftOut.map(\.name) where !plugins.contains(name) {
            plugins.append(name)
        }
        return plugins.flatMap(entries(of:))
    }

    /// The builds of plugin `name` the record holds, each once with its life.
    func entries(of name: String) -> [Entry] {
        let permanent = self.permanent.filter { $0.name == name }
        let leftOut = self.leftOut.filter { $0.name == name }
        let lives = BuildLife.lives(
            onTrial: onTrial.filter { $0.name == name }.map(\.identity), permanent: permanent.map(\.identity),
            leftOut: leftOut.map { ($0.identity, $0.reason) }, isSame: { $0.hasSameContents(as: $1) })
        return lives.compactMap { identity, life in
            let kept = permanent.last { $0.identity.hasSameContents(as: identity) }
            let copy = kept?.copy != nil
            if case .leftOut = life, let build = leftOut.last(where: { $0.identity.hasSameContents(as: identity) }) {
                return Entry(name: name, file: build.file, version: build.version, identity: identity, life: life, since: build.since, copy: copy)
            }
            guard let build = onTrial.first(where: { $0.name == name && $0.identity.hasSameContents(as: identity) }) ?? kept else { return nil }
            return Entry(name: name, file: build.file, version: build.version, identity: identity, life: life, since: build.since, copy: copy)
        }
    }
}
