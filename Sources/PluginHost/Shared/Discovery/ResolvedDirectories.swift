/// The plugin directories of a host as the file system names them: each made absolute from
/// the working directory, then resolved (symbolic links, `.`, `..`, repeated and trailing
/// slashes), each once, in order. `--dir /srv/p`, `--dir /srv/p/`, `--dir ./p` from `/srv`
/// and `--dir /srv/link-to-p` are one set of directories, with one ``key``: the name of its
/// record of what the host proved and of its control socket.
///
/// A directory that does not exist (yet) is resolved by its text alone: `.`, `..` and
/// slashes.
struct ResolvedDirectories: Equatable, Sendable {
    /// The directories, absolute and resolved, each once.
    let paths: [String]

    init(_ directories: [String], workingDirectory: String) {
        var paths: [String] = []
        for directory in directories {
            let path = Self.resolve(directory, in: workingDirectory)
            if !paths.contains(path) { paths.append(path) }
        }
        self.paths = paths
    }

    /// Sixteen hexadecimal digits naming these directories, whatever their spelling.
    var key: String { FNV1a.hex(paths.joined(separator: "\n").utf8) }

    /// `path` as the file system names it: absolute (a relative one read from
    /// `workingDirectory`), every symbolic link, `.` and `..` resolved; by its text alone when
    /// it does not exist.
    static func resolve(_ path: String, in workingDirectory: String) -> String {
        let absolute = path.hasPrefix("/") ? path : workingDirectory + "/" + path
        return (try? resolvedPath(absolute)) ?? normalized(absolute)
    }

    /// `file` with its directory resolved, its own name kept (a plugin file that is a
    /// symbolic link is named as the directory holds it).
    static func resolveFile(_ file: String, in workingDirectory: String) -> String {
        let absolute = normalized(file.hasPrefix("/") ? file : workingDirectory + "/" + file)
        guard let slash = absolute.lastIndex(of: "/"), slash != absolute.startIndex else { return absolute }
        let directory = resolve(String(absolute[..<slash]), in: "/")
        return (directory == "/" ? "" : directory) + absolute[slash...]
    }

    /// An absolute path with `.`, `..` and repeated or trailing slashes taken out by its text.
    static func normalized(_ absolute: String) -> String {
        var components: [Substring] = []
        for component in absolute.split(separator: "/") {
            switch component {
            case ".": continue
            case "..": _ = components.popLast()
            default: components.append(component)
            }
        }
        return "/" + components.joined(separator: "/")
    }
}
