import PluginABI

/// Where the Swift runtime keeps what describes a type, as addresses: to tell which loaded
/// file defines a plugin's component.
enum SwiftRuntime {
    /// The address of the type metadata of `type`. For a generic class it lies in memory
    /// the runtime allocated, not in the file that defines the class.
    static func metadataAddress(of type: AnyObject.Type) -> UInt {
        UInt(bitPattern: unsafeBitCast(type, to: UnsafeRawPointer.self))
    }

    /// The address of the descriptor of `component`'s conformance to ``Bootstrapping``:
    /// the first word of the witness table in the existential (a class reference, then the
    /// table). The descriptor lies in the file that declares the conformance, generic class
    /// or not.
    static func conformanceDescriptorAddress(of component: any Bootstrapping) -> UInt? {
        // `as any Bootstrapping` keeps the existential from being opened into the bare class
        // reference when it is passed on.
        withUnsafeBytes(of: component as any Bootstrapping) { words -> UInt? in
            guard words.count == 2 * MemoryLayout<UInt>.size,
                let table = UnsafeRawPointer(bitPattern: words.load(fromByteOffset: MemoryLayout<UInt>.size, as: UInt.self))
            else { return nil }
            return table.load(as: UInt.self)
        }
    }

    /// `address` as a pointer, for the dynamic loader's lookups.
    static func pointer(to address: UInt) -> UnsafeRawPointer? {
        UnsafeRawPointer(bitPattern: address)
    }
}
