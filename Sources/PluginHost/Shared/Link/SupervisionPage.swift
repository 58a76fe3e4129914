/// The memory a supervisor shares with one worker generation: what the worker does and
/// until when it may, which plugin each of its threads runs, what went wrong, what it wants
/// printed or told to systemd, and the supervisor's requests.
///
/// It is ``SharedMemory`` mapped before the worker is forked, so no file descriptor is
/// involved that a plugin could close or reuse. Every field is an atomic word, which a
/// signal handler may read and write; texts are written before the count that publishes
/// them. ``Layout`` declares every field once, with its type; the rest of the host reads and
/// writes typed values (``PluginNumber``, ``Phase``, ``WorkerPhase``, ``WorkerRecord``,
/// ``MonotonicInstant``), never offsets or raw codes.
final class SupervisionPage: Sendable {
    /// The most plugins one generation can track.
    static let pluginCapacity = 65_536
    /// The most threads that can say whose code they run.
    static let slotCapacity = 2_048
    /// The most requirements, over all plugins, that the page records.
    static let requirementCapacity = 262_144
    /// The most bytes of plugin names, files and versions.
    static let textCapacity = 8 << 20
    /// The most bytes handed to the supervisor at once to print.
    static let outputCapacity = 1 << 20

    /// Where each field lies, declared once: each follows the one before it, at the
    /// alignment of its type, so that none overlaps another. Records of several fields (a
    /// step, a record of how the worker ended, a thread's slot, a plugin's entry) declare
    /// their fields relative to the record.
    ///
    /// Each is a computed value of constants, which the optimizer folds into the offset
    /// itself: reading a field costs no lookup, and a signal handler runs no initializer.
    enum Layout {
        /// The page's own fields.
        enum Header {
            static var magic: PageField<UInt64> { PageField<UInt64>(at: 0) }
            static var workerPhase: PageField<WorkerPhase> { PageField<WorkerPhase>(after: magic) }
            static var intendedStatus: PageField<Int32> { PageField<Int32>(after: workerPhase) }
            static var exiting: PageField<Bool> { PageField<Bool>(after: intendedStatus) }
            /// Counts every step the worker begins or ends.
            static var progress: PageField<Int32> { PageField<Int32>(after: exiting) }
            static var supervisorWakesAt: PageField<MonotonicInstant> { PageField<MonotonicInstant>(after: progress) }
            static var supervisorProcess: PageField<Int32> { PageField<Int32>(after: supervisorWakesAt) }
            static var driverThread: PageField<Int32> { PageField<Int32>(after: supervisorProcess) }
            static var pluginCount: PageField<Int32> { PageField<Int32>(after: driverThread) }
            static var textUsed: PageField<Int32> { PageField<Int32>(after: pluginCount) }
            static var requirementsUsed: PageField<Int32> { PageField<Int32>(after: textUsed) }
            static var slotsClaimed: PageField<Int32> { PageField<Int32>(after: requirementsUsed) }
            static var stopCount: PageField<Int32> { PageField<Int32>(after: slotsClaimed) }
            static var stopSignal: PageField<Int32> { PageField<Int32>(after: stopCount) }
            static var reloadCount: PageField<Int32> { PageField<Int32>(after: stopSignal) }
            static var rescanCount: PageField<Int32> { PageField<Int32>(after: reloadCount) }
            static var verdictCount: PageField<Int32> { PageField<Int32>(after: rescanCount) }
            static var verdict: PageField<CandidateVerdict> { PageField<CandidateVerdict>(after: verdictCount) }
            static var upgradeRequests: PageField<Int32> { PageField<Int32>(after: verdict) }
            static var forwardedStops: PageField<Int32> { PageField<Int32>(after: upgradeRequests) }
            static var forwardedReloads: PageField<Int32> { PageField<Int32>(after: forwardedStops) }
            static var forwardedStopSignal: PageField<Int32> { PageField<Int32>(after: forwardedReloads) }
            static var removeGoneCount: PageField<Int32> { PageField<Int32>(after: forwardedStopSignal) }
            static var failedPlugin: PageField<PluginNumber?> { PageField<PluginNumber?>(after: removeGoneCount) }
            /// Until when the last health check counts as good; 0 after a bad one.
            static var healthyUntil: PageField<MonotonicInstant> { PageField<MonotonicInstant>(after: failedPlugin) }
            static var outputPosted: PageField<Int64> { PageField<Int64>(after: healthyUntil) }
            static var outputAcknowledged: PageField<Int64> { PageField<Int64>(after: outputPosted) }
            static var outputKind: PageField<WorkerMessage.Kind> { PageField<WorkerMessage.Kind>(after: outputAcknowledged) }
            static var outputLength: PageField<Int32> { PageField<Int32>(after: outputKind) }
            static var outputValue: PageField<Int64> { PageField<Int64>(after: outputLength) }
            static var crash: PageRegion { PageRegion(after: outputValue, size: Record.size) }
            static var exitCall: PageRegion { PageRegion(after: crash, size: Record.size) }
            static var stall: PageRegion { PageRegion(after: exitCall, size: Record.size) }
            static var hostStep: PageRegion { PageRegion(after: stall, size: Step.size) }
            static var commands: PageRegion { PageRegion(after: hostStep, size: SharedMemory.semaphoreSize, alignment: SharedMemory.semaphoreAlignment) }
            static var acknowledgements: PageRegion {
                PageRegion(after: commands, size: SharedMemory.semaphoreSize, alignment: SharedMemory.semaphoreAlignment)
            }
            static var size: Int { acknowledgements.end }
        }

