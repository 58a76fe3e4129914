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
    /// settings are relative to its directory.
    ///
    /// - Throws: ``Problem`` with code `configuration-invalid`, naming the file and what
    ///   is wrong in it.
    init(contentsOf path: String) throws(Problem) {
        let bytes: [UInt8]
        do {
            bytes = try ReadOnlyFile(path: path).readAll()
        } catch {
            throw Self.invalid(path, "cannot read it: \(error)")
        }
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

    /// The directory of `path`, which is absolute.
    private func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    private static func invalid(_ path: String, _ reason: String) -> Problem {
        Problem(.configurationInvalid, file: path, "configuration file \(path): \(reason)")
    }
}
