/// FNV-1a, 64 bits: a short, stable name for a path (one cache or record file per plugin
/// directory) and a checksum that finds a file cut short or changed. Not for security.
enum FNV1a {
    /// The hash of `bytes`, as 16 hexadecimal digits.
    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
