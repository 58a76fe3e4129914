/// Where a host's control socket is, when `--control` does not say: in a runtime directory
/// of the user's, named after the plugin directories the host serves, so that two hosts of
/// different directories never share one, and `plugin-host status --dir DIR` finds the host
/// that serves DIR.
///
/// The runtime directory is the first of: `$RUNTIME_DIRECTORY` (systemd's
/// `RuntimeDirectory=`), `$XDG_RUNTIME_DIR/plugin-host`, `/run/plugin-host` for root,
/// `/tmp/plugin-host-UID`. The file is `KEY.sock`, KEY the ``ResolvedDirectories/key`` of the
/// directories.
enum ControlPath {
    /// The runtime directories to look in, in order; the host makes its socket in the first.
    static func runtimeDirectories(environment: (String) -> String?, user: UInt32) -> [String] {
        var directories: [String] = []
        if let systemd = environment("RUNTIME_DIRECTORY")?.split(separator: ":").first, !systemd.isEmpty {
            directories.append(String(systemd))
        }
        if let runtime = environment("XDG_RUNTIME_DIR"), runtime.hasPrefix("/") { directories.append(runtime + "/plugin-host") }
        if user == 0 { directories.append("/run/plugin-host") }
        directories.append("/tmp/plugin-host-\(user)")
        return directories
    }

    /// The name of the socket file of a host of `directories`: the key of the directories as
    /// the file system resolves them, which the host's record is named by too.
    static func fileName(for directories: [String], workingDirectory: String = Process.workingDirectory ?? "/") -> String {
        ResolvedDirectories(directories, workingDirectory: workingDirectory).key + ".sock"
    }

    /// Where a host of `directories` makes its control socket.
    static func forHost(of directories: [String], environment: (String) -> String?, user: UInt32) -> String {
        runtimeDirectories(environment: environment, user: user)[0] + "/" + fileName(for: directories)
    }

    /// Where a client looks for the host of `directories`: the first runtime directory that
    /// holds its socket file, else where that host would make it.
    static func forClient(of directories: [String], environment: (String) -> String?, user: UInt32) -> String {
        let name = fileName(for: directories)
        let candidates = runtimeDirectories(environment: environment, user: user).map { $0 + "/" + name }
        return candidates.first { (try? FileStatus(linkAt: $0)) != nil } ?? candidates[0]
    }
}