        /// A ``WorkerRecord``.
        enum Record {
            static var present: PageField<Bool> { PageField<Bool>(at: 0) }
            static var signal: PageField<Int32> { PageField<Int32>(after: present) }
            static var status: PageField<Int32> { PageField<Int32>(after: signal) }
            static var culprit: PageField<PluginNumber?> { PageField<PluginNumber?>(after: status) }
            static var evidence: PageField<WorkerRecord.Evidence> { PageField<WorkerRecord.Evidence>(after: culprit) }
            static var phase: PageField<Phase> { PageField<Phase>(after: evidence) }
            static var thread: PageField<WorkerRecord.ThreadKind> { PageField<WorkerRecord.ThreadKind>(after: phase) }
            static var address: PageField<UInt64> { PageField<UInt64>(after: thread) }
            static var size: Int { aligned(address.end, to: 8) }
        }

        /// A step: phase, policy, start and deadline.
        enum Step {
            static var phase: PageField<Phase> { PageField<Phase>(at: 0) }
            static var policy: PageField<OverrunPolicy> { PageField<OverrunPolicy>(after: phase) }
            static var started: PageField<MonotonicInstant> { PageField<MonotonicInstant>(after: policy) }
            /// The instant 0 while no step is under way.
            static var deadline: PageField<MonotonicInstant> { PageField<MonotonicInstant>(after: started) }
            static var size: Int { aligned(deadline.end, to: 8) }
        }

        /// A thread's slot: whose code it runs, in which phase, and which thread it is.
        enum Slot {
            static var plugin: PageField<PluginNumber?> { PageField<PluginNumber?>(at: 0) }
            static var phase: PageField<Phase> { PageField<Phase>(after: plugin) }
            static var thread: PageField<UInt64> { PageField<UInt64>(after: phase) }
            static var size: Int { aligned(thread.end, to: 8) }
        }

        /// A plugin's entry.
        enum Plugin {
            static var textOffset: PageField<Int32> { PageField<Int32>(at: 0) }
            static var nameLength: PageField<Int32> { PageField<Int32>(after: textOffset) }
            static var fileLength: PageField<Int32> { PageField<Int32>(after: nameLength) }
            static var versionLength: PageField<Int32> { PageField<Int32>(after: fileLength) }
            static var step: PageRegion { PageRegion(after: versionLength, size: Step.size) }
            static var codeLower: PageField<UInt64> { PageField<UInt64>(after: step) }
            static var codeUpper: PageField<UInt64> { PageField<UInt64>(after: codeLower) }
            static var device: PageField<UInt64> { PageField<UInt64>(after: codeUpper) }
            static var inode: PageField<UInt64> { PageField<UInt64>(after: device) }
            static var fileSize: PageField<Int64> { PageField<Int64>(after: inode) }
            static var modified: PageField<Int64> { PageField<Int64>(after: fileSize) }
            static var changed: PageField<Int64> { PageField<Int64>(after: modified) }
            static var requirementsOffset: PageField<Int32> { PageField<Int32>(after: changed) }
            static var requirementsCount: PageField<Int32> { PageField<Int32>(after: requirementsOffset) }
            static var state: PageField<PluginState> { PageField<PluginState>(after: requirementsCount) }
            static var providesService: PageField<Bool> { PageField<Bool>(after: state) }
            static var size: Int { aligned(providesService.end, to: 8) }
        }

        /// A required plugin's number.
        static var requirement: PageField<PluginNumber?> { PageField<PluginNumber?>(at: 0) }

