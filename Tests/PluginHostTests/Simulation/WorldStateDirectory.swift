#if !STANDALONE_SIMULATOR
@testable import PluginHost
#endif

/// The state directory, as the world plays the driver's writer of the record
/// (`RecordWriter`), and what the host said of it. Each write takes a moment, one at a time,
/// the newest record asked for meanwhile written next, and everything handed over is written
/// even after the supervisor is gone; a frozen file system holds every write until it thaws.
/// A host finds its record under a key made from how it was told its plugin directory: a host
/// told it another way reads another record. It outlives every supervisor.
struct WorldStateDirectory {
    /// A write of the record: its number, the record, when it was asked for (the oldest of
    /// the requests it covers), and when it finishes (`nil` while it waits for the one under way).
    struct Write {
        var number: Int
        var record: BuildRecord
        var askedAt: MonotonicInstant
        var finishesAt: MonotonicInstant?
    }

    /// How long a write takes on a state directory that answers.
    static let writeTime: Duration = .milliseconds(2)

    /// The record on disk under the running host's key, and whether it is damaged since the
    /// last write.
    private(set) var record = BuildRecord()
    private(set) var torn = false
    /// Until when the file system is frozen.
    private(set) var frozenUntil: MonotonicInstant?
    /// How the host that runs was told its plugin directory (an index of
    /// ``DirectorySpelling/all``), and the key its driver keeps its record under.
    private(set) var spelling: Int
    private(set) var key: String
    /// The records on disk under other keys, and whether each is damaged.
    private var elsewhere: [String: (record: BuildRecord, torn: Bool)] = [:]
    /// The write under way, and the newest record asked for meanwhile, written next.
    private(set) var write: Write?
    private(set) var next: Write?
    /// Since when the host said its record's writes stall, while it says so; whether it said it
    /// cannot keep its record.
    private var stallSaid: MonotonicInstant?
    private var unwritableSaid = false

    init(spelling: Int) {
        self.spelling = spelling
        key = DirectorySpelling.all[spelling].recordKey
    }

    /// The driver asks to write `record`, write `number`, at `now`.
    ///
    /// - Returns: Whether its write starts now (the writer copies the builds it names).
    mutating func ask(_ record: BuildRecord, number: Int, at now: MonotonicInstant) -> Bool {
        guard write == nil else {
            next = Write(number: number, record: record, askedAt: next?.askedAt ?? now)
            return false
        }
        start(Write(number: number, record: record, askedAt: now), at: now)
        return true
    }

    private mutating func start(_ write: Write, at now: MonotonicInstant) {
        var write = write
        write.finishesAt = max(now, frozenUntil ?? now) + Self.writeTime
        self.write = write
    }

    /// The write under way finishes, if its time has come at `now`: the record is on disk and
    /// the next one waiting starts.
    ///
    /// - Returns: The number of the write that finished, and the record of the one that
    ///   started (the writer copies the builds it names); `nil` when none finished.
    mutating func finishDue(at now: MonotonicInstant) -> (finished: Int, started: BuildRecord?)? {
        guard let done = write, let finishesAt = done.finishesAt, finishesAt <= now else { return nil }
        write = nil
        record = done.record
        torn = false
        guard let waiting = next else { return (done.number, nil) }
        next = nil
        start(waiting, at: now)
        return (done.number, waiting.record)
    }

    /// The supervisor is gone (killed, or it ended): what it handed over to its writer is
    /// written all the same, the newest record last.
    ///
    /// - Returns: The record written last, whose builds the writer copies; `nil` when none waited.
    mutating func settle() -> BuildRecord? {
        defer {
            write = nil
            next = nil
        }
        guard let last = next ?? write else { return nil }
        record = last.record
        torn = false
        return last.record
    }

    /// The record on disk is damaged.
    mutating func tear() {
        torn = true
    }

    /// The file system is frozen until `until`: the write under way finishes once it thaws.
    mutating func freeze(until: MonotonicInstant) {
        frozenUntil = max(frozenUntil ?? until, until)
        if let finishesAt = write?.finishesAt { write?.finishesAt = max(finishesAt, until + Self.writeTime) }
    }

    /// A new host is started, told its plugin directory by `spelling`: it reads the record
    /// kept under that spelling's key.
    ///
    /// - Returns: The key of the record it no longer reads, when the key changed.
    mutating func hostStarted(toldBy spelling: Int) -> String? {
        self.spelling = spelling
        let key = DirectorySpelling.all[spelling].recordKey
        guard key != self.key else { return nil }
        let before = self.key
        elsewhere[before] = (record, torn)
        (record, torn) = elsewhere.removeValue(forKey: key) ?? (BuildRecord(), false)
        self.key = key
        return before
    }

    /// The new host read `record`: it is the record on disk from now, and nothing was said
    /// of its writes yet.
    mutating func hostRead(_ record: BuildRecord) {
        self.record = record
        stallSaid = nil
        unwritableSaid = false
    }

    // MARK: What the host says of it

    /// "A write that cannot finish is said once": the host must have said its writes stall
    /// once the oldest unfinished write has waited `limit` (`--record-stall`).
    ///
    /// - Returns: What is wrong at `now`; `nil` when nothing is.
    func unsaidStall(at now: MonotonicInstant, limit: Duration) -> String? {
        guard let write, stallSaid == nil, now - write.askedAt > limit else { return nil }
        return "the record's write asked for at \(write.askedAt) is unfinished after \(TextFormat.seconds(now - write.askedAt)) (its state directory is frozen until \(frozenUntil.map(\.description) ?? "-")), and the host did not say so"
    }

    /// The host says `news` of its record's writes at `now`: it must agree with the disk.
    ///
    /// - Parameters:
    ///   - writable: Whether the state directory can be written.
    ///   - limit: How long a write may be unfinished before the host says so (`--record-stall`).
    /// - Returns: What is wrong with it.
    mutating func heard(_ news: RecordWriteNews, at now: MonotonicInstant, writable: Bool, limit: Duration) -> [String] {
        var wrong: [String] = []
        switch news {
        case .stalled(let duration):
            guard writable, let write else { return ["the host says its record's writes stall, but no write is under way"] }
            if stallSaid != nil { wrong.append("the host says its record's writes stall twice, while they stall once") }
            if now - write.askedAt < limit || duration != limit {
                wrong.append("the host says its record's writes stall for over \(TextFormat.seconds(duration)); the oldest was asked for \(TextFormat.seconds(now - write.askedAt)) ago (the limit is \(TextFormat.seconds(limit)))")
            }
            stallSaid = now
        case .writtenAgain:
            if stallSaid == nil { wrong.append("the host says its record is written again, but never said its writes stalled") }
            if write != nil || next != nil { wrong.append("the host says its record is written again while a write is unfinished") }
            stallSaid = nil
        case .unwritable:
            if writable { wrong.append("the host says it cannot keep its record, but the state directory can be written") }
            if unwritableSaid { wrong.append("the host says twice that it cannot keep its record") }
            unwritableSaid = true
        }
        return wrong
    }
}
