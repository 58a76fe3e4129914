import Testing

@testable import PluginHost

@Suite("SortedStrings: the order of String's <, with equal strings grouped")
struct SortedStringsTests {
    /// The order and groups a comparison sort gives, equal strings by index.
    private func expected(_ strings: [String]) -> (order: [Int32], startsGroup: [Bool]) {
        let order: [Int32] = (0..<Int32(strings.count)).sorted { (a: Int32, b: Int32) -> Bool in
            let (left, right) = (strings[Int(a)], strings[Int(b)])
            return left != right ? left < right : a < b
        }
        let startsGroup: [Bool] = order.indices.map { (position: Int) -> Bool in
            position == 0 || strings[Int(order[position - 1])] != strings[Int(order[position])]
        }
        return (order, startsGroup)
    }

    private func check(_ strings: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        let sorted = SortedStrings(strings)
        let wanted = expected(strings)
        #expect(sorted.order == wanted.order, sourceLocation: sourceLocation)
        #expect(sorted.startsGroup == wanted.startsGroup, sourceLocation: sourceLocation)
    }

    @Test("short names, prefixes of each other, and duplicates")
    func shortNames() {
        check(["b", "a", "ab", "a", "", "B", "a.b", "a-b", "a_b", "9", "ab", "abc", "b"])
    }

    @Test("names that tie on their first 8, 16 and 24 bytes")
    func longSharedPrefixes() {
        let prefix = "com.example.plugins."
        var names = (0..<500).map { "\(prefix)feature\($0 % 170)" }
        names += ["\(prefix)", "com.example", "com.example.plugins", "com.examplf", "\(prefix)feature1"]
        check(names.shuffled())
    }

    @Test("random ASCII names of every length up to 64, many repeated, more than fit a cache-sized range")
    func randomNames() {
        let alphabet = Array("abcXYZ019._-")
        var generator = SystemRandomNumberGenerator()
        let distinct = (0..<6_000).map { _ in
            String((0..<Int.random(in: 1...64, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
        }
        let names = (0..<100_000).map { _ in distinct.randomElement(using: &generator)! }
        check(names)
    }

    @Test("names of every printable ASCII character, in ranges above and below 4,096 names")
    func everyCharacter() {
        // Up to 95 values in each of 8 bytes: 56 bits to tell them apart, more than any
        // single counting pass takes.
        let alphabet = (32...126).map { Character(Unicode.Scalar(UInt8($0))) }
        var generator = SystemRandomNumberGenerator()
        let distinct = (0..<3_000).map { _ in
            String((0..<Int.random(in: 1...12, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
        }
        check((0..<20_000).map { _ in distinct.randomElement(using: &generator)! })
        check(Array(distinct.prefix(1_000)))
        check(Array(distinct.prefix(30)))
    }

    @Test("numbered names as the benchmark makes them, in reverse")
    func numberedNames() {
        check((0..<100_000).reversed().map { "P\($0 % 70_000)" })
    }

    @Test("names that are not plain ASCII are compared as Strings (canonical equivalence)")
    func unicodeNames() {
        // "é" precomposed and decomposed are equal Strings with different bytes.
        let names = ["caf\u{E9}", "cafe\u{301}", "cafe", "caf\u{E9}s", "z", "\u{0}a", "a"]
        check(names)
        let sorted = SortedStrings(names)
        #expect(sorted.startsGroup.filter { $0 }.count == names.count - 1)
    }
}
