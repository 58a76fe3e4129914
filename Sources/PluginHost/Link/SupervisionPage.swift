/// The memory a supervisor shares with one worker generation: what the worker does and
/// until when it may, which plugin each of its threads runs, what went wrong, what it wants
/// printed or told to systemd, and the supervisor's requests.
///
/// It is ``SharedMemory`` mapped before the worker is forked, so no file descriptor is
/// involved that a plugin could close or reuse. Every field is an atomic number, which a
/// signal handler may read and write; texts are written before the count that publishes
/// them. ``Layout`` names every field in one place, and a test checks that none overlaps
/// another; the rest of the host reads and writes typed values (``PluginNumber``,
/// ``Phase``, ``WorkerPhase``, ``WorkerRecord``), never offsets or raw codes.
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

    /// Where each field lies. Records of several fields (a step, a crash record, a plugin
    /// entry) have their own offsets, relative to the record.
    enum Layout {
        struct Field {
            let name: String
            let offset: Int
            let size: Int
        }

        static let magic = 0
        static let workerPhase = 8
        static let intendedStatus = 12
        static let exiting = 16
        static let progress = 20
        static let supervisorWakesAt = 24
        static let supervisorProcess = 32
        static let driverThread = 36
        static let pluginCount = 40
        static let textUsed = 44
        static let requirementsUsed = 48
        static let slotsClaimed = 52
        static let stopCount = 56
        static let stopSignal = 60
        static let reloadCount = 64
        static let rescanCount = 68
        static let proceedCount = 72
        static let upgradeRequests = 76
        static let forwardedStops = 80
        static let forwardedReloads = 84
        static let forwardedStopSignal = 88
        static let failedPlugin = 92
        static let healthyUntil = 96
        static let outputPosted = 104
        static let outputAcknowledged = 112
        static let outputKind = 120
        static let outputLength = 124
        static let outputValue = 128
        static let crash = 192
        static let exitCall = 256
        static let stall = 320
        static let hostStep = 384
        static let commands = 448
        static let acknowledgements = 512
        static let headerEnd = 4096

        /// A ``WorkerRecord``.
        enum Record {
            static let present = 0
            static let signal = 4
            static let status = 8
            static let culprit = 12
            static let evidence = 16
            static let phase = 20
            static let thread = 24
            static let address = 32
            static let size = 64
        }

        /// A step: phase, policy, start and deadline.
        enum Step {
            static let phase = 0
            static let policy = 4
            static let started = 8
            static let deadline = 16
            static let size = 32
        }

        /// A thread's slot: whose code it runs, in which phase, and which thread it is.
        enum Slot {
            static let plugin = 0
            static let phase = 4
            static let thread = 8
            static let size = 16
        }

        /// A plugin's entry.
        enum Plugin {
            static let textOffset = 0
            static let nameLength = 4
            static let fileLength = 8
            static let versionLength = 12
            static let step = 16
            static let codeLower = 48
            static let codeUpper = 56
            static let device = 64
            static let inode = 72
            static let fileSize = 80
            static let modified = 88
            static let changed = 96
            static let requirementsOffset = 104
            static let requirementsCount = 108
            static let state = 112
            static let providesService = 116
            static let size = 128
        }

        static let slots = headerEnd
        static let plugins = slots + slotCapacity * Slot.size
        static let requirements = plugins + pluginCapacity * Plugin.size
        static let texts = requirements + requirementCapacity * 4
        static let outputBytes = texts + textCapacity
        static let end = outputBytes + outputCapacity

        /// Every field and table, to check that none overlaps another.
        static let fields: [Field] = [
            Field(name: "magic", offset: magic, size: 8),
            Field(name: "workerPhase", offset: workerPhase, size: 4),
            Field(name: "intendedStatus", offset: intendedStatus, size: 4),
            Field(name: "exiting", offset: exiting, size: 4),
            Field(name: "progress", offset: progress, size: 4),
            Field(name: "supervisorWakesAt", offset: supervisorWakesAt, size: 8),
            Field(name: "supervisorProcess", offset: supervisorProcess, size: 4),
            Field(name: "driverThread", offset: driverThread, size: 4),
            Field(name: "pluginCount", offset: pluginCount, size: 4),
            Field(name: "textUsed", offset: textUsed, size: 4),
            Field(name: "requirementsUsed", offset: requirementsUsed, size: 4),
            Field(name: "slotsClaimed", offset: slotsClaimed, size: 4),
            Field(name: "stopCount", offset: stopCount, size: 4),
            Field(name: "stopSignal", offset: stopSignal, size: 4),
            Field(name: "reloadCount", offset: reloadCount, size: 4),
            Field(name: "rescanCount", offset: rescanCount, size: 4),
            Field(name: "proceedCount", offset: proceedCount, size: 4),
            Field(name: "upgradeRequests", offset: upgradeRequests, size: 4),
            Field(name: "forwardedStops", offset: forwardedStops, size: 4),
            Field(name: "forwardedReloads", offset: forwardedReloads, size: 4),
            Field(name: "forwardedStopSignal", offset: forwardedStopSignal, size: 4),
            Field(name: "failedPlugin", offset: failedPlugin, size: 4),
            Field(name: "healthyUntil", offset: healthyUntil, size: 8),
            Field(name: "outputPosted", offset: outputPosted, size: 8),
            Field(name: "outputAcknowledged", offset: outputAcknowledged, size: 8),
            Field(name: "outputKind", offset: outputKind, size: 4),
            Field(name: "outputLength", offset: outputLength, size: 4),
            Field(name: "outputValue", offset: outputValue, size: 8),
            Field(name: "crash", offset: crash, size: Record.size),
            Field(name: "exitCall", offset: exitCall, size: Record.size),
            Field(name: "stall", offset: stall, size: Record.size),
            Field(name: "hostStep", offset: hostStep, size: Step.size),
            Field(name: "commands", offset: commands, size: 64),
            Field(name: "acknowledgements", offset: acknowledgements, size: 64),
            Field(name: "slots", offset: slots, size: slotCapacity * Slot.size),
            Field(name: "plugins", offset: plugins, size: pluginCapacity * Plugin.size),
            Field(name: "requirements", offset: requirements, size: requirementCapacity * 4),
            Field(name: "texts", offset: texts, size: textCapacity),
            Field(name: "outputBytes", offset: outputBytes, size: outputCapacity),
        ]

        /// The fields that overlap another, as `a/b` pairs; empty for a sound layout.
        static var overlaps: [String] {
            let sorted = fields.sorted { $0.offset < $1.offset }
            var found: [String] = []
            for (first, second) in zip(sorted, sorted.dropFirst()) where first.offset + first.size > second.offset {
                found.append("\(first.name)/\(second.name)")
            }
            let header = [Record.size, Step.size, Slot.size, Plugin.size]
            if fields.contains(where: { $0.offset < headerEnd && $0.offset + $0.size > headerEnd }) || header.contains(0) {
                found.append("header")
            }
            return found
        }
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
        commands = memory.semaphore(at: Layout.commands, initialize: true)
        acknowledgements = memory.semaphore(at: Layout.acknowledgements, initialize: true)
        memory.atomic(UInt64.self, at: Layout.magic).store(Self.magicValue)
        memory.atomic(Int32.self, at: Layout.intendedStatus).store(-1)
        memory.atomic(Int32.self, at: Layout.failedPlugin).store(-1)
        supervisorWakesAt.store(.max)
        for slot in 0..<Self.slotCapacity { slotField(slot, Layout.Slot.plugin).store(-1) }
    }

    /// Replaces the page, in this process only, by private zeroed memory: for a process
    /// plugin code forked from the worker. Async-signal-safe.
    func detach() { memory.detach() }

    /// Unmaps the page in the supervisor once its worker has ended.
    func unmap() { memory.unmap() }

    /// The memory itself, for the worker's handler of `fork` to detach.
    var sharedMemory: SharedMemory { memory }

    private func int32(_ offset: Int) -> SharedAtomic<Int32> { memory.atomic(Int32.self, at: offset) }
    private func int64(_ offset: Int) -> SharedAtomic<Int64> { memory.atomic(Int64.self, at: offset) }
    private func uint64(_ offset: Int) -> SharedAtomic<UInt64> { memory.atomic(UInt64.self, at: offset) }

    // MARK: The worker as a whole

    /// What the worker is doing as a whole.
    var workerPhase: WorkerPhase {
        get { WorkerPhase(rawValue: int32(Layout.workerPhase).load()) ?? .startUp }
        set { int32(Layout.workerPhase).store(newValue.rawValue) }
    }

    /// The status the host itself is about to exit with, once it said so; `nil` before.
    var intendedExit: Int32? {
        int32(Layout.exiting).load() == 1 ? int32(Layout.intendedStatus).load() : nil
    }

    /// Records that the host itself exits with `status`: any other ending is plugin code's.
    func recordIntendedExit(_ status: Int32) {
        int32(Layout.intendedStatus).store(status)
        int32(Layout.exiting).store(1)
    }

    /// Counts every step the worker begins or ends: the supervisor sees the worker go on.
    var progress: Int32 { int32(Layout.progress).load() }

    /// The supervisor's process id, for the worker to wake it.
    var supervisorProcess: SharedAtomic<Int32> { int32(Layout.supervisorProcess) }

    /// When the supervisor wakes by itself; 0 while it is awake. A worker posting an
    /// earlier deadline must wake it.
    var supervisorWakesAt: SharedAtomic<Int64> { int64(Layout.supervisorWakesAt) }

    /// The kernel's id of the worker's driving thread, which runs only host code.
    var driverThread: SharedAtomic<Int32> { int32(Layout.driverThread) }

    /// Until when the worker's last health check counts as good (``MonotonicClock``
    /// nanoseconds); 0 after a bad one.
    var healthyUntil: SharedAtomic<Int64> { int64(Layout.healthyUntil) }

    /// The plugin whose failure (not a crash: an error, a refusal) made the worker give up,
    /// as the worker recorded it for the supervisor.
    var failedPlugin: PluginNumber? {
        get { PluginNumber(recorded: int32(Layout.failedPlugin).load()) }
        set { int32(Layout.failedPlugin).store(newValue?.rawValue ?? -1) }
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
        /// A worker that loaded its plugins and waits: bootstrap now.
        case proceed
        /// The worker asks for a new generation, to take up changed plugin files.
        case upgrade

        fileprivate var offset: Int {
            switch self {
            case .stop: Layout.stopCount
            case .reload: Layout.reloadCount
            case .rescan: Layout.rescanCount
            case .proceed: Layout.proceedCount
            case .upgrade: Layout.upgradeRequests
            }
        }
    }

    func count(_ counter: Counter) -> Int32 { int32(counter.offset).load() }

    /// Raises `counter` by one and wakes the worker's listener.
    func raise(_ counter: Counter) {
        int32(counter.offset).increment()
        commands.post()
    }

    /// The signal of the first stop request.
    var stopSignal: Int32 {
        get { int32(Layout.stopSignal).load() }
        set { int32(Layout.stopSignal).store(newValue) }
    }

    /// Waits for the supervisor's next request.
    func waitForRequest() { commands.wait() }

    /// Records SIGINT, SIGTERM or SIGHUP that reached the worker itself, for the supervisor.
    /// Async-signal-safe.
    func forward(_ signal: Int32, isReload: Bool) {
        if isReload {
            int32(Layout.forwardedReloads).increment()
        } else {
            int32(Layout.forwardedStopSignal).store(signal)
            int32(Layout.forwardedStops).increment()
        }
    }

    /// How many stop and reload signals reached the worker itself, and the last stop signal.
    var forwarded: (stops: Int32, reloads: Int32, stopSignal: Int32) {
        (int32(Layout.forwardedStops).load(), int32(Layout.forwardedReloads).load(), int32(Layout.forwardedStopSignal).load())
    }

    // MARK: Steps: plugin code the worker waits for, and until when

    /// One step: which phase, how an overrun is handled, when it began and its deadline
    /// (``MonotonicClock`` nanoseconds; `Int64.max`: no limit).
    struct Step: Equatable {
        var phase: Phase
        var policy: OverrunPolicy
        var started: Int64
        var deadline: Int64

        /// When the supervisor acts on the step.
        var limit: Int64 { policy.limit(forDeadline: deadline) }
    }

    private func stepOffset(of plugin: PluginNumber?) -> Int {
        plugin.map { pluginOffset($0) + Layout.Plugin.step } ?? Layout.hostStep
    }

    /// Records that `plugin` (`nil`: the host itself) begins a step.
    ///
    /// - Returns: Whether the supervisor sleeps past the step's limit and must be woken.
    ///   Only the first of several steps posted before it wakes says so: the wake time is
    ///   set to 0 (awake) on the way.
    func begin(_ step: Step, of plugin: PluginNumber?) -> Bool {
        let offset = stepOffset(of: plugin)
        let deadline = int64(offset + Layout.Step.deadline)
        deadline.store(0)
        int32(offset + Layout.Step.phase).store(step.phase.rawValue)
        int32(offset + Layout.Step.policy).store(step.policy.rawValue)
        int64(offset + Layout.Step.started).store(step.started)
        deadline.store(step.deadline)
        int32(Layout.progress).increment()
        var wakes = supervisorWakesAt.load()
        while step.limit < wakes {
            let (exchanged, current) = supervisorWakesAt.compareExchange(expected: wakes, desired: 0)
            if exchanged { return true }
            wakes = current
        }
        return false
    }

    /// Records that the step of `plugin` (or the host's) is over.
    func end(stepOf plugin: PluginNumber?) {
        int64(stepOffset(of: plugin) + Layout.Step.deadline).store(0)
        int32(Layout.progress).increment()
    }

    /// The current step of `plugin` (or of the host), or `nil` when it has none; a step
    /// that changes while it is read is reported as none, to be read again later.
    func step(of plugin: PluginNumber?) -> Step? {
        let offset = stepOffset(of: plugin)
        let deadline = int64(offset + Layout.Step.deadline)
        let first = deadline.load()
        guard first != 0 else { return nil }
        let step = Step(
            phase: Phase(rawValue: int32(offset + Layout.Step.phase).load()) ?? .unknown,
            policy: OverrunPolicy(rawValue: int32(offset + Layout.Step.policy).load()) ?? .endHost,
            started: int64(offset + Layout.Step.started).load(), deadline: first)
        return deadline.load() == first ? step : nil
    }

    /// The phase of the last step `plugin` began, whether or not it is over.
    func lastPhase(of plugin: PluginNumber) -> Phase {
        Phase(rawValue: int32(stepOffset(of: plugin) + Layout.Step.phase).load()) ?? .unknown
    }

    /// Whose steps the page can hold: the host's (`nil`), then each plugin's.
    var stepOwners: [PluginNumber?] {
        [nil] + plugins.map { $0 }
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
    enum PluginState: Int32, Sendable {
        /// Published, to be loaded and bootstrapped.
        case published = 0
        /// Bootstrapped, and running.
        case running = 1
        /// Removed while the host ran.
        case removed = 2
    }

    private func pluginOffset(_ plugin: PluginNumber) -> Int {
        Layout.plugins + Int(plugin.rawValue) * Layout.Plugin.size
    }

    /// How many plugins the worker has published.
    var pluginCount: Int { Int(int32(Layout.pluginCount).load()) }

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
        var textUsed = Int(int32(Layout.textUsed).load())
        var requirementsUsed = Int(int32(Layout.requirementsUsed).load())
        for (position, entry) in entries.enumerated() {
            let texts = [entry.name, entry.file, entry.version].map { Array($0.utf8.prefix(1024)) }
            let length = texts.reduce(0) { $0 + $1.count }
            guard textUsed + length <= Self.textCapacity, requirementsUsed + entry.requires.count <= Self.requirementCapacity
            else { return nil }
            let offset = pluginOffset(PluginNumber(rawValue: Int32(first + position)))
            int32(offset + Layout.Plugin.textOffset).store(Int32(textUsed))
            for (text, field) in zip(texts, [Layout.Plugin.nameLength, Layout.Plugin.fileLength, Layout.Plugin.versionLength]) {
                memory.write(text[...], at: Layout.texts + textUsed)
                int32(offset + field).store(Int32(text.count))
                textUsed += text.count
            }
            if let identity = entry.identity {
                uint64(offset + Layout.Plugin.device).store(identity.device)
                uint64(offset + Layout.Plugin.inode).store(identity.inode)
                int64(offset + Layout.Plugin.fileSize).store(identity.size)
                int64(offset + Layout.Plugin.modified).store(identity.modificationNanoseconds)
                int64(offset + Layout.Plugin.changed).store(identity.changeNanoseconds)
            }
            int32(offset + Layout.Plugin.requirementsOffset).store(Int32(requirementsUsed))
            int32(offset + Layout.Plugin.requirementsCount).store(Int32(entry.requires.count))
            for required in entry.requires {
                int32(Layout.requirements + requirementsUsed * 4).store(required.rawValue)
                requirementsUsed += 1
            }
        }
        int32(Layout.textUsed).store(Int32(textUsed))
        int32(Layout.requirementsUsed).store(Int32(requirementsUsed))
        int32(Layout.pluginCount).store(Int32(first + entries.count))
        return PluginNumber(rawValue: Int32(first))
    }

    /// The published entry of `plugin`.
    func entry(of plugin: PluginNumber) -> PluginEntry {
        guard plugin.rawValue >= 0, Int(plugin.rawValue) < pluginCount else {
            return PluginEntry(name: "#\(plugin.rawValue)", file: "?", version: "?")
        }
        let offset = pluginOffset(plugin)
        var text = Layout.texts + Int(int32(offset + Layout.Plugin.textOffset).load())
        var strings: [String] = []
        for field in [Layout.Plugin.nameLength, Layout.Plugin.fileLength, Layout.Plugin.versionLength] {
            let length = Int(int32(offset + field).load())
            strings.append(memory.string(at: text, count: length))
            text += length
        }
        let device = uint64(offset + Layout.Plugin.device).load()
        let inode = uint64(offset + Layout.Plugin.inode).load()
        let identity = device == 0 && inode == 0 ? nil : FileIdentity(
            device: device, inode: inode, size: int64(offset + Layout.Plugin.fileSize).load(),
            modificationNanoseconds: int64(offset + Layout.Plugin.modified).load(),
            changeNanoseconds: int64(offset + Layout.Plugin.changed).load())
        let first = Int(int32(offset + Layout.Plugin.requirementsOffset).load())
        let count = Int(int32(offset + Layout.Plugin.requirementsCount).load())
        let requires = (first..<(first + count)).map { PluginNumber(rawValue: int32(Layout.requirements + $0 * 4).load()) }
        return PluginEntry(name: strings[0], file: strings[1], version: strings[2], identity: identity, requires: requires)
    }

    /// `Domain (plugins/libDomain.so)`: the plugin as the operator reads it.
    func label(of plugin: PluginNumber) -> String {
        let entry = entry(of: plugin)
        return "\(entry.name) (\(entry.file))"
    }

    /// What became of `plugin`, and whether it runs a service.
    func state(of plugin: PluginNumber) -> (state: PluginState, providesService: Bool) {
        let offset = pluginOffset(plugin)
        return (PluginState(rawValue: int32(offset + Layout.Plugin.state).load()) ?? .published,
                int32(offset + Layout.Plugin.providesService).load() == 1)
    }

    /// Records what became of `plugin`.
    func setState(of plugin: PluginNumber, _ state: PluginState, providesService: Bool = false) {
        let offset = pluginOffset(plugin)
        int32(offset + Layout.Plugin.providesService).store(providesService ? 1 : 0)
        int32(offset + Layout.Plugin.state).store(state.rawValue)
    }

    /// Records where `plugin`'s executable code was mapped, for the crash handler.
    func setCode(of plugin: PluginNumber, _ range: Range<UInt64>) {
        let offset = pluginOffset(plugin)
        uint64(offset + Layout.Plugin.codeUpper).store(0)
        uint64(offset + Layout.Plugin.codeLower).store(range.lowerBound)
        uint64(offset + Layout.Plugin.codeUpper).store(range.upperBound)
    }

    /// Whether `plugin`'s code was mapped (it was loaded).
    func hasCode(_ plugin: PluginNumber) -> Bool {
        plugin.index < pluginCount && uint64(pluginOffset(plugin) + Layout.Plugin.codeUpper).load() != 0
    }

    /// The plugin whose executable code contains `address`, if any. Async-signal-safe.
    func plugin(containingCode address: UInt64) -> PluginNumber? {
        let count = pluginCount
        var index = 0
        while index < count {
            let offset = Layout.plugins + index * Layout.Plugin.size
            let upper = uint64(offset + Layout.Plugin.codeUpper).load()
            if upper != 0, address < upper, address >= uint64(offset + Layout.Plugin.codeLower).load() {
                return PluginNumber(rawValue: Int32(index))
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
            let offset = Layout.plugins + index * Layout.Plugin.size
            let end = uint64(offset + Layout.Plugin.codeUpper).load()
            if end != 0 {
                lower = min(lower, uint64(offset + Layout.Plugin.codeLower).load())
                upper = max(upper, end)
            }
            index += 1
        }
        return (lower, upper)
    }

    // MARK: Threads: whose code each one runs

    private func slotField(_ slot: Int, _ field: Int) -> SharedAtomic<Int32> {
        int32(Layout.slots + slot * Layout.Slot.size + field)
    }

    /// Reserves a slot for the thread `thread` (``ThreadIdentity/current``); `nil` when all
    /// are taken.
    func claimSlot(for thread: UInt64) -> Int? {
        let slot = Int(int32(Layout.slotsClaimed).increment())
        guard slot < Self.slotCapacity else { return nil }
        uint64(Layout.slots + slot * Layout.Slot.size + Layout.Slot.thread).store(thread)
        return slot
    }

    /// Says that the thread of `slot` runs code of `plugin` (`nil`: the host's) in `phase`.
    func setSlot(_ slot: Int, plugin: PluginNumber?, phase: Phase) {
        slotField(slot, Layout.Slot.plugin).store(-1)
        slotField(slot, Layout.Slot.phase).store(phase.rawValue)
        slotField(slot, Layout.Slot.plugin).store(plugin?.rawValue ?? -1)
    }

    /// The slot of the thread `thread`, or `nil`. Async-signal-safe.
    func slot(of thread: UInt64) -> Int? {
        let claimed = min(Int(int32(Layout.slotsClaimed).load()), Self.slotCapacity)
        var slot = 0
        while slot < claimed {
            if uint64(Layout.slots + slot * Layout.Slot.size + Layout.Slot.thread).load() == thread { return slot }
            slot += 1
        }
        return nil
    }

    /// What the thread of `slot` runs: a plugin (`nil`: the host) and a phase.
    func slot(_ slot: Int) -> (plugin: PluginNumber?, phase: Phase) {
        (PluginNumber(recorded: slotField(slot, Layout.Slot.plugin).load()),
         Phase(rawValue: slotField(slot, Layout.Slot.phase).load()) ?? .unknown)
    }

    /// Every thread that runs plugin code now, as (plugin, phase).
    func pluginCodeRunning() -> [(plugin: PluginNumber, phase: Phase)] {
        (0..<Self.slotCapacity).compactMap { slot in
            let (plugin, phase) = self.slot(slot)
            return plugin.map { ($0, phase) }
        }
    }

    // MARK: Records of how the worker ended

    private func write(_ record: WorkerRecord, at offset: Int) {
        int32(offset + Layout.Record.signal).store(record.signal)
        int32(offset + Layout.Record.status).store(record.status)
        int32(offset + Layout.Record.culprit).store(record.culprit?.rawValue ?? -1)
        int32(offset + Layout.Record.evidence).store(record.evidence.rawValue)
        int32(offset + Layout.Record.phase).store(record.phase.rawValue)
        int32(offset + Layout.Record.thread).store(record.thread.rawValue)
        uint64(offset + Layout.Record.address).store(record.address)
        int32(offset + Layout.Record.present).store(1)
    }

    private func read(at offset: Int) -> WorkerRecord? {
        guard int32(offset + Layout.Record.present).load() == 1 else { return nil }
        return WorkerRecord(
            signal: int32(offset + Layout.Record.signal).load(), status: int32(offset + Layout.Record.status).load(),
            culprit: PluginNumber(recorded: int32(offset + Layout.Record.culprit).load()),
            evidence: WorkerRecord.Evidence(rawValue: int32(offset + Layout.Record.evidence).load()) ?? .none,
            phase: Phase(rawValue: int32(offset + Layout.Record.phase).load()) ?? .unknown,
            thread: WorkerRecord.ThreadKind(rawValue: int32(offset + Layout.Record.thread).load()) ?? .notTheHosts,
            address: uint64(offset + Layout.Record.address).load())
    }

    /// The crash the worker's signal handler recorded. Writing is async-signal-safe.
    var crash: WorkerRecord? {
        get { read(at: Layout.crash) }
        set { if let newValue { write(newValue, at: Layout.crash) } }
    }

    /// The `exit` call of plugin code that the worker's exit handler recorded.
    var exitCall: WorkerRecord? {
        get { read(at: Layout.exitCall) }
        set { if let newValue { write(newValue, at: Layout.exitCall) } }
    }

    /// What the worker's driving thread was found running when the supervisor asked.
    var stall: WorkerRecord? {
        get { read(at: Layout.stall) }
        set { if let newValue { write(newValue, at: Layout.stall) } }
    }

    // MARK: Messages: text the supervisor prints, and notifications it sends, for the worker

    /// Hands `message` to the supervisor and waits until it has written or sent it (or
    /// given up on a stream nobody reads). Text is at most ``outputCapacity`` bytes; one
    /// writer at a time, the caller serialises.
    ///
    /// - Parameter wake: Tells the supervisor that a message is waiting.
    func hand(_ message: WorkerMessage, wake: () -> Void) {
        let number = post(message, wake: wake)
        while int64(Layout.outputAcknowledged).load() < number { acknowledgements.wait() }
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
        let number = int64(Layout.outputPosted).load() + 1
        while int64(Layout.outputAcknowledged).load() < number - 1 { acknowledgements.wait() }
        memory.write(bytes, at: Layout.outputBytes)
        int32(Layout.outputKind).store(kind)
        int32(Layout.outputLength).store(Int32(bytes.count))
        int64(Layout.outputValue).store(value)
        int64(Layout.outputPosted).store(number)
        wake()
        return number
    }

    /// The message waiting to be handled, if any: its number and a copy of it.
    func pendingMessage(after handled: Int64) -> (number: Int64, message: WorkerMessage)? {
        let number = int64(Layout.outputPosted).load()
        guard number > handled else { return nil }
        let length = min(max(0, Int(int32(Layout.outputLength).load())), Self.outputCapacity)
        let message = WorkerMessage(
            kind: int32(Layout.outputKind).load(), value: int64(Layout.outputValue).load(),
            bytes: memory.bytes(at: Layout.outputBytes, count: length))
        return (number, message)
    }

    /// Tells the worker that message `number` is handled.
    func acknowledge(_ number: Int64) {
        int64(Layout.outputAcknowledged).store(number)
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
    enum Evidence: Int32, Sendable {
        case none = 0
        /// The faulting instruction is in the plugin's code.
        case faultingCode = 1
        /// The plugin's code is on the thread's stack.
        case stack = 2
        /// The thread said it runs the plugin's code.
        case runningThread = 3
    }

    /// Which kind of thread crashed or called `exit`.
    enum ThreadKind: Int32, Sendable {
        case notTheHosts = 0
        case hostCode = 1
        case pluginCode = 2
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

    /// The kind, a number and the bytes, as the page holds them.
    fileprivate var encoded: (kind: Int32, value: Int64, bytes: ArraySlice<UInt8>) {
        switch self {
        case .output(let bytes): (1, 0, bytes[...])
        case .error(let bytes): (2, 0, bytes[...])
        case .notification(.ready(let status)): (3, 0, Array(status.utf8)[...])
        case .notification(.reloading(let microseconds)): (4, microseconds, [])
        case .notification(.status(let status)): (5, 0, Array(status.utf8)[...])
        case .notification(.stopping(let status)): (6, 0, Array(status.utf8)[...])
        }
    }

    fileprivate init(kind: Int32, value: Int64, bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        switch kind {
        case 1: self = .output(bytes)
        case 3: self = .notification(.ready(status: text))
        case 4: self = .notification(.reloading(monotonicMicroseconds: value))
        case 5: self = .notification(.status(text))
        case 6: self = .notification(.stopping(status: text))
        default: self = .error(bytes)
        }
    }
}
