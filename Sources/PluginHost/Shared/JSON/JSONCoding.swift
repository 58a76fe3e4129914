import PluginABI

/// `Codable` values to and from JSON without Foundation: a document type declares its fields
/// once, as Swift properties, and both the side that writes it and the side that reads it go
/// through that type. Object keys keep the order the properties are declared in; an optional
/// that is `nil` is written as `null` (readers of our documents tell "known and empty" from
/// "not in this version" by the key, not by its absence). Reading takes a missing key of an
/// optional as `nil`, so a document from an older host still reads.
enum JSONCoding {
    /// `value` as JSON.
    static func encode<Value: Encodable>(_ value: Value) throws(JSONCodingError) -> JSONOutput {
        let root = EncodedNode()
        do {
            try value.encode(to: NodeEncoder(node: root, codingPath: []))
        } catch let error as JSONCodingError {
            throw error
        } catch {
            throw JSONCodingError(path: [], problem: "\(error)")
        }
        return root.output
    }

    /// A document as JSON, for types made only of strings, numbers, booleans, optionals and
    /// lists of them, which always encode: `null` if one ever did not.
    static func document<Value: Encodable>(_ value: Value) -> JSONOutput {
        (try? encode(value)) ?? .null
    }

    /// A value of `type` read from parsed JSON.
    static func decode<Value: Decodable>(_ type: Value.Type, from json: Setting) throws(JSONCodingError) -> Value {
        do {
            return try Value(from: SettingDecoder(value: json, codingPath: []))
        } catch let error as JSONCodingError {
            throw error
        } catch {
            throw JSONCodingError(path: [], problem: "\(error)")
        }
    }
}

/// A document that does not have the shape its type reads: where, and what is wrong.
struct JSONCodingError: Error, CustomStringConvertible {
    let path: [String]
    let problem: String

    init(path: [any CodingKey], problem: String) {
        self.path = path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
        self.problem = problem
    }

    var description: String {
        guard !path.isEmpty else { return problem }
        // `plugins[2].build.size`
        let place = path.enumerated().map { $0.offset == 0 || $0.element.hasPrefix("[") ? $0.element : "." + $0.element }.joined()
        return "at \(place): \(problem)"
    }
}

// MARK: Writing

/// A value being written: filled in by whichever container its `encode(to:)` asks for.
private final class EncodedNode {
    enum Content {
        case unset
        case value(JSONOutput)
        case object([(String, EncodedNode)])
        case array([EncodedNode])
    }

    var content = Content.unset

    var output: JSONOutput {
        switch content {
        case .unset: .null
        case .value(let value): value
        case .object(let members): .object(members.map { ($0.0, $0.1.output) })
        case .array(let elements): .array(elements.map(\.output))
        }
    }

    /// The member `key` of this object, made if new.
    func member(_ key: String) -> EncodedNode {
        guard case .object(var members) = content else {
            let node = EncodedNode()
            content = .object([(key, node)])
            return node
        }
        if let existing = members.first(where: { $0.0 == key }) { return existing.1 }
        let node = EncodedNode()
        members.append((key, node))
        content = .object(members)
        return node
    }

    func appended() -> EncodedNode {
        let node = EncodedNode()
        if case .array(let elements) = content { content = .array(elements + [node]) } else { content = .array([node]) }
        return node
    }
}

private struct NodeEncoder: Encoder {
    let node: EncodedNode
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .object = node.content {} else { node.content = .object([]) }
        return KeyedEncodingContainer(KeyedNodeContainer(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .array = node.content {} else { node.content = .array([]) }
        return UnkeyedNodeContainer(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleNodeContainer(node: node, codingPath: codingPath)
    }
}

/// Writes a value into `node`: the scalars JSON has, or whatever the value's own encoding makes.
private func encodeValue<Value: Encodable>(_ value: Value, into node: EncodedNode, at path: [any CodingKey]) throws {
    switch value {
    case let value as String: node.content = .value(.string(value))
    case let value as Bool: node.content = .value(.bool(value))
    case let value as Double: node.content = .value(.number(value))
    case let value as Int: node.content = .value(.number(Double(value)))
    case let value as any BinaryInteger: node.content = .value(.number(Double(value)))
    default: try value.encode(to: NodeEncoder(node: node, codingPath: path))
    }
}

private struct KeyedNodeContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: EncodedNode
    let codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws { node.member(key.stringValue).content = .value(.null) }

    mutating func encode<Value: Encodable>(_ value: Value, forKey key: Key) throws {
        try encodeValue(value, into: node.member(key.stringValue), at: codingPath + [key])
    }

    // An absent optional is written as `null`, never left out.
    mutating func encodeIfPresent<Value: Encodable>(_ value: Value?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        NodeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key]).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        NodeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key]).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { NodeEncoder(node: node.member("super"), codingPath: codingPath) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { NodeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key]) }
}

private struct UnkeyedNodeContainer: UnkeyedEncodingContainer {
    let node: EncodedNode
    let codingPath: [any CodingKey]
    var count: Int {
        if case .array(let elements) = node.content { elements.count } else { 0 }
    }

    mutating func encodeNil() throws { node.appended().content = .value(.null) }

