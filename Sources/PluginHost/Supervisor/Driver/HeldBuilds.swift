/// The builds of the plugins a serving generation runs, held open by the supervisor's
/// driver, so that a later generation can load them again after their files were replaced:
/// when an upgrade fails once the generation before has stopped, the builds that ran before
/// come back. Which builds are held is the state machine's decision; this keeps the files.
///
/// A build whose file was written in place cannot come back (the held descriptor reads the
/// new bytes): its contents no longer match, and it is not offered. Replacing or removing
/// the file's name does not matter: the descriptor holds the file itself. A build can also
/// be held from the copy the record keeps of it (``BuildCopies``), whose own identity is not
/// the build's: each held file is checked against the identity it had when it was held.
struct HeldBuilds {
    /// A held build, its file, that file's identity when it was held, and whether the file is
    /// the record's copy of the build.
    private typealias Entry = (build: PublishedPlugin, file: ReadOnlyFile, identity: FileIdentity, fromCopy: Bool)
    private var held: [Entry] = []
    /// Where the held builds of each contents are in ``held``: a lookup costs the builds of
    /// those contents, not every build held.
    private var positions: [FileIdentity: [Int]] = [:]
    /// The build ids read so far, by build.
    private var buildIDs: [FileIdentity: String] = [:]

    /// The build id of each of `builds` that has one, by build: read from the copy the
    /// supervisor holds of it (the bytes that run, whatever became of its name), else from
    /// its file while the file is still that build (a plugin added since the last hold).
    /// Each build's id is read once.
    mutating func buildIDs(of builds: [(identity: FileIdentity, file: String?)]) -> [FileIdentity: String] {
        var found: [FileIdentity: String] = [:]
        for (identity, path) in builds {
            if buildIDs[identity] == nil {
                if let entry = entry(of: nil, identity),
                    (try? entry.file.status())?.identity.hasSameContents(as: entry.identity) == true {
                    buildIDs[identity] = ManifestReader.buildID(of: entry.file) ?? ""
                } else if let path, let file = try? ReadOnlyFile(path: path), (try? file.status())?.identity.hasSameContents(as: identity) == true {
                    buildIDs[identity] = ManifestReader.buildID(of: file) ?? ""
                }
            }
            if let id = buildIDs[identity], !id.isEmpty { found[identity] = id }
        }
        return found
    }

    /// Holds `builds` and lets go of the others. A build held already stays held while its
    /// held file still reads its bytes; another is opened from its file when the file is still
    /// that build, else from the descriptor a live worker keeps of what it loaded
    /// (``LoadedFiles``), so that a file replaced or removed before this hold still comes back
    /// while a worker that loaded it lives, else from the copy the record keeps of it
    /// (`copies`: the copy's file and its own identity, for an operator's rollback to a build
    /// kept from before).
    ///
    /// - Returns: The builds held now.
    mutating func hold(
        _ builds: [PublishedPlugin], loadedBy workers: [ProcessID] = [],
        orFromCopies copies: (PublishedPlugin) -> (file: ReadOnlyFile, identity: FileIdentity)? = { _ in nil }
    ) -> [PublishedPlugin] {
        DescriptorLimit.raise(toAtLeast: UInt64(builds.count + held.count) + 256)
        var next: [Entry] = []
        var loaded: WorkerFiles?
        for build in builds {
            guard let identity = build.identity else { continue }
            // A build held already stays held while its file still reads its bytes.
            if let kept = entry(of: build.name, identity),
                (try? kept.file.status())?.identity.hasSameContents(as: kept.identity) == true {
                next.append(kept)
            } else if let file = try? ReadOnlyFile(path: build.file), (try? file.status())?.identity.hasSameContents(as: identity) == true {
                next.append((build, file, identity, false))
            } else {
                if loaded == nil { loaded = WorkerFiles(of: workers) }
                if let file = loaded?.open(identity) {
                    next.append((build, file, identity, false))
                } else if let copy = copies(build) {
                    next.append((build, copy.file, copy.identity, true))
                }
            }
        }
        holdOnly(next)
        return next.map(\.build)
    }

