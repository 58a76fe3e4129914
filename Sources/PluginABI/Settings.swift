import Synchronization

/// The settings of one plugin, taken from the host's configuration file.
///
/// ```json
/// { "plugins": { "Persistence": { "dataDirectory": "/var/lib/bananas" } } }
/// ```
///
/// A component reads its settings while it bootstraps:
///
/// ```swift
/// let directory = try bootstrapped.settings.string("dataDirectory") ?? defaultDirectory
/// ```
///
/// The typed accessors return `nil` for a missing key and throw ``SettingsError`` when the
/// key holds a value of another type, so that a mistake in the configuration is reported
/// instead of silently replaced by a default.
///
/// The settings remember which keys the component asked for, so that the host can name a
/// key in the file that nobody read (a misspelt one, say) and the key it was probably
/// meant to be.
public struct Settings: Sendable, Hashable {
    /// The plugin these settings belong to, for error messages.
    public let pluginName: String
    private let stored: [String: Setting]
    /// The directory that relative paths in these settings are relative to: the directory
    /// of the configuration file they come from.
    public let baseDirectory: String?
    private let reads = KeysRead()

    /// All values, by key. Reading them counts as reading every key.
    public var values: [String: Setting] {
        reads.readAll()
        return stored
    }

    /// Creates settings for a plugin.
    ///
    /// - Parameters:
    ///   - values: The values, by key.
    ///   - pluginName: The plugin they belong to.
    public init(_ values: [String: Setting] = [:], for pluginName: String = "") {
        self.stored = values
        self.pluginName = pluginName
        self.baseDirectory = nil
    }

    /// Creates settings for a plugin, whose relative paths are relative to `baseDirectory`.
    ///
    /// - Parameters:
    ///   - values: The values, by key.
    ///   - pluginName: The plugin they belong to.
    ///   - baseDirectory: The directory of the configuration file, an absolute path.
    public init(_ values: [String: Setting], for pluginName: String, baseDirectory: String) {
        self.stored = values
        self.pluginName = pluginName
        self.baseDirectory = baseDirectory
    }

    /// The value stored under `key`, if any.
    public subscript(key: String) -> Setting? {
        reads.read(key)
        return stored[key]
    }

    public static func == (lhs: Settings, rhs: Settings) -> Bool {
        lhs.pluginName == rhs.pluginName && lhs.stored == rhs.stored && lhs.baseDirectory == rhs.baseDirectory
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(pluginName)
        hasher.combine(stored)
        hasher.combine(baseDirectory)
    }

    /// The values, without counting as read: for the host.
    package var entries: [String: Setting] { stored }

    /// The keys in the settings that the component has not asked for, in name order; none
    /// once it read ``values`` whole.
    package var keysNotRead: [String] {
        let asked = reads.keys
        return asked.all ? [] : stored.keys.filter { !asked.keys.contains($0) }.sorted()
    }

    /// The keys the component asked for that the settings do not hold: what a key nobody
    /// read may have been meant to be.
    package var keysAskedButAbsent: [String] {
        reads.keys.keys.filter { stored[$0] == nil }.sorted()
    }

    /// The string stored under `key`.
    ///
    /// - Returns: The string, or `nil` when the key is absent or `null`.
    /// - Throws: ``SettingsError`` when the key holds another type.
    public func string(_ key: String) throws(SettingsError) -> String? {
        try value(key, expected: "string") { if case .string(let value) = $0 { value } else { nil } }
    }

    /// The boolean stored under `key`.
    ///
    /// - Returns: The boolean, or `nil` when the key is absent or `null`.
    /// - Throws: ``SettingsError`` when the key holds another type.
    public func bool(_ key: String) throws(SettingsError) -> Bool? {
        try value(key, expected: "boolean") { if case .bool(let value) = $0 { value } else { nil } }
    }

    /// The number stored under `key`.
    ///
    /// - Returns: The number, or `nil` when the key is absent or `null`.
    /// - Throws: ``SettingsError`` when the key holds another type.
    public func number(_ key: String) throws(SettingsError) -> Double? {
        try value(key, expected: "number") { if case .number(let value) = $0 { value } else { nil } }
    }

    /// The whole number stored under `key`.
    ///
    /// - Returns: The number, or `nil` when the key is absent or `null`.
    /// - Throws: ``SettingsError`` when the key holds another type or a fraction.
    public func integer(_ key: String) throws(SettingsError) -> Int? {
        try value(key, expected: "whole number") { setting in
            guard case .number(let value) = setting, value.rounded() == value, abs(value) < 0x1p53 else { return nil }
            return Int(value)
        }
    }

    /// The path stored under `key`, absolute: a relative path is resolved against
    /// ``baseDirectory`` (the configuration file's directory), so that it means the same
    /// whatever the working directory is when it is used.
    ///
    /// - Returns: The path, or `nil` when the key is absent or `null`.
    /// - Throws: ``SettingsError`` when the key holds another type than a string.
    public func path(_ key: String) throws(SettingsError) -> String? {
        guard let path = try string(key) else { return nil }
        guard !path.hasPrefix("/"), let baseDirectory else { return path }
        return baseDirectory.hasSuffix("/") ? baseDirectory + path : baseDirectory + "/" + path
    }

    /// The value under `key` as `extract` reads it: `nil` when absent or `null`, an error
    /// when `extract` cannot read it.
    private func value<Value>(
        _ key: String, expected: String, _ extract: (Setting) -> Value?
    ) throws(SettingsError) -> Value? {
        reads.read(key)
        guard let setting = stored[key], setting != .null else { return nil }
        guard let value = extract(setting) else {
            throw SettingsError(pluginName: pluginName, key: key, expected: expected, found: setting.valueDescription)
        }
        return value
    }
}

/// The keys a component asked for, shared by the copies of one ``Settings``.
private final class KeysRead: Sendable {
    private let state = Mutex<(keys: Set<String>, all: Bool)>(([], false))

    func read(_ key: String) { state.withLock { _ = $0.keys.insert(key) } }
    func readAll() { state.withLock { $0.all = true } }
    var keys: (keys: Set<String>, all: Bool) { state.withLock { $0 } }
}

/// A setting holds a value of another type than the plugin expects.
public struct SettingsError: Error, Hashable, CustomStringConvertible {
    /// The plugin whose settings hold the value.
    public let pluginName: String
    /// The key of the value.
    public let key: String
    /// The type the plugin expects, such as `string`.
    public let expected: String
    /// What the configuration holds instead, such as `the fractional number 200.5`.
    public let found: String

    public var description: String {
        let owner = pluginName.isEmpty ? "" : " of plugin \(pluginName)"
        return "setting \"\(key)\"\(owner) must be a \(expected), but the configuration holds \(found); "
            + "fix it in the file given with --config"
    }
}
