/// One value of a plugin's configuration: the JSON data model.
///
/// The host reads the `--config` file and gives each component the object stored under
/// its plugin's name as ``Settings``; each value in it is a `Setting`.
@frozen
public enum Setting: Sendable, Hashable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([Setting])
    case object([String: Setting])

    /// This value as an error message names it: `the fractional number 200.5`, `the string
    /// "200"`, `true`, `null`, `an object`, `an array of 3 values`.
    public var valueDescription: String {
        switch self {
        case .null: return "null"
        case .bool(let value): return value ? "true" : "false"
        case .number(let value):
            guard value.isFinite, value.rounded() != value else { return "the number \(Self.text(of: value))" }
            return "the fractional number \(Self.text(of: value))"
        case .string(let value):
            let shown = value.count > 40 ? String(value.prefix(40)) + "..." : value
            return "the string \"\(shown)\""
        case .array(let values): return values.isEmpty ? "an empty array" : "an array of \(values.count) value\(values.count == 1 ? "" : "s")"
        case .object: return "an object"
        }
    }

    private static func text(of number: Double) -> String {
        number.rounded() == number && abs(number) < 1e15 ? String(Int64(number)) : String(number)
    }

    /// The name of the JSON type of this value, for error messages.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}

extension Setting: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByStringLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: Setting...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, Setting)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