    /// Holds `build` from `file`, a copy of it whose own identity is `identity`: the record's
    /// copy of a permanent build, held from the start.
    mutating func hold(_ build: PublishedPlugin, fromCopy file: ReadOnlyFile, identity: FileIdentity) {
        if let identity = build.identity, entry(of: build.name, identity) != nil {
            holdOnly(held.filter { !$0.build.isSameBuild(as: build) })
        }
        append((build, file, identity, true))
    }

    /// Every held build, its file and that file's identity when it was held, and whether it
    /// is the record's copy: what a host hands a new host that takes over from it.
    var all: [(build: PublishedPlugin, file: ReadOnlyFile, identity: FileIdentity, fromCopy: Bool)] { held }

    /// Holds `build` from `file`, as the host before held it (``all``), besides what is held.
    mutating func adopt(_ build: PublishedPlugin, file: ReadOnlyFile, identity: FileIdentity, fromCopy: Bool) {
        if let identity = build.identity, entry(of: build.name, identity) != nil { return }
        append((build, file, identity, fromCopy))
    }

    /// Holds `entries`, and nothing held before.
    private mutating func holdOnly(_ entries: [Entry]) {
        held = []
        positions = [:]
        for entry in entries { append(entry) }
    }

    private mutating func append(_ entry: Entry) {
        if let identity = entry.build.identity { positions[identity.ignoringChangeTime, default: []].append(held.count) }
        held.append(entry)
    }

    /// The descriptors of the held files, which a forked process that copies builds keeps.
    var descriptors: Set<Int32> { Set(held.map(\.file.descriptor)) }

    /// The held file of `build`, with its identity, while it still reads that build's bytes.
    func file(of build: PublishedPlugin) -> (file: ReadOnlyFile, identity: FileIdentity)? {
        guard let identity = build.identity, let entry = entry(of: build.name, identity),
            (try? entry.file.status())?.identity.hasSameContents(as: entry.identity) == true
        else { return nil }
        return (entry.file, entry.identity)
    }

    /// Whether `substitute`'s build is held, and its held file reads other bytes now: the file
    /// was written in place since it was held.
    func wasRewritten(_ substitute: BuildSubstitute) -> Bool {
        heldCopy(of: substitute).map { !$0.intact } ?? false
    }

    /// `substitute` with the path a forked worker loads it from, when its build is held and
    /// its held file still has that build's contents; `nil` otherwise.
    func locate(_ substitute: BuildSubstitute) -> BuildSubstitute? {
        guard let copy = heldCopy(of: substitute), copy.intact else { return nil }
        var located = substitute
        located.path = copy.file.pathInForkedProcesses
        located.fromCopy = copy.fromCopy
        return located
    }

    /// The held build of plugin `name` (of any plugin, when `nil`) with `identity`'s contents.
    private func entry(of name: String?, _ identity: FileIdentity) -> Entry? {
        positions[identity.ignoringChangeTime]?.lazy.map { held[$0] }.first { entry in name.map { entry.build.name == $0 } ?? true }
    }

    /// The file held for `substitute`'s build, whether it still reads that build's bytes, and
    /// whether it is the record's copy of the build.
    private func heldCopy(of substitute: BuildSubstitute) -> (file: ReadOnlyFile, intact: Bool, fromCopy: Bool)? {
        guard let entry = entry(of: substitute.name, substitute.identity), let now = try? entry.file.status().identity
        else { return nil }
        return (entry.file, now.hasSameContents(as: entry.identity), entry.fromCopy)
    }
}

/// The files live workers keep open, found by their contents: each `/proc/PID/fd/N` of
/// theirs that is a regular file, read once per hold that needs one.
private struct WorkerFiles {
    private var paths: [FileIdentity: String] = [:]

    init(of workers: [ProcessID]) {
        for worker in workers {
            let directory = "/proc/\(worker)/fd"
            for entry in (try? directoryEntries(at: directory)) ?? [] {
                let path = directory + "/" + entry
                guard let status = try? FileStatus(path: path), status.kind == .regular else { continue }
                paths[status.identity.ignoringChangeTime] = path
            }
        }
    }

    /// The file with `identity`'s contents, opened, when a worker keeps one.
    func open(_ identity: FileIdentity) -> ReadOnlyFile? {
        guard let path = paths[identity.ignoringChangeTime], let file = try? ReadOnlyFile(path: path),
            (try? file.status())?.identity.hasSameContents(as: identity) == true
        else { return nil }
        return file
    }
}
