#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("plugin-host runs on Linux: it needs Glibc or Musl")
#endif

/// A shared object opened with `dlopen`. It is never closed.
///
/// Unloading a library that holds Swift code is unsafe: the Swift runtime keeps pointers
/// into it (type metadata, conformance records). The handle is therefore opened with
/// `RTLD_NODELETE` and this type has no `close`: the library stays for the life of the
/// process, and dropping the value only forgets the handle.
struct DynamicLibrary: @unchecked Sendable {
    /// The path the library was opened from.
    let path: String
    private let handle: UnsafeMutableRawPointer

    /// Loads the shared object at `path`, resolving all its symbols now and keeping them
    /// local to it (`RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE`).
    ///
    /// - Throws: ``DynamicLibraryError`` with `dlerror()`'s text.
    init(loading path: String) throws(DynamicLibraryError) {
        _ = dlerror()
        guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE) else {
            throw DynamicLibraryError(operation: "load", path: path, message: DynamicLibraryError.lastMessage())
        }
        self.path = path
        self.handle = handle
    }

    /// The address of the symbol `name` in this library.
    ///
    /// - Throws: ``DynamicLibraryError`` when the library does not define it.
    func address(of name: String) throws(DynamicLibraryError) -> UnsafeMutableRawPointer {
        _ = dlerror()
        guard let address = dlsym(handle, name) else {
            throw DynamicLibraryError(
                operation: "find symbol \(name) in", path: path, message: DynamicLibraryError.lastMessage())
        }
        return address
    }

    private typealias ObjectEntryPoint = @convention(c) () -> UnsafeMutableRawPointer?

    /// Calls the function `name` of this library, which takes nothing and returns a
    /// retained Swift object (as a plugin's entry point does), and takes ownership of it.
    ///
    /// - Returns: The object, or `nil` when the function returned a null pointer.
    /// - Throws: ``DynamicLibraryError`` when the library does not define `name`.
    func callEntryPoint(named name: String) throws(DynamicLibraryError) -> AnyObject? {
        let entry = unsafeBitCast(try address(of: name), to: ObjectEntryPoint.self)
        guard let pointer = entry() else { return nil }
        return Unmanaged<AnyObject>.fromOpaque(pointer).takeRetainedValue()
    }

    /// The address the dynamic loader mapped this library at (`l_addr` of its link map):
    /// add it to an address of the ELF file to get the address in memory.
    var loadBase: UInt? {
        guard let dlinfo = Self.dlinfo else { return nil }
        var linkMap: UnsafeRawPointer?
        guard withUnsafeMutablePointer(to: &linkMap, { dlinfo(handle, 2 /* RTLD_DI_LINKMAP */, $0) }) == 0, let linkMap else {
            return nil
        }
        return linkMap.load(as: UInt.self)
    }

    private typealias InfoLookup = @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafeMutableRawPointer?) -> Int32

    /// `dlinfo`, found once through `dlsym` (a GNU extension the Glibc module leaves out).
    private static let dlinfo: InfoLookup? = {
        guard let symbol = dlsym(nil, "dlinfo") else { return nil }
        return unsafeBitCast(symbol, to: InfoLookup.self)
    }()

    /// The file of the loaded object that contains `address`, as the dynamic loader
    /// recorded it, or `nil` when no loaded object contains it. It walks every loaded
    /// object: for error messages, not for every plugin.
    static func file(containing address: UnsafeRawPointer) -> String? {
        guard let dladdr = Self.dladdr else { return nil }
        var info = SharedObjectInfo()
        guard withUnsafeMutablePointer(to: &info, { dladdr(address, $0) }) != 0, let name = info.fileName else { return nil }
        return String(cString: name)
    }

    /// `Dl_info` of `<dlfcn.h>`, which the Glibc module leaves out with `dladdr` (both are
    /// GNU extensions).
    private struct SharedObjectInfo {
        var fileName: UnsafePointer<CChar>? = nil
        var fileBase: UnsafeMutableRawPointer? = nil
        var symbolName: UnsafePointer<CChar>? = nil
        var symbolAddress: UnsafeMutableRawPointer? = nil
    }

    private typealias AddressLookup = @convention(c) (UnsafeRawPointer?, UnsafeMutableRawPointer?) -> Int32

    /// `dladdr`, found once through `dlsym`.
    private static let dladdr: AddressLookup? = {
        guard let symbol = dlsym(nil, "dladdr") else { return nil }
        return unsafeBitCast(symbol, to: AddressLookup.self)
    }()
}

/// `dlopen` or `dlsym` failed; `message` is `dlerror()`'s text.
struct DynamicLibraryError: Error, Equatable, CustomStringConvertible {
    let operation: String
    let path: String
    let message: String

    var description: String { "cannot \(operation) \(path): \(message)" }

    static func lastMessage() -> String {
        guard let text = dlerror() else { return "unknown dynamic loader error" }
        return String(cString: text)
    }
}
