#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("plugin-host runs on Linux: it needs Glibc or Musl")
#endif

import Synchronization

/// The memory the supervisor process and its worker share: what the worker is doing, until
/// when it may, what went wrong, and what it wants printed.
///
/// It is mapped before the fork (`MAP_SHARED | MAP_ANONYMOUS`), so both processes see the
/// same pages and no file descriptor is involved that a plugin could close or reuse. Every
/// field is an atomic number, readable from a signal handler; texts are written once before
/// they are published. Pages that are never touched cost nothing, so the region is sized
/// for the largest plugin directory it accepts.
///
/// The numbers are codes whose meaning the supervision layer defines (phases, policies);
/// this type only lays them out.
final class SupervisionPage: @unchecked Sendable {
    /// The most plugins whose steps the page can track.
    static let pluginCapacity = 65_536
    /// The most threads that can say whose code they run.
    static let slotCapacity = 2_048
    /// The most bytes of plugin labels.
    static let labelCapacity = 8 << 20
    /// The most bytes handed to the supervisor at once to print.
    static let outputCapacity = 1 << 20

    private enum Offset {
        static let magic = 0
        static let workerPhase = 8
        static let intendedStatus = 12
        static let progress = 16
        static let stopCount = 20
        static let stopSignal = 24
        static let reloadCount = 28
        static let supervisorWakesAt = 32
        static let supervisorProcess = 40
        static let pluginCount = 44
        static let exiting = 48
        static let slotsClaimed = 52
        static let forwardedStops = 56
        static let forwardedReloads = 60
        static let forwardedStopSignal = 512
        static let driverThread = 516
        static let rescanCount = 520
        static let labelBytesUsed = 524
        static let healthyUntil = 528
        static let crash = 64  // 64 bytes
        static let exitCall = 128  // 64 bytes
        static let output = 192  // 32 bytes
        static let commands = 256  // sem_t
        static let acknowledgements = 320  // sem_t
        static let hostStep = 384  // a step record
        static let stall = 448  // 64 bytes
        static let headerEnd = 4096
        static let slots = headerEnd
        static let slotSize = 16
        static let plugins = slots + SupervisionPage.slotCapacity * slotSize
        static let pluginSize = 48
        static let labels = plugins + SupervisionPage.pluginCapacity * pluginSize
        static let outputBytes = labels + SupervisionPage.labelCapacity
        static let end = outputBytes + SupervisionPage.outputCapacity
    }

    private static let magicValue: UInt64 = 0x504C_5547_484F_5354  // "PLUGHOST"
    private let base: UnsafeMutableRawPointer

