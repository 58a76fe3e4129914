/// The copies of permanent builds the record keeps, in a directory beside it: the bytes that
/// ran, so that a start can run a permanent build whose file was replaced since (a build on
/// trial, or left out, now in the directory). A copy is the bytes of the file the supervisor
/// holds, never read by the plugin's name, which may name other bytes by then. It is a file
/// of its own: another name of the plugin's file (a hard link) would change that file's
/// change time, which is how a rescan tells a file written in place. The record names each
/// copy by its own identity, and a copy whose identity moved is not used.
struct BuildCopies {
    /// The directory of the copies: `builds-KEY` beside `record-KEY`.
    let directory: String

    init(beside record: RecordFile) {
        self.init(besideRecordAt: record.path)
    }

    /// The copies of the record at `path`.
    init(besideRecordAt path: String) {
        let base = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        let name = path.split(separator: "/").last.map(String.init) ?? "record"
        directory = base + "/" + (name.hasPrefix("record-") ? "builds-" + name.dropFirst("record-".count) : name + ".builds")
    }

    /// Where the copy of `build` is: its plugin's name and a hash of its identity.
    func path(of build: BuildRecord.Build) -> String {
        let identity = build.identity
        let key = "\(identity.device):\(identity.inode):\(identity.size):\(identity.modificationNanoseconds)"
        return directory + "/" + build.name + "-" + FNV1a.hex(key.utf8) + ".so"
    }

    /// The copy of `build`, opened, while it is the copy the record names.
    func open(_ build: BuildRecord.Build) -> ReadOnlyFile? {
        guard let copy = build.copy, let file = try? ReadOnlyFile(path: path(of: build)),
            (try? file.status())?.identity.hasSameContents(as: copy) == true
        else { return nil }
        return file
    }

    /// Gives each permanent build of `record` its copy: the one made before (`before`, checked
    /// when the host started or made since), else a new one made from the file `source` opens
    /// of it, with that file's own identity. A build with neither keeps no copy. The copies are
    /// on disk when it returns.
    ///
    /// - Throws: ``SystemError`` when the directory cannot be made or flushed.
    func keep(
        _ record: inout BuildRecord, made before: [BuildRecord.Build], from source: (BuildRecord.Build) -> (file: ReadOnlyFile, identity: FileIdentity)?
    ) throws(SystemError) {
        var made = false
        let earlier = Dictionary(grouping: before.filter { $0.copy != nil }, by: \.name)
        for index in record.permanent.indices {
            let build = record.permanent[index]
            if let copy = earlier[build.name]?.first(where: { $0.identity.hasSameContents(as: build.identity) })?.copy {
                record.permanent[index].copy = copy
                continue
            }
            guard let (file, identity) = source(build) else { continue }
            if !made { try makeDirectories(directory, private: true) }
            record.permanent[index].copy = copy(file, identity: identity, to: path(of: build))
            made = true
        }
        if made { try flushFileSystem(of: directory) }
    }

    /// Removes the copies `record` does not name.
    func prune(keeping record: BuildRecord) {
        let kept = Set(record.permanent.filter { $0.copy != nil }.map { path(of: $0) })
        for name in (try? directoryEntries(at: directory)) ?? [] where !kept.contains(directory + "/" + name) {
            removeFile(directory + "/" + name)
        }
    }

    /// A copy of `file` (whose identity is `identity`) at `path`: the copy's identity, `nil`
    /// when none could be made, or the file changed while it was read.
    private func copy(_ file: ReadOnlyFile, identity: FileIdentity, to path: String) -> FileIdentity? {
        removeFile(path)
        guard let bytes = try? file.readAll(), (try? file.status())?.identity.hasSameContents(as: identity) == true,
            (try? writePrivateFile(path, bytes: bytes)) != nil
        else {
            removeFile(path)
            return nil
        }
        return try? FileStatus(path: path).identity
    }
}