        /// The tables after the header, which starts a page of its own.
        static var slots: PageRegion { PageRegion(at: aligned(Header.size, to: 4096), size: slotCapacity * Slot.size) }
        static var plugins: PageRegion { PageRegion(after: slots, size: pluginCapacity * Plugin.size) }
        static var requirements: PageRegion { PageRegion(after: plugins, size: requirementCapacity * MemoryLayout<Int32>.size) }
        static var texts: PageRegion { PageRegion(after: requirements, size: textCapacity, alignment: 1) }
        static var outputBytes: PageRegion { PageRegion(after: texts, size: outputCapacity, alignment: 1) }
        static var end: Int { outputBytes.end }
    }

    private static let magicValue: UInt64 = 0x504C_5547_484F_5354  // "PLUGHOST"
    private let memory: SharedMemory
    private let commands: SharedSemaphore
    private let acknowledgements: SharedSemaphore

    /// Maps a new, zeroed page shared with processes forked from now on.
    ///
    /// - Throws: ``SystemError`` when the memory cannot be mapped.
    init() throws(SystemError) {
        memory = try SharedMemory(size: Layout.end)
        commands = memory.semaphore(at: Layout.Header.commands.offset, initialize: true)
        acknowledgements = memory.semaphore(at: Layout.Header.acknowledgements.offset, initialize: true)
        store(Layout.Header.magic, Self.magicValue)
        store(Layout.Header.intendedStatus, -1)
        store(Layout.Header.failedPlugin, nil)
        store(Layout.Header.supervisorWakesAt, .distantFuture)
        for slot in 0..<Self.slotCapacity { store(Layout.Slot.plugin, nil, in: slotBase(slot)) }
    }

    /// Replaces the page, in this process only, by private zeroed memory: for a process
    /// plugin code forked from the worker. Async-signal-safe.
    func detach() { memory.detach() }

    /// Unmaps the page in the supervisor once its worker has ended.
    func unmap() { memory.unmap() }

    /// The memory itself, for the worker's handler of `fork` to detach.
    var sharedMemory: SharedMemory { memory }

    // MARK: Typed access to the fields

    private func atomic<Value>(_ field: PageField<Value>, in base: Int = 0) -> SharedAtomic<Value.Word> {
        memory.atomic(Value.Word.self, at: base + field.offset)
    }

    private func load<Value>(_ field: PageField<Value>, in base: Int = 0) -> Value {
        Value(word: atomic(field, in: base).load())
    }

    private func store<Value>(_ field: PageField<Value>, _ value: Value, in base: Int = 0) {
        atomic(field, in: base).store(value.word)
    }

    // MARK: The worker as a whole

    /// What the worker is doing as a whole.
    var workerPhase: WorkerPhase {
        get { load(Layout.Header.workerPhase) }
        set { store(Layout.Header.workerPhase, newValue) }
    }

    /// The status the host itself is about to exit with, once it said so; `nil` before.
    var intendedExit: Int32? {
        load(Layout.Header.exiting) ? load(Layout.Header.intendedStatus) : nil
    }

    /// Records that the host itself exits with `status`: any other ending is plugin code's.
    func recordIntendedExit(_ status: Int32) {
        store(Layout.Header.intendedStatus, status)
        store(Layout.Header.exiting, true)
    }

    /// Counts every step the worker begins or ends: the supervisor sees the worker go on.
    var progress: Int32 { load(Layout.Header.progress) }

    /// The supervisor's process id, for the worker to wake it.
    var supervisorProcess: ProcessID {
        get { ProcessID(rawValue: load(Layout.Header.supervisorProcess)) }
        set { store(Layout.Header.supervisorProcess, newValue.rawValue) }
    }

    /// When the supervisor wakes by itself; the instant 0 while it is awake. A worker posting
    /// an earlier deadline must wake it.
    var supervisorWakesAt: MonotonicInstant {
        get { load(Layout.Header.supervisorWakesAt) }
        set { store(Layout.Header.supervisorWakesAt, newValue) }
    }

    /// The kernel's id of the worker's driving thread, which runs only host code.
    var driverThread: Int32 {
        get { load(Layout.Header.driverThread) }
        set { store(Layout.Header.driverThread, newValue) }
    }

    /// Until when the worker's last health check counts as good; `nil` after a bad one, or
    /// before the first.
    var healthyUntil: MonotonicInstant? {
        get {
            let until = load(Layout.Header.healthyUntil)
            return until.nanoseconds == 0 ? nil : until
        }
        set { store(Layout.Header.healthyUntil, newValue ?? MonotonicInstant(nanoseconds: 0)) }
    }

    /// The plugin whose failure (not a crash: an error, a refusal) made the worker give up,
    /// as the worker recorded it for the supervisor.
    var failedPlugin: PluginNumber? {
        get { load(Layout.Header.failedPlugin) }
        set { store(Layout.Header.failedPlugin, newValue) }
    }