    /// Maps a new, zeroed page shared with processes forked from now on.
    ///
    /// - Throws: ``SystemError`` when the memory cannot be mapped.
    init() throws(SystemError) {
        let mapped = mmap(nil, Offset.end, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
        guard let mapped, mapped != MAP_FAILED else { throw SystemError("map the supervision page") }
        base = mapped
        sem_init(semaphore(at: Offset.commands), 1, 0)
        sem_init(semaphore(at: Offset.acknowledgements), 1, 0)
        cell(UInt64.self, Offset.magic).store(Self.magicValue)
        intendedStatus.store(-1)
        supervisorWakesAt.store(.max)
        for slot in 0..<Self.slotCapacity { slotPlugin(slot).store(-1) }
    }

    /// Replaces the page, in this process only, by private zeroed memory: for a process
    /// plugin code forked from the worker, which must not write the worker's records or
    /// hand the supervisor output. Async-signal-safe.
    func detach() {
        _ = mmap(base, Offset.end, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0)
    }

    // MARK: Cells

    /// An atomic number in the page.
    struct Cell<Value: AtomicRepresentable>: @unchecked Sendable {
        fileprivate let pointer: UnsafeMutablePointer<Atomic<Value>>
    }

    private func cell<Value: AtomicRepresentable>(_ type: Value.Type, _ offset: Int) -> Cell<Value> {
        Cell(pointer: (base + offset).assumingMemoryBound(to: Atomic<Value>.self))
    }

    private func semaphore(at offset: Int) -> UnsafeMutablePointer<sem_t> {
        (base + offset).assumingMemoryBound(to: sem_t.self)
    }

    // MARK: The worker's state, as the supervisor reads it

    /// What the worker is doing as a whole.
    var workerPhase: Cell<Int32> { cell(Int32.self, Offset.workerPhase) }
    /// The status the worker is about to exit with; -1 until it decides.
    var intendedStatus: Cell<Int32> { cell(Int32.self, Offset.intendedStatus) }
    /// Set when the host itself calls `exit`.
    var exiting: Cell<Int32> { cell(Int32.self, Offset.exiting) }
    /// Counts every step the worker begins or ends.
    var progress: Cell<Int32> { cell(Int32.self, Offset.progress) }
    /// The supervisor's process id, for the worker to wake it.
    var supervisorProcess: Cell<Int32> { cell(Int32.self, Offset.supervisorProcess) }
    /// When the supervisor wakes by itself; 0 while it is awake. A worker posting an
    /// earlier deadline must wake it.
    var supervisorWakesAt: Cell<Int64> { cell(Int64.self, Offset.supervisorWakesAt) }

    // MARK: Commands from the supervisor

    /// How many stop requests (SIGINT, SIGTERM) the supervisor has passed on.
    var stopCount: Cell<Int32> { cell(Int32.self, Offset.stopCount) }
    /// The signal of the first stop request.
    var stopSignal: Cell<Int32> { cell(Int32.self, Offset.stopSignal) }
    /// How many reload requests (SIGHUP) the supervisor has passed on.
    var reloadCount: Cell<Int32> { cell(Int32.self, Offset.reloadCount) }
    /// How many times the supervisor saw the plugin directories change (`--watch`).
    var rescanCount: Cell<Int32> { cell(Int32.self, Offset.rescanCount) }

    // MARK: Health, for systemd's watchdog

    /// Until when the worker's last health check counts as good (``MonotonicClock``
    /// nanoseconds); 0 after a bad one.
    var healthyUntil: Cell<Int64> { cell(Int64.self, Offset.healthyUntil) }

    /// Records SIGINT, SIGTERM or SIGHUP that reached the worker itself, for the supervisor.
    /// Async-signal-safe.
    func forward(_ signal: Int32) {
        if signal == SIGHUP {
            _ = cell(Int32.self, Offset.forwardedReloads).increment()
        } else {
            cell(Int32.self, Offset.forwardedStopSignal).store(signal)
            _ = cell(Int32.self, Offset.forwardedStops).increment()
        }
    }

    /// How many stop and reload signals reached the worker itself, and the last stop signal.
    var forwarded: (stops: Int32, reloads: Int32, stopSignal: Int32) {
        (cell(Int32.self, Offset.forwardedStops).load(), cell(Int32.self, Offset.forwardedReloads).load(),
         cell(Int32.self, Offset.forwardedStopSignal).load())
    }

    /// The kernel's id of the worker's driving thread, which runs only host code.
    var driverThread: Cell<Int32> { cell(Int32.self, Offset.driverThread) }

    /// Wakes the worker's command listener.
    func postCommand() { sem_post(semaphore(at: Offset.commands)) }

    /// Waits for the supervisor's next command.
    func waitForCommand() {
        while sem_wait(semaphore(at: Offset.commands)) != 0 && errno == EINTR {}
    }

    // MARK: Steps: plugin code the worker waits for, and until when

    /// One step: which phase, how an overrun is handled, when it began and its deadline
    /// (0: no step; `Int64.max`: no limit).
    struct Step: Equatable {
        var phase: Int32
        var policy: Int32
        var started: Int64
        var deadline: Int64
    }

    private func stepOffset(of plugin: Int?) -> Int {
        plugin.map { Offset.plugins + $0 * Offset.pluginSize + 8 } ?? Offset.hostStep
    }

    /// Records that `plugin` (or, for `nil`, the host itself) begins a step.
    ///
    /// - Parameter limit: When the supervisor must look at the step at the latest.
    /// - Returns: Whether the supervisor sleeps past `limit` and must be woken. Only the
    ///   first of several steps posted before it wakes says so: the wake time is set to 0
    ///   (awake) on the way.
    func begin(_ step: Step, of plugin: Int?, limit: Int64) -> Bool {
        let offset = stepOffset(of: plugin)
        let deadline = cell(Int64.self, offset + 16)
        deadline.store(0)
        cell(Int32.self, offset).store(step.phase)
        cell(Int32.self, offset + 4).store(step.policy)
        cell(Int64.self, offset + 8).store(step.started)
        deadline.store(step.deadline)
        _ = progress.increment()
        var wakes = supervisorWakesAt.load()
        while limit < wakes {
            let (exchanged, current) = supervisorWakesAt.compareExchange(expected: wakes, desired: 0)
            if exchanged { return true }
            wakes = current
        }
        return false
    }

    /// Records that the step of `plugin` (or the host's) is over.
    func end(stepOf plugin: Int?) {
        cell(Int64.self, stepOffset(of: plugin) + 16).store(0)
        _ = progress.increment()
    }

    /// The current step of `plugin` (or of the host), or `nil` when it has none; a step
    /// that changes while it is read is reported as none, to be read again later.
    func step(of plugin: Int?) -> Step? {
        let offset = stepOffset(of: plugin)
        let deadline = cell(Int64.self, offset + 16)
        let first = deadline.load()
        guard first != 0 else { return nil }
        let step = Step(
            phase: cell(Int32.self, offset).load(), policy: cell(Int32.self, offset + 4).load(),
            started: cell(Int64.self, offset + 8).load(), deadline: first)
        return deadline.load() == first ? step : nil
    }

    /// The phase of the last step `plugin` began, whether or not it is over.
    func lastPhase(of plugin: Int) -> Int32 {
        cell(Int32.self, stepOffset(of: plugin)).load()
    }

    // MARK: Plugins

    /// How many plugins the worker has published.
    var pluginCount: Int { Int(cell(Int32.self, Offset.pluginCount).load()) }

    /// Publishes the labels of more plugins (`Domain (plugins/libDomain.so)`), in bootstrap
    /// order, numbered after those published before: a plugin's number names it in steps
    /// and records. One publisher at a time.
    ///
    /// - Returns: The number of the first, or `nil` when there are more plugins or more
    ///   text than the page holds.
    func publish(labels: [String]) -> Int? {
        let first = pluginCount
        guard first + labels.count <= Self.pluginCapacity else { return nil }
        var used = Int(cell(Int32.self, Offset.labelBytesUsed).load())
        for (offset, label) in labels.enumerated() {
            let bytes = Array(label.utf8.prefix(1024))
            guard used + bytes.count <= Self.labelCapacity else { return nil }
            (base + Offset.labels + used).copyMemory(from: bytes, byteCount: bytes.count)
            let entry = Offset.plugins + (first + offset) * Offset.pluginSize
            cell(Int32.self, entry).store(Int32(used))
            cell(Int32.self, entry + 4).store(Int32(bytes.count))
            used += bytes.count
        }
        cell(Int32.self, Offset.labelBytesUsed).store(Int32(used))
        cell(Int32.self, Offset.pluginCount).store(Int32(first + labels.count))
        return first
    }

    /// The label of plugin `index`, as published.
    func label(of index: Int) -> String {
        guard index >= 0, index < pluginCount else { return "plugin #\(index)" }
        let entry = Offset.plugins + index * Offset.pluginSize
        let offset = Int(cell(Int32.self, entry).load())
        let length = Int(cell(Int32.self, entry + 4).load())
        let bytes = UnsafeRawBufferPointer(start: base + Offset.labels + offset, count: length)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Records where plugin `index`'s executable code was mapped, for the crash handler.
    func setCode(of index: Int, _ range: Range<UInt64>) {
        let entry = Offset.plugins + index * Offset.pluginSize
        cell(UInt64.self, entry + 40).store(0)
        cell(UInt64.self, entry + 32).store(range.lowerBound)
        cell(UInt64.self, entry + 40).store(range.upperBound)
    }

    /// The plugin whose executable code contains `address`, or -1. Async-signal-safe.
    func plugin(containingCode address: UInt64) -> Int32 {
        let count = pluginCount
        var index = 0
        while index < count {
            let entry = Offset.plugins + index * Offset.pluginSize
            let end = cell(UInt64.self, entry + 40).load()
            if end != 0, address < end, address >= cell(UInt64.self, entry + 32).load() { return Int32(index) }
            index += 1
        }
        return -1
    }

    /// The lowest and highest addresses of all plugins' code, to rule most words out at once.
    func codeBounds() -> (lower: UInt64, upper: UInt64) {
        var lower = UInt64.max
        var upper: UInt64 = 0
        for index in 0..<pluginCount {
            let entry = Offset.plugins + index * Offset.pluginSize
            let end = cell(UInt64.self, entry + 40).load()
            guard end != 0 else { continue }
            lower = min(lower, cell(UInt64.self, entry + 32).load())
            upper = max(upper, end)
        }
        return (lower, upper)
    }

    // MARK: Threads: whose code each one runs

    private var slotsClaimed: Cell<Int32> { cell(Int32.self, Offset.slotsClaimed) }

    /// Reserves a slot for the calling thread; `nil` when all are taken.
    func claimSlot() -> Int? {
        let slot = Int(slotsClaimed.increment())
        guard slot < Self.slotCapacity else { return nil }
        cell(UInt64.self, Offset.slots + slot * Offset.slotSize + 8).store(UInt64(pthread_self()))
        return slot
    }

    private func slotPlugin(_ slot: Int) -> Cell<Int32> { cell(Int32.self, Offset.slots + slot * Offset.slotSize) }
    private func slotPhase(_ slot: Int) -> Cell<Int32> { cell(Int32.self, Offset.slots + slot * Offset.slotSize + 4) }

    /// Says that the thread of `slot` runs code of `plugin` (-1: the host's) in `phase`.
    func setSlot(_ slot: Int, plugin: Int32, phase: Int32) {
        slotPlugin(slot).store(-1)
        slotPhase(slot).store(phase)
        slotPlugin(slot).store(plugin)
    }

    /// The slot of the calling thread, or `nil`. Async-signal-safe.
    func slotOfCurrentThread() -> Int? {
        let me = UInt64(pthread_self())
        let claimed = min(Int(slotsClaimed.load()), Self.slotCapacity)
        var slot = 0
        while slot < claimed {
            if cell(UInt64.self, Offset.slots + slot * Offset.slotSize + 8).load() == me { return slot }
            slot += 1
        }
        return nil
    }

    /// What the thread of `slot` runs: a plugin (-1: the host) and a phase.
    func slot(_ slot: Int) -> (plugin: Int32, phase: Int32) {
        (slotPlugin(slot).load(), slotPhase(slot).load())
    }

    /// Every thread that runs plugin code now, as (plugin, phase).
    func pluginCodeRunning() -> [(plugin: Int, phase: Int32)] {
        (0..<Self.slotCapacity).compactMap { slot in
            let (plugin, phase) = self.slot(slot)
            return plugin >= 0 ? (Int(plugin), phase) : nil
        }
    }

    // MARK: Records of how the worker ended

    /// A crash or an `exit` call, as the worker's handlers saw it: the culprit plugin (-1:
    /// none found), what gave it away, the phase, the kind of thread.
    struct Record: Equatable {
        var signal: Int32 = 0
        var status: Int32 = 0
        var culprit: Int32 = -1
        var evidence: Int32 = 0
        var phase: Int32 = 0
        var thread: Int32 = 0
        var address: UInt64 = 0
    }

    private func write(_ record: Record, at offset: Int) {
        cell(Int32.self, offset + 4).store(record.signal)
        cell(Int32.self, offset + 8).store(record.status)
        cell(Int32.self, offset + 12).store(record.culprit)
        cell(Int32.self, offset + 16).store(record.evidence)
        cell(Int32.self, offset + 20).store(record.phase)
        cell(Int32.self, offset + 24).store(record.thread)
        cell(UInt64.self, offset + 32).store(record.address)
        cell(Int32.self, offset).store(1)
    }

    private func read(at offset: Int) -> Record? {
        guard cell(Int32.self, offset).load() == 1 else { return nil }
        return Record(
            signal: cell(Int32.self, offset + 4).load(), status: cell(Int32.self, offset + 8).load(),
            culprit: cell(Int32.self, offset + 12).load(), evidence: cell(Int32.self, offset + 16).load(),
            phase: cell(Int32.self, offset + 20).load(), thread: cell(Int32.self, offset + 24).load(),
            address: cell(UInt64.self, offset + 32).load())
    }

    /// The crash the worker's signal handler recorded. Writing is async-signal-safe.
    var crash: Record? {
        get { read(at: Offset.crash) }
        set { if let newValue { write(newValue, at: Offset.crash) } }
    }

    /// The `exit` call of plugin code that the worker's exit handler recorded.
    var exitCall: Record? {
        get { read(at: Offset.exitCall) }
        set { if let newValue { write(newValue, at: Offset.exitCall) } }
    }

    /// What the worker's driving thread was found running when the supervisor asked.
    var stall: Record? {
        get { read(at: Offset.stall) }
        set { if let newValue { write(newValue, at: Offset.stall) } }
    }

    // MARK: Output: text the supervisor prints for the worker

    /// Which stream a piece of output is for.
    enum Stream: Int32 {
        case output = 1
        case error = 2
        /// A message for systemd's notification socket.
        case notification = 3
    }

    private var posted: Cell<Int64> { cell(Int64.self, Offset.output) }
    private var acknowledged: Cell<Int64> { cell(Int64.self, Offset.output + 8) }

    /// Hands `bytes` (at most ``outputCapacity``) to the supervisor for `stream` and waits
    /// until it has written them (or given up on a stream nobody reads). One writer at a
    /// time; the caller serialises.
    ///
    /// - Parameter wake: Tells the supervisor that output is waiting.
    func hand(_ bytes: ArraySlice<UInt8>, to stream: Stream, wake: () -> Void) {
        bytes.withUnsafeBytes { raw in
            if let source = raw.baseAddress { (base + Offset.outputBytes).copyMemory(from: source, byteCount: raw.count) }
        }
        cell(Int32.self, Offset.output + 16).store(stream.rawValue)
        cell(Int32.self, Offset.output + 20).store(Int32(bytes.count))
        let number = posted.load() + 1
        posted.store(number)
        wake()
        while acknowledged.load() < number {
            while sem_wait(semaphore(at: Offset.acknowledgements)) != 0 && errno == EINTR {}
        }
    }

    /// The output waiting to be written, if any: its number, stream and bytes (a copy).
    func pendingOutput(after handled: Int64) -> (number: Int64, stream: Stream, bytes: [UInt8])? {
        let number = posted.load()
        guard number > handled else { return nil }
        let stream = Stream(rawValue: cell(Int32.self, Offset.output + 16).load()) ?? .error
        let length = min(Int(cell(Int32.self, Offset.output + 20).load()), Self.outputCapacity)
        let bytes = Array(UnsafeRawBufferPointer(start: base + Offset.outputBytes, count: length))
        return (number, stream, bytes)
    }

    /// Tells the worker that output `number` is written.
    func acknowledge(_ number: Int64) {
        acknowledged.store(number)
        sem_post(semaphore(at: Offset.acknowledgements))
    }
}

extension SupervisionPage.Cell where Value == Int32 {
    func load() -> Int32 { pointer.pointee.load(ordering: .sequentiallyConsistent) }
    func store(_ value: Int32) { pointer.pointee.store(value, ordering: .sequentiallyConsistent) }
    /// Adds one; returns the value before.
    func increment() -> Int32 { pointer.pointee.wrappingAdd(1, ordering: .sequentiallyConsistent).oldValue }
}

extension SupervisionPage.Cell where Value == Int64 {
    func load() -> Int64 { pointer.pointee.load(ordering: .sequentiallyConsistent) }
    func store(_ value: Int64) { pointer.pointee.store(value, ordering: .sequentiallyConsistent) }
    func compareExchange(expected: Int64, desired: Int64) -> (exchanged: Bool, original: Int64) {
        pointer.pointee.compareExchange(expected: expected, desired: desired, ordering: .sequentiallyConsistent)
    }
}

extension SupervisionPage.Cell where Value == UInt64 {
    func load() -> UInt64 { pointer.pointee.load(ordering: .sequentiallyConsistent) }
    func store(_ value: UInt64) { pointer.pointee.store(value, ordering: .sequentiallyConsistent) }
}
