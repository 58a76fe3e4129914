/// Where the Swift runtime keeps what describes a type, as addresses: to tell which loaded
/// file defines a plugin's component.
enum SwiftRuntime {
    /// The address of the type metadata of `type`. For a generic class it lies in memory
    /// the runtime allocated, not in the file that defines the class.
    static func metadataAddress(of type: AnyObject.Type) -> UInt {
        UInt(bitPattern: unsafeBitCast(type, to: UnsafeRawPointer.self))
    }

    /// The address of the protocol conformance descriptor behind a class-bound existential
    /// (`any P` where `P: AnyObject`): the first word of its witness table. The descriptor
    /// lies in the file that declares the conformance, generic or not.
    ///
    /// - Returns: `nil` when `existential` does not have the two-word layout of a
    ///   class-bound existential of one protocol.
    static func conformanceDescriptorAddress<Existential>(of existential: Existential) -> UInt? {
        guard MemoryLayout<Existential>.size == 2 * MemoryLayout<UInt>.size else { return nil }
        return withUnsafeBytes(of: existential) { words -> UInt? in
            guard let table = UnsafeRawPointer(bitPattern: words.load(fromByteOffset: MemoryLayout<UInt>.size, as: UInt.self))
            else { return nil }
            return table.load(as: UInt.self)
        }
    }

    /// `address` as a pointer, for the dynamic loader's lookups.
    static func pointer(to address: UInt) -> UnsafeRawPointer? {
        UnsafeRawPointer(bitPattern: address)
    }
}
