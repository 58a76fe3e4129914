#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("plugin-host runs on Linux: it needs Glibc or Musl")
#endif

import Synchronization

/// Memory shared with the processes forked after it is mapped: atomic numbers, semaphores
/// and bytes at offsets that the type above it lays out.
///
/// It is mapped `MAP_SHARED | MAP_ANONYMOUS`, so no file descriptor is involved that other
/// code in the process could close or reuse, and `MAP_NORESERVE`: pages never touched cost
/// nothing, so a region can be sized for the largest use it accepts. Every access is an
/// atomic load or store, which a signal handler may make.
final class SharedMemory: @unchecked Sendable {
    /// The size of the region, in bytes.
    let size: Int
    private let base: UnsafeMutableRawPointer

    /// Maps `size` zeroed bytes shared with processes forked from now on.
    ///
    /// - Throws: ``SystemError`` when the memory cannot be mapped.
    init(size: Int) throws(SystemError) {
        let mapped = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
        guard let mapped, mapped != MAP_FAILED else { throw SystemError("map \(size) bytes of shared memory") }
        self.size = size
        base = mapped
    }

    /// Replaces the region, in this process only, by private zeroed memory: for a process
    /// forked by other code, which must not write what the processes sharing it read.
    /// Async-signal-safe.
    func detach() {
        _ = mmap(base, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0)
    }

    /// Unmaps the region in this process; nothing may use it afterwards.
    func unmap() {
        munmap(base, size)
    }

    /// The atomic number of type `Value` at `offset`, which must be aligned for it.
    func atomic<Value: SharedWord>(_ type: Value.Type, at offset: Int) -> SharedAtomic<Value> {
        precondition(offset >= 0 && offset + MemoryLayout<Value>.size <= size && offset % MemoryLayout<Value>.alignment == 0)
        return SharedAtomic(address: base + offset)
    }

    /// The bytes and the alignment a process-shared semaphore takes, for a layout to place one.
    static var semaphoreSize: Int { MemoryLayout<sem_t>.size }
    static var semaphoreAlignment: Int { MemoryLayout<sem_t>.alignment }

    /// The process-shared semaphore at `offset`, set to 0 when `initialize` (do it once,
    /// before any process waits on it).
    func semaphore(at offset: Int, initialize: Bool = false) -> SharedSemaphore {
        precondition(offset >= 0 && offset + MemoryLayout<sem_t>.size <= size)
        let pointer = (base + offset).assumingMemoryBound(to: sem_t.self)
        if initialize { sem_init(pointer, 1, 0) }
        return SharedSemaphore(pointer: pointer)
    }

    /// Copies `bytes` to `offset`.
    func write(_ bytes: ArraySlice<UInt8>, at offset: Int) {
        precondition(offset >= 0 && offset + bytes.count <= size)
        bytes.withUnsafeBytes { raw in
            if let source = raw.baseAddress { (base + offset).copyMemory(from: source, byteCount: raw.count) }
        }
    }

    /// A copy of `count` bytes at `offset`.
    func bytes(at offset: Int, count: Int) -> [UInt8] {
        precondition(offset >= 0 && count >= 0 && offset + count <= size)
        return Array(UnsafeRawBufferPointer(start: base + offset, count: count))
    }

    /// The bytes at `offset` decoded as UTF-8.
    func string(at offset: Int, count: Int) -> String {
        precondition(offset >= 0 && count >= 0 && offset + count <= size)
        return String(decoding: UnsafeRawBufferPointer(start: base + offset, count: count), as: UTF8.self)
    }
}

/// A number that shared memory holds as one atomic word: `Int32`, `Int64`, `UInt64`.
protocol SharedWord: FixedWidthInteger, AtomicRepresentable, Sendable {
    /// The word at `address`, read atomically.
    static func load(at address: UnsafeMutableRawPointer) -> Self
    /// Writes `value` at `address` atomically.
    static func store(_ value: Self, at address: UnsafeMutableRawPointer)
}

extension Int32: SharedWord {
    static func load(at address: UnsafeMutableRawPointer) -> Int32 {
        address.assumingMemoryBound(to: Atomic<Int32>.self).pointee.load(ordering: .sequentiallyConsistent)
    }

    static func store(_ value: Int32, at address: UnsafeMutableRawPointer) {
        address.assumingMemoryBound(to: Atomic<Int32>.self).pointee.store(value, ordering: .sequentiallyConsistent)
    }
}

extension Int64: SharedWord {
    static func load(at address: UnsafeMutableRawPointer) -> Int64 {
        address.assumingMemoryBound(to: Atomic<Int64>.self).pointee.load(ordering: .sequentiallyConsistent)
    }

    static func store(_ value: Int64, at address: UnsafeMutableRawPointer) {
        address.assumingMemoryBound(to: Atomic<Int64>.self).pointee.store(value, ordering: .sequentiallyConsistent)
    }
}

extension UInt64: SharedWord {
    static func load(at address: UnsafeMutableRawPointer) -> UInt64 {
        address.assumingMemoryBound(to: Atomic<UInt64>.self).pointee.load(ordering: .sequentiallyConsistent)
    }

    static func store(_ value: UInt64, at address: UnsafeMutableRawPointer) {
        address.assumingMemoryBound(to: Atomic<UInt64>.self).pointee.store(value, ordering: .sequentiallyConsistent)
    }
}

/// An atomic number in ``SharedMemory``: every access is sequentially consistent.
struct SharedAtomic<Value: SharedWord>: @unchecked Sendable {
    fileprivate let address: UnsafeMutableRawPointer

    func load() -> Value { Value.load(at: address) }
    func store(_ value: Value) { Value.store(value, at: address) }
}

extension SharedAtomic where Value == Int32 {
    /// Adds one, wrapping; returns the value before.
    @discardableResult
    func increment() -> Value {
        address.assumingMemoryBound(to: Atomic<Int32>.self).pointee.wrappingAdd(1, ordering: .sequentiallyConsistent).oldValue
    }
}

extension SharedAtomic where Value == Int64 {
    /// Stores `desired` if the value is `expected`; returns whether it did, and the value
    /// found.
    func compareExchange(expected: Value, desired: Value) -> (exchanged: Bool, original: Value) {
        address.assumingMemoryBound(to: Atomic<Int64>.self).pointee.compareExchange(
            expected: expected, desired: desired, ordering: .sequentiallyConsistent)
    }
}

/// A process-shared semaphore in ``SharedMemory``.
struct SharedSemaphore: @unchecked Sendable {
    fileprivate let pointer: UnsafeMutablePointer<sem_t>

    /// Wakes one waiter. Async-signal-safe.
    func post() { sem_post(pointer) }

    /// Waits for a post, however long it takes.
    func wait() {
        _ = SystemCall.retryingOnInterrupt { sem_wait(pointer) }
    }
}
