/// A value the supervision page holds in one atomic word: a number, or a type coded as one.
///
/// The page is memory two processes share, which a plugin's stray write could scribble on:
/// a word that codes no value reads as a fallback, never as a trap.
protocol PageValue: Sendable {
    associatedtype Word: SharedWord
    init(word: Word)
    var word: Word { get }
}

/// An enumeration the page holds as its raw value.
protocol PageCode: PageValue, RawRepresentable where RawValue == Int32, Word == Int32 {
    /// What a word that codes no case reads as.
    static var fallback: Self { get }
}

extension PageCode {
    init(word: Int32) { self = Self(rawValue: word) ?? .fallback }
    var word: Int32 { rawValue }
}

extension Int32: PageValue {
    init(word: Int32) { self = word }
    var word: Int32 { self }
}

extension Int64: PageValue {
    init(word: Int64) { self = word }
    var word: Int64 { self }
}

extension UInt64: PageValue {
    init(word: UInt64) { self = word }
    var word: UInt64 { self }
}

extension Bool: PageValue {
    init(word: Int32) { self = word == 1 }
    var word: Int32 { self ? 1 : 0 }
}

extension MonotonicInstant: PageValue {
    init(word: Int64) { self.init(nanoseconds: word) }
    var word: Int64 { nanoseconds }
}

extension Optional: PageValue where Wrapped == PluginNumber {
    /// -1 stands for none.
    init(word: Int32) { self = PluginNumber(recorded: word) }
    var word: Int32 { self?.rawValue ?? -1 }
}

/// Something laid out in the page: it ends where the next thing may begin.
protocol PageExtent: Sendable {
    var end: Int { get }
}

/// One field of the supervision page: where it lies, and, by its type, what it holds.
///
/// A layout declares each field once, after the one before it: the field begins where that
/// one ends, at the alignment of its own word, so fields never overlap and none is declared
/// twice.
struct PageField<Value: PageValue>: PageExtent {
    let offset: Int

    /// The first field of a layout, or one at a fixed place.
    init(at offset: Int) {
        precondition(offset % MemoryLayout<Value.Word>.alignment == 0)
        self.offset = offset
    }

    /// The field right after `previous`.
    init(after previous: some PageExtent) {
        offset = aligned(previous.end, to: MemoryLayout<Value.Word>.alignment)
    }

    var end: Int { offset + MemoryLayout<Value.Word>.size }
}

/// A region of the supervision page that holds more than one word: a record of several
/// fields, a semaphore, a table.
struct PageRegion: PageExtent {
    let offset: Int
    let size: Int

    init(at offset: Int, size: Int) {
        self.offset = offset
        self.size = size
    }

    /// The region right after `previous`, at `alignment`.
    init(after previous: some PageExtent, size: Int, alignment: Int = 8) {
        offset = aligned(previous.end, to: alignment)
        self.size = size
    }

    var end: Int { offset + size }
}

/// `value` rounded up to a multiple of `alignment`.
func aligned(_ value: Int, to alignment: Int) -> Int {
    (value + alignment - 1) / alignment * alignment
}
