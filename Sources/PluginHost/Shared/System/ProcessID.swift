/// A process, by the kernel's id for it.
struct ProcessID: Hashable, Comparable, Sendable, CustomStringConvertible {
    let rawValue: Int32

    init(rawValue: Int32) { self.rawValue = rawValue }

    static func < (lhs: ProcessID, rhs: ProcessID) -> Bool { lhs.rawValue < rhs.rawValue }

    var description: String { String(rawValue) }
}