    // MARK: Requests

    /// A count that one side raises and the other follows.
    enum Counter {
        /// SIGINT or SIGTERM passed on by the supervisor: stop (only the first counts).
        case stop
        /// SIGHUP passed on by the supervisor: reload.
        case reload
        /// The plugin directories changed (`--watch`): rescan.
        case rescan
        /// A candidate that reported and waits: the supervisor's word is in ``verdict``.
        case verdict
        /// The worker asks for a new generation, to take up changed plugin files.
        case upgrade
        /// The supervisor has the worker remove, in place, the plugins whose files are gone.
        case removeGone

        fileprivate var field: PageField<Int32> {
            switch self {
            case .stop: Layout.Header.stopCount
            case .reload: Layout.Header.reloadCount
            case .rescan: Layout.Header.rescanCount
            case .verdict: Layout.Header.verdictCount
            case .upgrade: Layout.Header.upgradeRequests
            case .removeGone: Layout.Header.removeGoneCount
            }
        }
    }

    func count(_ counter: Counter) -> Int32 { load(counter.field) }

    /// Raises `counter` by one and wakes the worker's listener.
    func raise(_ counter: Counter) {
        atomic(counter.field).increment()
        commands.post()
    }

    /// The supervisor's last word to a candidate, written before ``Counter/verdict`` is raised.
    var verdict: CandidateVerdict {
        get { load(Layout.Header.verdict) }
        set { store(Layout.Header.verdict, newValue) }
    }

    /// The signal of the first stop request.
    var stopSignal: Signal {
        get { Signal(rawValue: load(Layout.Header.stopSignal)) }
        set { store(Layout.Header.stopSignal, newValue.rawValue) }
    }

    /// Waits for the supervisor's next request.
    func waitForRequest() { commands.wait() }

    /// Records SIGINT, SIGTERM or SIGHUP that reached the worker itself, for the supervisor.
    /// Async-signal-safe.
    func forward(_ signal: Signal) {
        if signal == .hangUp {
            atomic(Layout.Header.forwardedReloads).increment()
        } else {
            store(Layout.Header.forwardedStopSignal, signal.rawValue)
            atomic(Layout.Header.forwardedStops).increment()
        }
    }

    /// How many stop and reload signals reached the worker itself, and the last stop signal.
    var forwarded: (stops: Int32, reloads: Int32, stopSignal: Signal) {
        (load(Layout.Header.forwardedStops), load(Layout.Header.forwardedReloads), Signal(rawValue: load(Layout.Header.forwardedStopSignal)))
    }

    // MARK: Steps: plugin code the worker waits for, and until when

    /// One step: which phase, how an overrun is handled, when it began and its deadline
    /// (``MonotonicInstant/distantFuture``: no limit).
    struct Step: Equatable {
        var phase: Phase
        var policy: OverrunPolicy
        var started: MonotonicInstant
        var deadline: MonotonicInstant

        /// When the supervisor acts on the step.
        var limit: MonotonicInstant { policy.limit(forDeadline: deadline) }

        /// Whether it has a deadline at all.
        var isLimited: Bool { deadline != .distantFuture }
    }

    private func stepBase(of plugin: PluginNumber?) -> Int {
        plugin.map { pluginBase($0) + Layout.Plugin.step.offset } ?? Layout.Header.hostStep.offset
    }

    /// Records that `plugin` (`nil`: the host itself) begins a step.
    ///
    /// - Returns: Whether the supervisor sleeps past the step's limit and must be woken.
    ///   Only the first of several steps posted before it wakes says so: the wake time is
    ///   set to 0 (awake) on the way.
    func begin(_ step: Step, of plugin: PluginNumber?) -> Bool {
        let base = stepBase(of: plugin)
        store(Layout.Step.deadline, MonotonicInstant(nanoseconds: 0), in: base)
        store(Layout.Step.phase, step.phase, in: base)
        store(Layout.Step.policy, step.policy, in: base)
        store(Layout.Step.started, step.started, in: base)
        store(Layout.Step.deadline, step.deadline, in: base)
        atomic(Layout.Header.progress).increment()
        let wakesAt = atomic(Layout.Header.supervisorWakesAt)
        var wakes = wakesAt.load()
        while step.limit.nanoseconds < wakes {
            let (exchanged, current) = wakesAt.compareExchange(expected: wakes, desired: 0)
            if exchanged { return true }
            wakes = current
        }
        return false
    }

    /// Records that the step of `plugin` (or the host's) is over.
    func end(stepOf plugin: PluginNumber?) {
        store(Layout.Step.deadline, MonotonicInstant(nanoseconds: 0), in: stepBase(of: plugin))
        atomic(Layout.Header.progress).increment()
    }

