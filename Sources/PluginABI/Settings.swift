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
public struct Settings: Sendable, Hashable {
    /// The plugin these settings belong to, for error messages.
    public let pluginName: String
    /// All values, by key.
    public let values: [String: Setting]
    /// The directory that relative paths in these settings are relative to: the directory
    /// of the configuration file they come from.
    public let baseDirectory: String?

    /// Creates settings for a plugin.
    ///
    /// - Parameters:
    ///   - values: The values, by key.
    ///   - pluginName: The plugin they belong to.
    public init(_ values: [String: Setting] = [:], for pluginName: String = "") {
        self.values = values
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
        self.values = values
        self.pluginName = pluginName
        self.baseDirectory = baseDirectory
    }

    /// The value stored under `key`, if any.
    public subscript(key: String) -> Setting? { values[key] }

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
        guard let setting = values[key], setting != .null else { return nil }
        guard let value = extract(setting) else {
            throw SettingsError(pluginName: pluginName, key: key, expected: expected, found: setting.typeName)
        }
        return value
    }
}

/// A setting holds a value of another type than the plugin expects.
public struct SettingsError: Error, Hashable, CustomStringConvertible {
    /// The plugin whose settings hold the value.
    public let pluginName: String
    /// The key of the value.
    public let key: String
    /// The type the plugin expects, such as `string`.
    public let expected: String
    /// The JSON type found, such as `number`.
    public let found: String

    public var description: String {
        let owner = pluginName.isEmpty ? "" : " of plugin \(pluginName)"
        return "setting \"\(key)\"\(owner) must be a \(expected), but the configuration holds a \(found); "
            + "fix it in the file given with --config"
    }
}
