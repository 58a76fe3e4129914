/// Which plugin files and directories the host is willing to load code from.
///
/// The host runs plugin code with the rights of the user who runs it, so it applies the
/// rule sshd's `StrictModes` applies to `authorized_keys`: the plugin directory and each
/// plugin file must belong to that user or to root, and must not be writable by group or
/// others. A plugin file must be a regular file; a symbolic link is followed only when it
/// resolves inside the plugin directory. `--allow-any-owner` lifts the ownership rule for
/// development trees; the rest always holds.
struct FileTrust {
    /// Accept files and directories owned by any user.
    var allowAnyOwner = false
    /// The user the host runs as.
    var user: UInt32 = currentUser

    /// Why the plugin directory at `path` cannot be trusted, or `nil` when it can.
    func problem(withDirectory path: String, status: FileStatus) -> String? {
        guard status.kind == .directory else { return "it is not a directory" }
        return problem(withOwnerAndMode: status, path: path, noun: "directory")
    }

    /// Why the symbolic link `path` cannot be followed, or `nil` when it resolves inside
    /// the plugin directory.
    ///
    /// - Parameter directory: The resolved (absolute, link-free) path of the plugin directory.
    func problem(withLink path: String, inResolvedDirectory directory: String) -> String? {
        do {
            let target = try resolvedPath(path)
            guard target.hasPrefix(directory + "/") else {
                return "it is a symbolic link to \(target), outside the plugin directory; copy the plugin into the directory instead"
            }
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// Why the plugin file at `path`, whose status (of the file opened, links followed) is
    /// `status`, cannot be trusted, or `nil` when it can.
    func problem(withFile path: String, status: FileStatus) -> String? {
        guard status.kind == .regular else {
            return "it is not a regular file (\(status.kind == .directory ? "a directory" : "a device, FIFO or socket")); only regular files are loaded"
        }
        return problem(withOwnerAndMode: status, path: path, noun: "file")
    }

    private func problem(withOwnerAndMode status: FileStatus, path: String, noun: String) -> String? {
        if status.permissions & 0o022 != 0 {
            let who = status.permissions & 0o020 != 0 ? (status.permissions & 0o002 != 0 ? "group and others" : "its group") : "others"
            return "the \(noun) is writable by \(who) (mode \(String(status.permissions, radix: 8))), so anyone in it could "
                + "replace the code the host runs; fix it with: chmod go-w \(path)"
        }
        if !allowAnyOwner && status.owner != user && status.owner != 0 {
            return "the \(noun) is owned by user \(status.owner), not by user \(user) who runs the host, nor by root; "
                + "fix it with chown, or pass --allow-any-owner for a development tree"
        }
        return nil
    }
}