    /// The current step of `plugin` (or of the host), or `nil` when it has none; a step
    /// that changes while it is read is reported as none, to be read again later.
    func step(of plugin: PluginNumber?) -> Step? {
        let base = stepBase(of: plugin)
        let first = load(Layout.Step.deadline, in: base)
        guard first.nanoseconds != 0 else { return nil }
        let step = Step(
            phase: load(Layout.Step.phase, in: base), policy: load(Layout.Step.policy, in: base),
            started: load(Layout.Step.started, in: base), deadline: first)
        return load(Layout.Step.deadline, in: base) == first ? step : nil
    }

    /// The phase of the last step `plugin` began, whether or not it is over.
    func lastPhase(of plugin: PluginNumber) -> Phase {
        load(Layout.Step.phase, in: stepBase(of: plugin))
    }

    // MARK: Plugins

    /// A plugin as the worker publishes it: what names it, which file and which version of
    /// the file it came from, and which of the plugins published before it it requires.
    struct PluginEntry: Equatable, Sendable {
        var name: String
        var file: String
        var version: String
        var identity: FileIdentity?
        var requires: [PluginNumber] = []
    }

    /// What became of a published plugin.
    enum PluginState: Int32, Sendable, PageCode {
        /// Published, to be loaded and bootstrapped.
        case published = 0
        /// Bootstrapped, and running.
        case running = 1
        /// Removed while the host ran.
        case removed = 2

        static let fallback = PluginState.published
    }

    private func pluginBase(_ plugin: PluginNumber) -> Int {
        Layout.plugins.offset + plugin.index * Layout.Plugin.size
    }

    /// How many plugins the worker has published.
    var pluginCount: Int { Int(load(Layout.Header.pluginCount)) }

    /// Every published plugin's number, in the order published.
    var plugins: [PluginNumber] { (0..<pluginCount).map { PluginNumber(rawValue: Int32($0)) } }

    /// Publishes more plugins, in bootstrap order, numbered after those published before:
    /// a plugin is its number from now on. One publisher at a time.
    ///
    /// - Returns: The number of the first, or `nil` when there are more plugins, texts or
    ///   requirements than the page holds.
    func publish(_ entries: [PluginEntry]) -> PluginNumber? {
        let first = pluginCount
        guard first + entries.count <= Self.pluginCapacity else { return nil }
        var textUsed = Int(load(Layout.Header.textUsed))
        var requirementsUsed = Int(load(Layout.Header.requirementsUsed))
        for (position, entry) in entries.enumerated() {
            let texts = [entry.name, entry.file, entry.version].map { Array($0.utf8.prefix(1024)) }
            let length = texts.reduce(0) { $0 + $1.count }
            guard textUsed + length <= Self.textCapacity, requirementsUsed + entry.requires.count <= Self.requirementCapacity
            else { return nil }
            let base = pluginBase(PluginNumber(first + position))
            store(Layout.Plugin.textOffset, Int32(textUsed), in: base)
            for (text, field) in zip(texts, [Layout.Plugin.nameLength, Layout.Plugin.fileLength, Layout.Plugin.versionLength]) {
                memory.write(text[...], at: Layout.texts.offset + textUsed)
                store(field, Int32(text.count), in: base)
                textUsed += text.count
            }
            if let identity = entry.identity {
                store(Layout.Plugin.device, identity.device, in: base)
                store(Layout.Plugin.inode, identity.inode, in: base)
                store(Layout.Plugin.fileSize, identity.size, in: base)
                store(Layout.Plugin.modified, identity.modificationNanoseconds, in: base)
                store(Layout.Plugin.changed, identity.changeNanoseconds, in: base)
            }
            store(Layout.Plugin.requirementsOffset, Int32(requirementsUsed), in: base)
            store(Layout.Plugin.requirementsCount, Int32(entry.requires.count), in: base)
            for required in entry.requires {
                store(Layout.requirement, required, in: requirementBase(requirementsUsed))
                requirementsUsed += 1
            }
        }
        store(Layout.Header.textUsed, Int32(textUsed))
        store(Layout.Header.requirementsUsed, Int32(requirementsUsed))
        store(Layout.Header.pluginCount, Int32(first + entries.count))
        return PluginNumber(first)
    }

    private func requirementBase(_ index: Int) -> Int {
        Layout.requirements.offset + index * MemoryLayout<Int32>.size
    }

