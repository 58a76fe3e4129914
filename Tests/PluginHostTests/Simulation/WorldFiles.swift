#if !STANDALONE_SIMULATOR
@testable import PluginHost
#endif

/// The files of the simulated machine: the plugin directory (each plugin's file, an inode
/// with an identity and a behaviour), and the copies the driver keeps of permanent builds
/// beside its record. Files outlive every supervisor.
struct WorldFiles {
    /// A file: what `stat` says of it, and how the build it holds behaves.
    struct Inode {
        var identity: FileIdentity
        var build: FaultOperation.Build
    }

    /// Every file, by inode number.
    var inodes: [UInt64: Inode] = [:]
    /// The inode at each plugin's file; `nil` when removed.
    var paths: [UInt64?]
    private(set) var nextInode: UInt64 = 100
    private(set) var nextStamp: Int64 = 1_000
    /// The copies the record keeps of permanent builds, as the driver keeps them: the file of each.
    var copies: [WorldTruth.Build: UInt64] = [:]
    /// Every file that was made as a copy, kept by the record now or not.
    private(set) var copyFiles: Set<UInt64> = []

    /// A directory with a good build of each of `plugins` plugins.
    init(plugins: Int) {
        paths = Array(repeating: nil, count: plugins)
        for plugin in 0..<plugins { paths[plugin] = newInode(.good) }
    }

    /// A new file holding a build that behaves as `build`, with contents of its own.
    ///
    /// - Returns: Its inode number.
    mutating func newInode(_ build: FaultOperation.Build) -> UInt64 {
        nextInode += 1
        nextStamp += 1
        inodes[nextInode] = Inode(
            identity: FileIdentity(device: 1, inode: nextInode, size: 5_000 + nextStamp, modificationNanoseconds: nextStamp, changeNanoseconds: nextStamp),
            build: build)
        return nextInode
    }

    /// A copy of a build whose contents are `identity`'s, behaving as `build`.
    ///
    /// - Returns: Its inode number.
    mutating func newCopy(of identity: FileIdentity, behaving build: FaultOperation.Build) -> UInt64 {
        nextInode += 1
        inodes[nextInode] = Inode(identity: identity, build: build)
        copyFiles.insert(nextInode)
        return nextInode
    }

    /// The file `inode` is written in place with a build that behaves as `build`: new
    /// contents under the same inode.
    mutating func rewriteInPlace(_ inode: UInt64, with build: FaultOperation.Build) {
        nextStamp += 1
        inodes[inode]?.identity = FileIdentity(
            device: 1, inode: inode, size: 5_000 + nextStamp, modificationNanoseconds: nextStamp, changeNanoseconds: nextStamp)
        inodes[inode]?.build = build
    }

    /// A name of the file was replaced or removed: its change time moves, not its contents.
    mutating func touchChangeTime(_ inode: UInt64) {
        nextStamp += 1
        guard let identity = inodes[inode]?.identity else { return }
        inodes[inode]?.identity = FileIdentity(
            device: identity.device, inode: identity.inode, size: identity.size, modificationNanoseconds: identity.modificationNanoseconds,
            changeNanoseconds: nextStamp)
    }

    /// The build at `plugin`'s file now, if there is one that is a plugin.
    func buildOnDisk(_ plugin: Int) -> (build: WorldTruth.Build, behaviour: FaultOperation.Build)? {
        guard let inode = paths[plugin], let file = inodes[inode] else { return nil }
        return (WorldTruth.Build(plugin: plugin, identity: file.identity), file.build)
    }
}
