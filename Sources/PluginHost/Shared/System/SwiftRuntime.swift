import PluginABI

/// Where the Swift runtime keeps what describes a type, as addresses: to tell which loaded
/// file defines a plugin's component.
enum SwiftRuntime {
    /// Where a component type's type metadata lies, and the descriptor of its conformance to
    /// ``Bootstrapping``: the two words of the existential metatype, the second a witness
    /// table whose first word is that descriptor. The metadata of a generic class lies in
    /// memory the runtime allocated; the descriptor always lies in the file that declares
    /// the conformance.
    static func addresses(of type: any Bootstrapping.Type) -> (metadata: UInt, conformance: UInt?) {
        // `as any Bootstrapping.Type` keeps the existential from being opened into the bare
        // metatype when it is passed on.
        withUnsafeBytes(of: type as any Bootstrapping.Type) { words in
            let metadata = words.load(as: UInt.self)
            guard words.count == 2 * MemoryLayout<UInt>.size,
                let table = UnsafeRawPointer(bitPattern: words.load(fromByteOffset: MemoryLayout<UInt>.size, as: UInt.self))
            else { return (metadata, nil) }
            return (metadata, table.load(as: UInt.self))
        }
    }

    /// `address` as a pointer, for the dynamic loader's lookups.
    static func pointer(to address: UInt) -> UnsafeRawPointer? {
        UnsafeRawPointer(bitPattern: address)
    }
}