    /// The published entry of `plugin`.
    func entry(of plugin: PluginNumber) -> PluginEntry {
        guard plugin.rawValue >= 0, plugin.index < pluginCount else {
            return PluginEntry(name: "#\(plugin.rawValue)", file: "?", version: "?")
        }
        let base = pluginBase(plugin)
        var text = Layout.texts.offset + Int(load(Layout.Plugin.textOffset, in: base))
        var strings: [String] = []
        for field in [Layout.Plugin.nameLength, Layout.Plugin.fileLength, Layout.Plugin.versionLength] {
            let length = min(max(0, Int(load(field, in: base))), Layout.texts.end - text)
            strings.append(memory.string(at: text, count: length))
            text += length
        }
        let device = load(Layout.Plugin.device, in: base)
        let inode = load(Layout.Plugin.inode, in: base)
        let identity = device == 0 && inode == 0 ? nil : FileIdentity(
            device: device, inode: inode, size: load(Layout.Plugin.fileSize, in: base),
            modificationNanoseconds: load(Layout.Plugin.modified, in: base), changeNanoseconds: load(Layout.Plugin.changed, in: base))
        let first = max(0, Int(load(Layout.Plugin.requirementsOffset, in: base)))
        let count = min(max(0, Int(load(Layout.Plugin.requirementsCount, in: base))), Self.requirementCapacity - first)
        let requires = (first..<(first + count)).compactMap { load(Layout.requirement, in: requirementBase($0)) }
        return PluginEntry(name: strings[0], file: strings[1], version: strings[2], identity: identity, requires: requires)
    }

    /// `Domain (plugins/libDomain.so)`: the plugin as the operator reads it.
    func label(of plugin: PluginNumber) -> String {
        let entry = entry(of: plugin)
        return "\(entry.name) (\(entry.file))"
    }

    /// What became of `plugin`, and whether it runs a service.
    func state(of plugin: PluginNumber) -> (state: PluginState, providesService: Bool) {
        let base = pluginBase(plugin)
        return (load(Layout.Plugin.state, in: base), load(Layout.Plugin.providesService, in: base))
    }

    /// Records what became of `plugin`.
    func setState(of plugin: PluginNumber, _ state: PluginState, providesService: Bool = false) {
        let base = pluginBase(plugin)
        store(Layout.Plugin.providesService, providesService, in: base)
        store(Layout.Plugin.state, state, in: base)
    }

    /// Records where `plugin`'s executable code was mapped, for the crash handler.
    func setCode(of plugin: PluginNumber, _ range: Range<UInt64>) {
        let base = pluginBase(plugin)
        store(Layout.Plugin.codeUpper, 0, in: base)
        store(Layout.Plugin.codeLower, range.lowerBound, in: base)
        store(Layout.Plugin.codeUpper, range.upperBound, in: base)
    }

    /// Whether `plugin`'s code was mapped (it was loaded).
    func hasCode(_ plugin: PluginNumber) -> Bool {
        plugin.index < pluginCount && load(Layout.Plugin.codeUpper, in: pluginBase(plugin)) != 0
    }

    /// The plugin whose executable code contains `address`, if any. Async-signal-safe.
    func plugin(containingCode address: UInt64) -> PluginNumber? {
        let count = pluginCount
        var index = 0
        while index < count {
            let base = pluginBase(PluginNumber(index))
            let upper = load(Layout.Plugin.codeUpper, in: base)
            if upper != 0, address < upper, address >= load(Layout.Plugin.codeLower, in: base) {
                return PluginNumber(index)
            }
            index += 1
        }
        return nil
    }

    /// The lowest and highest addresses of all plugins' code, to rule most words out at
    /// once. Async-signal-safe.
    func codeBounds() -> (lower: UInt64, upper: UInt64) {
        var lower = UInt64.max
        var upper: UInt64 = 0
        let count = pluginCount
        var index = 0
        while index < count {
            let base = pluginBase(PluginNumber(index))
            let end = load(Layout.Plugin.codeUpper, in: base)
            if end != 0 {
                lower = min(lower, load(Layout.Plugin.codeLower, in: base))
                upper = max(upper, end)
            }
            index += 1
        }
        return (lower, upper)
    }

    // MARK: Threads: whose code each one runs

    private func slotBase(_ slot: Int) -> Int {
        Layout.slots.offset + slot * Layout.Slot.size
    }

    /// Reserves a slot for the thread `thread` (``ThreadIdentity/current``); `nil` when all
    /// are taken.
    func claimSlot(for thread: UInt64) -> Int? {
        let slot = Int(atomic(Layout.Header.slotsClaimed).increment())
        guard slot < Self.slotCapacity else { return nil }
        store(Layout.Slot.thread, thread, in: slotBase(slot))
        return slot
    }

