#if !STANDALONE_SIMULATOR
@testable import PluginHost
#endif

/// The ways an operator and a unit file spell the one plugin directory of the simulated host:
/// its path, with a trailing slash, with `.` and `..`, relative to a working directory, and
/// through a symbolic link. They are spellings of a real directory, made once in /tmp, so that
/// the driver's resolution of them is the file system's.
///
/// The world starts each host (the first, and each after its supervisor is killed) with one of
/// them, and has each operator's request ask with one: the truth is that they are one
/// directory, so each start must find the record the host before kept, and each request the
/// host's control socket.
struct DirectorySpelling: CustomStringConvertible {
    /// `--dir` as given.
    let directory: String
    /// Where the command runs.
    let workingDirectory: String

    var description: String { "--dir \(directory) from \(workingDirectory)" }

    /// The spellings, of `ROOT/srv/p`: the directory made, with `ROOT/srv/sub` beside it and
    /// `ROOT/link` a symbolic link to it.
    static let all: [DirectorySpelling] = {
        let root = "/tmp/plugin-host-simulated-directory-\(currentUser)"
        try? makeDirectories(root + "/srv/p")
        try? makeDirectories(root + "/srv/sub")
        try? makeSymbolicLink(root + "/link", to: "srv/p")
        let srv = root + "/srv"
        return [
            DirectorySpelling(directory: srv + "/p", workingDirectory: "/"),
            DirectorySpelling(directory: srv + "/p/", workingDirectory: "/"),
            DirectorySpelling(directory: srv + "/./p", workingDirectory: "/"),
            DirectorySpelling(directory: srv + "/sub/../p", workingDirectory: "/"),
            DirectorySpelling(directory: "./p", workingDirectory: srv),
            DirectorySpelling(directory: "p", workingDirectory: srv),
            DirectorySpelling(directory: root + "/link", workingDirectory: "/"),
            DirectorySpelling(directory: "../link/", workingDirectory: srv),
        ]
    }()

    /// The key the driver names the record of these directories by.
    var recordKey: String { ResolvedDirectories([directory], workingDirectory: workingDirectory).key }

    /// The name of the control socket a host of this spelling makes, or a client looks for.
    var socketName: String { ControlPath.fileName(for: [directory], workingDirectory: workingDirectory) }
}
