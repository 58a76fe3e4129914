import PluginABI

/// The contents of the file given with `--config`: settings per plugin name.
///
/// ```json
/// {
///   "plugins": {
///     "Persistence": { "dataDirectory": "/var/lib/bananas" }
///   }
/// }
/// ```
struct Configuration: Equatable {
    /// The settings of each plugin named in the file.
    var settings: [String: Settings] = [:]

    init(settings: [String: Settings] = [:]) {
        self.settings = settings
    }

    /// Reads the configuration file at `path`, an absolute path: relative paths in the
    /// settings are relative to its directory. A pipe (`/dev/stdin`, `<(...)`) is read to
    /// its end.
    ///
    /// - Throws: ``Problem`` with code `configuration-invalid`, naming the file and what
    ///   is wrong in it.
    init(contentsOf path: String) throws(Problem) {
        try self.init(path: path, bytes: Self.read(path))
    }

    /// The contents of the file at `path`, read to the end, as ``init(path:bytes:)`` takes
    /// them: for a file that can be read only once, such as a pipe.
    ///
    /// - Throws: ``Problem`` with code `configuration-invalid` when it cannot be read.
    static func read(_ path: String) throws(Problem) -> [UInt8] {
        do {
            return try ReadOnlyFile(path: path).readToEnd(limit: 64 << 20)
        } catch {
            throw invalid(path, "cannot read it: \(error)")
        }
    }

    /// Whether the file at `path` can be read again later (a regular file), unlike a pipe,
    /// a socket or a terminal, whose contents are gone once read.
    static func canBeReadAgain(_ path: String) -> Bool {
        (try? FileStatus(path: path))?.kind != .other
    }

    /// Parses `bytes`, the contents of the configuration file at `path`.
    ///
    /// - Throws: ``Problem`` with code `configuration-invalid`, naming the file and what
    ///   is wrong in it.
    init(path: String, bytes: [UInt8]) throws(Problem) {
        let document: Setting
        do {
            document = try JSONParser.parse(bytes)
        } catch {
            throw Self.invalid(path, "not valid JSON: \(error)")
        }
        guard case .object(let top) = document else {
            throw Self.invalid(path, "it must hold a JSON object, found \(document.typeName)")
        }
        for key in top.keys.sorted() where key != "plugins" {
            throw Self.invalid(path, "unknown key \"\(key.debugEscaped)\"; settings go under \"plugins\", by plugin name")
        }
        switch top["plugins"] {
        case nil, .null?:
            break
        case .object(let plugins)?:
            for (name, value) in plugins {
                guard case .object(let values) = value else {
                    throw Self.invalid(path, "the settings of plugin \"\(name.debugEscaped)\" must be an object, found \(value.typeName)")
                }
                settings[name] = Settings(values, for: name, baseDirectory: directory(of: path))
            }
        case let other?:
            throw Self.invalid(path, "\"plugins\" must be an object of settings by plugin name, found \(other.typeName)")
        }
    }

    /// Warnings for the settings of plugins that are not in `directory`: none of `found`
    /// (the plugins found there, running or not), with the name probably meant.
    func unknownPluginWarnings(found: Set<String>, in directory: String, file: String) -> [String] {
        settings.keys.sorted().filter { !found.contains($0) }.map { name in
            "configuration file \(file) has settings for plugin \(name.debugEscaped), which is not in \(directory); "
                + (Spelling.closest(to: name, among: found).map { "did you mean \($0)?" } ?? "check the spelling")
        }
    }

    /// Warnings for the settings of plugins that declare their keys in their manifests
    /// (`"settings"`): each key the configuration gives one that it does not declare, with
    /// the declared key it was probably meant to be. Known before any plugin code runs.
    func undeclaredKeyWarnings(of plugins: [(name: String, declared: [String]?)], file: String) -> [String] {
        plugins.flatMap { plugin -> [String] in
            guard let declared = plugin.declared, let given = settings[plugin.name]?.entries else { return [] }
            return given.keys.sorted().filter { !declared.contains($0) }.map { key in
                "configuration file \(file): plugin \(plugin.name) has no setting \"\(key.debugEscaped)\" (it reads "
                    + (declared.isEmpty ? "none" : declared.map { "\"\($0)\"" }.joined(separator: ", ")) + "); "
                    + (Spelling.closest(to: key, among: declared).map { "did you mean \"\($0)\"?" } ?? "check the spelling, or remove it")
            }
        }
    }

    /// Warnings for the settings of `plugins` once their components have read them `when`
    /// (`while it bootstrapped`): keys a plugin declares none of (``undeclaredKeyWarnings``),
    /// and for a plugin that declares no keys, keys it did not read that look misspelt
    /// (``misspeltKeyWarnings``).
    func keyWarnings(of plugins: [(name: String, declared: [String]?)], file: String, while when: String) -> [String] {
        undeclaredKeyWarnings(of: plugins, file: file)
            + Self.misspeltKeyWarnings(settings, of: plugins.filter { $0.declared == nil }.map(\.name), file: file, while: when)
    }

    /// Warnings for the keys of `settings` that `plugins` (which do not declare their keys)
    /// did not read `when` (`while it bootstrapped`) and that look like a misspelling of a
    /// key they asked for and did not find: they used their defaults instead.
    static func misspeltKeyWarnings(_ settings: [String: Settings], of plugins: [String], file: String, while when: String) -> [String] {
        plugins.flatMap { name -> [String] in
            guard let settings = settings[name] else { return [] }
            return settings.keysNotRead.compactMap { key in
                Spelling.closest(to: key, among: settings.keysAskedButAbsent).map { meant in
                    "configuration file \(file): plugin \(name) did not read setting \"\(key.debugEscaped)\" \(when); "
                        + "did you mean \"\(meant)\"? (it used its default for \"\(meant)\")"
                }
            }
        }
    }

    /// The directory of `path`, which is absolute.
    private func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    private static func invalid(_ path: String, _ reason: String) -> Problem {
        Problem(.configurationInvalid, file: path, "configuration file \(path): \(reason)")
    }
}