    /// Says that the thread of `slot` runs code of `plugin` (`nil`: the host's) in `phase`.
    func setSlot(_ slot: Int, plugin: PluginNumber?, phase: Phase) {
        let base = slotBase(slot)
        store(Layout.Slot.plugin, nil, in: base)
        store(Layout.Slot.phase, phase, in: base)
        store(Layout.Slot.plugin, plugin, in: base)
    }

    /// The slot of the thread `thread`, or `nil`. Async-signal-safe.
    func slot(of thread: UInt64) -> Int? {
        let claimed = min(Int(load(Layout.Header.slotsClaimed)), Self.slotCapacity)
        var slot = 0
        while slot < claimed {
            if load(Layout.Slot.thread, in: slotBase(slot)) == thread { return slot }
            slot += 1
        }
        return nil
    }

    /// What the thread of `slot` runs: a plugin (`nil`: the host) and a phase.
    func slot(_ slot: Int) -> (plugin: PluginNumber?, phase: Phase) {
        let base = slotBase(slot)
        return (load(Layout.Slot.plugin, in: base), load(Layout.Slot.phase, in: base))
    }

    /// Every thread that runs plugin code now, as (plugin, phase).
    func pluginCodeRunning() -> [(plugin: PluginNumber, phase: Phase)] {
        (0..<Self.slotCapacity).compactMap { slot in
            let (plugin, phase) = self.slot(slot)
            return plugin.map { ($0, phase) }
        }
    }

    // MARK: Records of how the worker ended

    private func write(_ record: WorkerRecord, in region: PageRegion) {
        let base = region.offset
        store(Layout.Record.signal, record.signal, in: base)
        store(Layout.Record.status, record.status, in: base)
        store(Layout.Record.culprit, record.culprit, in: base)
        store(Layout.Record.evidence, record.evidence, in: base)
        store(Layout.Record.phase, record.phase, in: base)
        store(Layout.Record.thread, record.thread, in: base)
        store(Layout.Record.address, record.address, in: base)
        store(Layout.Record.present, true, in: base)
    }

    private func read(_ region: PageRegion) -> WorkerRecord? {
        let base = region.offset
        guard load(Layout.Record.present, in: base) else { return nil }
        return WorkerRecord(
            signal: load(Layout.Record.signal, in: base), status: load(Layout.Record.status, in: base),
            culprit: load(Layout.Record.culprit, in: base), evidence: load(Layout.Record.evidence, in: base),
            phase: load(Layout.Record.phase, in: base), thread: load(Layout.Record.thread, in: base),
            address: load(Layout.Record.address, in: base))
    }

    /// The crash the worker's signal handler recorded. Writing is async-signal-safe.
    var crash: WorkerRecord? {
        get { read(Layout.Header.crash) }
        set { if let newValue { write(newValue, in: Layout.Header.crash) } }
    }

    /// The `exit` call of plugin code that the worker's exit handler recorded.
    var exitCall: WorkerRecord? {
        get { read(Layout.Header.exitCall) }
        set { if let newValue { write(newValue, in: Layout.Header.exitCall) } }
    }

    /// What the worker's driving thread was found running when the supervisor asked.
    var stall: WorkerRecord? {
        get { read(Layout.Header.stall) }
        set { if let newValue { write(newValue, in: Layout.Header.stall) } }
    }

    // MARK: Messages: text the supervisor prints, and notifications it sends, for the worker

    /// Hands `message` to the supervisor and waits until it has written or sent it (or
    /// given up on a stream nobody reads). Text is at most ``outputCapacity`` bytes; one
    /// writer at a time, the caller serialises.
    ///
    /// - Parameter wake: Tells the supervisor that a message is waiting.
    func hand(_ message: WorkerMessage, wake: () -> Void) {
        let number = post(message, wake: wake)
        while load(Layout.Header.outputAcknowledged) < number { acknowledgements.wait() }
    }

    /// Hands `message` to the supervisor once it has taken the one before, and returns
    /// without waiting for it to act: for what needs no answer and no order with the
    /// output of plugins. The supervisor takes a message left waiting even after the
    /// worker has ended. One writer at a time, the caller serialises.
    ///
    /// - Parameter wake: Tells the supervisor that a message is waiting.
    /// - Returns: The message's number.
    @discardableResult
    func post(_ message: WorkerMessage, wake: () -> Void) -> Int64 {
        let (kind, value, bytes) = message.encoded
        precondition(bytes.count <= Self.outputCapacity)
        let number = load(Layout.Header.outputPosted) + 1
        while load(Layout.Header.outputAcknowledged) < number - 1 { acknowledgements.wait() }
        memory.write(bytes, at: Layout.outputBytes.offset)
        store(Layout.Header.outputKind, kind)
        store(Layout.Header.outputLength, Int32(bytes.count))
        store(Layout.Header.outputValue, value)
        store(Layout.Header.outputPosted, number)
        wake()
        return number
    }

