import PluginABI

/// Reading parsed JSON leniently: a member that is missing or of another kind reads as `null`
/// (or `nil`), so that a document of an older or newer writer still reads.
extension Setting {
    subscript(_ key: String) -> Setting {
        if case .object(let members) = self { members[key] ?? .null } else { .null }
    }

    var text: String? {
        if case .string(let value) = self { value } else { nil }
    }

    var number: Double? {
        if case .number(let value) = self { value } else { nil }
    }

    var whole: Int? {
        number.flatMap { $0.isFinite && abs($0) < 1e15 ? Int($0) : nil }
    }

    var bool: Bool? {
        if case .bool(let value) = self { value } else { nil }
    }

    var list: [Setting] {
        if case .array(let values) = self { values } else { [] }
    }
}
