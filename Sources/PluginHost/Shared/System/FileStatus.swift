#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("plugin-host runs on Linux: it needs Glibc or Musl")
#endif

/// What `stat(2)` says about a file.
struct FileStatus: Equatable {
    enum Kind: Equatable {
        case regular, directory, symbolicLink, other
    }

    let kind: Kind
    private(set) var device: UInt64
    private(set) var inode: UInt64
    private(set) var size: Int64
    let permissions: UInt32
    let owner: UInt32
    private(set) var modificationTime: Double
    /// When the contents or the status last changed (`st_ctim`), in nanoseconds: no one
    /// but the kernel sets it, so with the inode and size it tells whether a file changed.
    private(set) var changeNanoseconds: Int64
    private(set) var modificationNanoseconds: Int64

    /// The status of the file at `path`, following symbolic links.
    ///
    /// - Throws: ``SystemError`` when the file cannot be examined.
    init(path: String) throws(SystemError) {
        var raw = stat()
        guard stat(path, &raw) == 0 else { throw SystemError("stat", path: path) }
        self.init(raw)
    }

    /// The status of the file at `path` itself, not following a symbolic link.
    ///
    /// - Throws: ``SystemError`` when the file cannot be examined.
    init(linkAt path: String) throws(SystemError) {
        var raw = stat()
        guard lstat(path, &raw) == 0 else { throw SystemError("stat", path: path) }
        self.init(raw)
    }

    /// The status of an open file.
    init(descriptor: Int32, path: String) throws(SystemError) {
        var raw = stat()
        guard fstat(descriptor, &raw) == 0 else { throw SystemError("fstat", path: path) }
        self.init(raw)
    }

    private init(_ raw: stat) {
        switch raw.st_mode & S_IFMT {
        case S_IFREG: kind = .regular
        case S_IFDIR: kind = .directory
        case S_IFLNK: kind = .symbolicLink
        default: kind = .other
        }
        device = UInt64(raw.st_dev)
        inode = UInt64(raw.st_ino)
        size = Int64(raw.st_size)
        permissions = UInt32(raw.st_mode & 0o7777)
        owner = UInt32(raw.st_uid)
        modificationTime = Double(raw.st_mtim.tv_sec) + Double(raw.st_mtim.tv_nsec) / 1e9
        modificationNanoseconds = Int64(raw.st_mtim.tv_sec) * 1_000_000_000 + Int64(raw.st_mtim.tv_nsec)
        changeNanoseconds = Int64(raw.st_ctim.tv_sec) * 1_000_000_000 + Int64(raw.st_ctim.tv_nsec)
    }

    /// This status as the build `identity` has it: a copy of a build, held in its place, is that
    /// build to every comparison (its kind, permissions and owner stay the copy's).
    func standing(for identity: FileIdentity) -> FileStatus {
        var status = self
        status.device = identity.device
        status.inode = identity.inode
        status.size = identity.size
        status.modificationNanoseconds = identity.modificationNanoseconds
        status.modificationTime = Double(identity.modificationNanoseconds) / 1e9
        status.changeNanoseconds = identity.changeNanoseconds
        return status
    }

    /// Whether `other` is the same file (same device and inode).
    func isSameFile(as other: FileStatus) -> Bool {
        device == other.device && inode == other.inode
    }

    /// Which file this is, and which of its versions: what changes whenever the file is
    /// replaced or written.
    var identity: FileIdentity {
        FileIdentity(
            device: device, inode: inode, size: size, modificationNanoseconds: modificationNanoseconds,
            changeNanoseconds: changeNanoseconds)
    }
}

/// One version of one file: its device and inode, size, and modification and change times.
/// A file replaced by `install` or `mv` has another inode; one written in place has
/// another change time (which only the kernel sets), whatever its size and modification
/// time say.
struct FileIdentity: Hashable, Sendable {
    let device: UInt64
    let inode: UInt64
    let size: Int64
    let modificationNanoseconds: Int64
    let changeNanoseconds: Int64

    /// Whether `other` is the same file with the same contents, whatever happened to its
    /// names: removing or replacing a name changes a file's change time, not its contents.
    func hasSameContents(as other: FileIdentity) -> Bool {
        device == other.device && inode == other.inode && size == other.size && modificationNanoseconds == other.modificationNanoseconds
    }

    /// This identity with no change time: a key under which every name of these contents is equal.
    var ignoringChangeTime: FileIdentity {
        FileIdentity(device: device, inode: inode, size: size, modificationNanoseconds: modificationNanoseconds, changeNanoseconds: 0)
    }
}

/// The absolute path of `path` with every symbolic link, `.` and `..` resolved.
///
/// - Throws: ``SystemError`` when a component does not exist or cannot be read.
func resolvedPath(_ path: String) throws(SystemError) -> String {
    guard let resolved = realpath(path, nil) else { throw SystemError("resolve", path: path) }
    defer { free(resolved) }
    return String(cString: resolved)
}

/// The user the host runs as (its effective user id).
var currentUser: UInt32 { UInt32(geteuid()) }