    mutating func encode<Value: Encodable>(_ value: Value) throws {
        try encodeValue(value, into: node.appended(), at: codingPath + [Index(count)])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        NodeEncoder(node: node.appended(), codingPath: codingPath + [Index(count)]).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        NodeEncoder(node: node.appended(), codingPath: codingPath + [Index(count)]).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { NodeEncoder(node: node.appended(), codingPath: codingPath) }
}

private struct SingleNodeContainer: SingleValueEncodingContainer {
    let node: EncodedNode
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { node.content = .value(.null) }
    mutating func encode<Value: Encodable>(_ value: Value) throws { try encodeValue(value, into: node, at: codingPath) }
    mutating func encode(_ value: String) throws { node.content = .value(.string(value)) }
    mutating func encode(_ value: Bool) throws { node.content = .value(.bool(value)) }
    mutating func encode(_ value: Double) throws { node.content = .value(.number(value)) }
    mutating func encode(_ value: Int) throws { node.content = .value(.number(Double(value))) }
}

/// An array element's place in a coding path.
private struct Index: CodingKey {
    let intValue: Int?
    var stringValue: String { "\(intValue ?? 0)" }
    init(_ index: Int) { intValue = index }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { self.intValue = intValue }
}

// MARK: Reading

private struct SettingDecoder: Decoder {
    let value: Setting
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else {
            throw JSONCodingError(path: codingPath, problem: "expected an object, found \(value.valueDescription)")
        }
        return KeyedDecodingContainer(KeyedSettingContainer(members: members, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else {
            throw JSONCodingError(path: codingPath, problem: "expected an array, found \(value.valueDescription)")
        }
        return UnkeyedSettingContainer(elements: elements, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleSettingContainer(value: value, codingPath: codingPath)
    }
}

/// Reads a value of `type` from `value`: the scalars JSON has, or whatever the type's own decoding reads.
private func decodeValue<Value: Decodable>(_ type: Value.Type, from value: Setting, at path: [any CodingKey]) throws -> Value {
    func mismatch(_ expected: String) -> JSONCodingError {
        JSONCodingError(path: path, problem: "expected \(expected), found \(value.valueDescription)")
    }
    if type == String.self {
        guard case .string(let text) = value else { throw mismatch("a string") }
        return text as! Value
    }
    if type == Bool.self {
        guard case .bool(let bool) = value else { throw mismatch("true or false") }
        return bool as! Value
    }
    if type == Double.self {
        guard case .number(let number) = value else { throw mismatch("a number") }
        return number as! Value
    }
    if type == Int.self {
        guard case .number(let number) = value, let whole = Int(exactly: number) else { throw mismatch("a whole number") }
        return whole as! Value
    }
    if type == Int32.self {
        guard case .number(let number) = value, let whole = Int32(exactly: number) else { throw mismatch("a whole number of 32 bits") }
        return whole as! Value
    }
    if type == Int64.self {
        guard case .number(let number) = value, let whole = Int64(exactly: number) else { throw mismatch("a whole number") }
        return whole as! Value
    }
    // Any other type of a single value (another width of number) would come back here through
    // its own init(from:): it is no type these documents hold.
    if Value.self is any FixedWidthInteger.Type || Value.self is any BinaryFloatingPoint.Type {
        throw mismatch("no \(Value.self): the documents hold Int, Int32, Int64 and Double")
    }
    return try Value(from: SettingDecoder(value: value, codingPath: path))
}

private struct KeyedSettingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [String: Setting]
    let codingPath: [any CodingKey]
    var allKeys: [Key] { members.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

    private func member(_ key: Key) throws -> Setting {
        guard let value = members[key.stringValue] else {
            throw JSONCodingError(path: codingPath + [key], problem: "missing")
        }
        return value
    }

    func decodeNil(forKey key: Key) throws -> Bool { try member(key) == .null }

    func decode<Value: Decodable>(_ type: Value.Type, forKey key: Key) throws -> Value {
        try decodeValue(type, from: member(key), at: codingPath + [key])
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try SettingDecoder(value: member(key), codingPath: codingPath + [key]).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try SettingDecoder(value: member(key), codingPath: codingPath + [key]).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { SettingDecoder(value: members["super"] ?? .null, codingPath: codingPath) }
    func superDecoder(forKey key: Key) throws -> any Decoder { try SettingDecoder(value: member(key), codingPath: codingPath + [key]) }
}

private struct UnkeyedSettingContainer: UnkeyedDecodingContainer {
    let elements: [Setting]
    let codingPath: [any CodingKey]
    var currentIndex = 0
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    private mutating func next() throws -> (Setting, [any CodingKey]) {
        guard !isAtEnd else { throw JSONCodingError(path: codingPath, problem: "fewer elements than expected") }
        defer { currentIndex += 1 }
        return (elements[currentIndex], codingPath + [Index(currentIndex)])
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, elements[currentIndex] == .null else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
        let (value, path) = try next()
        return try decodeValue(type, from: value, at: path)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let (value, path) = try next()
        return try SettingDecoder(value: value, codingPath: path).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let (value, path) = try next()
        return try SettingDecoder(value: value, codingPath: path).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        let (value, path) = try next()
        return SettingDecoder(value: value, codingPath: path)
    }
}

private struct SingleSettingContainer: SingleValueDecodingContainer {
    let value: Setting
    let codingPath: [any CodingKey]

    func decodeNil() -> Bool { value == .null }
    func decode<Value: Decodable>(_ type: Value.Type) throws -> Value { try decodeValue(type, from: value, at: codingPath) }
}
