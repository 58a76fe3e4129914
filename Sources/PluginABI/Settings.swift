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

    /// Creates settings for a plugin.
    ///
    /// - Parameters:
    ///   - values: The values, by key.
    ///   - pluginName: The plugin they belong to.
    public init(_ values: [String: Setting] = [:], for pluginName: String = "") {
        self.values = values
        self.pluginName = pluginName
    }

    /// The value stored under `key`, if any.
    public subscript(key: String) -> Setting? { values[key] }

    /// The string stored under `key`.
    ///
    /// - Returns: The string, or `nil` when the key is absent or `null`.
    /// - Throws: ``SettingsError`` when the key holds another type.
    public func string(_ key: String) throws(SettingsError) -> String? {
        switch values[key] {
        case nil, .null?: return nil
        case .string(let value)?: return value
        case let other?: throw mismatch(key, expected: "string", found: other)
        }
    }

    /// The boolean stored under `key`.
    ///
    /// - Returns: The boolean, or `nil` when the key is absent or `null`.
    /// - Throws: ``SettingsError`` when the key holds another type.
    public func bool(_ key: String) throws(SettingsError) -> Bool? {
        switch values[key] {
        case nil, .null?: return nil
        case .bool(let value)?: return value
        case let other?: throw mismatch(key, expected: "boolean", found: other)
        }
    }

    /// The number stored under `key`.
    ///
    /// - Returns: The number, or `nil` when the key is absent or `null`.
    /// - Throws: ``SettingsError`` when the key holds another type.
    public func number(_ key: String) throws(SettingsError) -> Double? {
        switch values[key] {
        case nil, .null?: return nil
        case .number(let value)?: return value
        case let other?: throw mismatch(key, expected: "number", found: other)
        }
    }

    /// The whole number stored under `key`.
    ///
    /// - Returns: The number, or `nil` when the key is absent or `null`.
    /// - Throws: ``SettingsError`` when the key holds another type or a fraction.
    public func integer(_ key: String) throws(SettingsError) -> Int? {
        switch values[key] {
        case nil, .null?: return nil
        case .number(let value)? where value.rounded() == value && abs(value) < 0x1p53:
            return Int(value)
        case let other?: throw mismatch(key, expected: "whole number", found: other)
        }
    }

    private func mismatch(_ key: String, expected: String, found: Setting) -> SettingsError {
        SettingsError(pluginName: pluginName, key: key, expected: expected, found: found.typeName)
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