    /// The message waiting to be handled, if any: its number and a copy of it.
    func pendingMessage(after handled: Int64) -> (number: Int64, message: WorkerMessage)? {
        let number = load(Layout.Header.outputPosted)
        guard number > handled else { return nil }
        let length = min(max(0, Int(load(Layout.Header.outputLength))), Self.outputCapacity)
        let message = WorkerMessage(
            kind: load(Layout.Header.outputKind), value: load(Layout.Header.outputValue),
            bytes: memory.bytes(at: Layout.outputBytes.offset, count: length))
        return (number, message)
    }

    /// Tells the worker that message `number` is handled.
    func acknowledge(_ number: Int64) {
        store(Layout.Header.outputAcknowledged, number)
        acknowledgements.post()
    }
}

/// A plugin as one worker generation numbers it, in the order it published its plugins.
struct PluginNumber: Hashable, Comparable, Sendable, CustomStringConvertible {
    let rawValue: Int32

    init(rawValue: Int32) { self.rawValue = rawValue }

    init(_ index: Int) { rawValue = Int32(index) }

    /// The number a record holds, where -1 stands for none.
    init?(recorded value: Int32) {
        guard value >= 0 else { return nil }
        rawValue = value
    }

    /// The number after `offset` more plugins.
    func advanced(by offset: Int) -> PluginNumber { PluginNumber(rawValue: rawValue + Int32(offset)) }

    var index: Int { Int(rawValue) }

    static func < (lhs: PluginNumber, rhs: PluginNumber) -> Bool { lhs.rawValue < rhs.rawValue }

    var description: String { "#\(rawValue)" }
}

/// A crash, a plugin's `exit()` or a stall, as the worker's handlers recorded it: which
/// plugin is to blame (if any was found), what gave it away, in which phase, on which kind
/// of thread.
struct WorkerRecord: Equatable, Sendable {
    /// What gave the culprit away.
    enum Evidence: Int32, Sendable, PageCode {
        case none = 0
        /// The faulting instruction is in the plugin's code.
        case faultingCode = 1
        /// The plugin's code is on the thread's stack.
        case stack = 2
        /// The thread said it runs the plugin's code.
        case runningThread = 3

        static let fallback = Evidence.none
    }

    /// Which kind of thread crashed or called `exit`.
    enum ThreadKind: Int32, Sendable, PageCode {
        case notTheHosts = 0
        case hostCode = 1
        case pluginCode = 2

        static let fallback = ThreadKind.notTheHosts
    }

    var signal: Int32 = 0
    var status: Int32 = 0
    var culprit: PluginNumber?
    var evidence: Evidence = .none
    var phase: Phase = .unknown
    var thread: ThreadKind = .notTheHosts
    var address: UInt64 = 0
}

/// What a worker hands the supervisor: text for its standard output or error, or a
/// notification for systemd.
enum WorkerMessage: Equatable, Sendable {
    case output([UInt8])
    case error([UInt8])
    case notification(ServiceNotification)
    /// What the worker tells the supervisor for the operator: ``WorkerNews``, encoded.
    case news([UInt8])

    /// What a message is, as the page codes it.
    enum Kind: Int32, Sendable, PageCode {
        case output = 1
        case error = 2
        case ready = 3
        case reloading = 4
        case status = 5
        case stopping = 6
        case news = 7

        static let fallback = Kind.error
    }

    /// The kind, a number and the bytes, as the page holds them.
    fileprivate var encoded: (kind: Kind, value: Int64, bytes: ArraySlice<UInt8>) {
        switch self {
        case .output(let bytes): (.output, 0, bytes[...])
        case .error(let bytes): (.error, 0, bytes[...])
        case .notification(.ready(let status)): (.ready, 0, Array(status.utf8)[...])
        case .notification(.reloading(let microseconds)): (.reloading, microseconds, [])
        case .notification(.status(let status)): (.status, 0, Array(status.utf8)[...])
        case .notification(.stopping(let status)): (.stopping, 0, Array(status.utf8)[...])
        case .news(let bytes): (.news, 0, bytes[...])
        }
    }

    fileprivate init(kind: Kind, value: Int64, bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        switch kind {
        case .output: self = .output(bytes)
        case .error: self = .error(bytes)
        case .ready: self = .notification(.ready(status: text))
        case .reloading: self = .notification(.reloading(monotonicMicroseconds: value))
        case .status: self = .notification(.status(text))
        case .stopping: self = .notification(.stopping(status: text))
        case .news: self = .news(bytes)
        }
    }
}
