import PluginABI
import Testing

@testable import PluginHost

@Suite("JSONParser: strict JSON with positioned errors")
struct JSONParserTests {
    private func parse(_ text: String) throws(JSONError) -> Setting { try JSONParser.parse(Array(text.utf8)) }

    @Test("parses every kind of value")
    func values() throws {
        #expect(try parse(#" {"a": [1, -2.5e2, true, false, null, "x\n\u00e9\ud83c\udf4c"]} "#) == .object([
            "a": .array([.number(1), .number(-250), .bool(true), .bool(false), .null, .string("x\né🍌")]),
        ]))
    }

    @Test("errors give the line and column", arguments: [
        ("{\n  \"a\": 1,\n  \"a\": 2\n}", "line 3, column 3: duplicate key \"a\""),
        ("[1, 2", "line 1, column 6: expected ',' or ']' in array"),
        ("{\"a\" 1}", "line 1, column 6: expected ':' after key \"a\""),
        ("01", "line 1, column 2: leading zero in number"),
        ("\"\\x\"", "line 1, column 3: invalid escape '\\x'"),
        ("\"\\ud800\"", "unpaired surrogate"),
        ("\"a\tb\"", "control character in string"),
        ("[] []", "unexpected text after the JSON value"),
        ("", "unexpected end of input"),
        ("1e999", "number out of range"),
    ])
    func positionedErrors(text: String, expected: String) throws {
        let error = try #require(throws: JSONError.self) { try parse(text) }
        #expect(error.description.contains(expected), "\(error)")
    }

    @Test("nesting deeper than the limit is an error, not a stack overflow")
    func depthLimit() throws {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        let error = try #require(throws: JSONError.self) { try parse(deep) }
        #expect(error.message == "nesting deeper than 128 levels")
        #expect(throws: Never.self) { try parse(String(repeating: "[", count: 128) + String(repeating: "]", count: 128)) }
    }

    @Test("invalid UTF-8 in a string is an error")
    func invalidUTF8() {
        #expect(throws: JSONError.self) { try JSONParser.parse([0x22, 0xC3, 0x28, 0x22]) }
    }

    @Test("output escapes what JSON requires and keeps key order")
    func output() {
        let value = JSONOutput.object([("b", .string("q\"\\\n\u{1}")), ("a", .array([.number(1), .number(0.5), .null, .bool(true)]))])
        #expect(value.rendered() == #"{"b":"q\"\\\n\u0001","a":[1,0.5,null,true]}"#)
    }
}
