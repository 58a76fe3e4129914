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
