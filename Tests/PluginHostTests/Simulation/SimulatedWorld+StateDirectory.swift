#if !STANDALONE_SIMULATOR
@testable import PluginHost
#endif

/// The state directory, as the world plays the driver's writer of the record
/// (`RecordWriter`): each write takes a moment, one at a time, the newest record asked for
/// meanwhile written next, and everything handed over is written even after the supervisor is
/// gone; a frozen file system holds every write until it thaws; a state
/// directory that cannot be written fails the first write. The machine hears each write's end
/// (``SupervisionEvent/recordKept(number:failure:)``).
extension SimulatedWorld {
    /// How long a write takes on a state directory that answers.
    static let recordWriteTime: Duration = .milliseconds(2)

    /// The machine asked to keep `record`, write `number`.
    mutating func keep(_ record: BuildRecord, number: Int) {
        guard setup.keepsRecord else {
            deliver(.recordKept(number: number, failure: "create /state/record-key: Permission denied (errno: 13)"))
            return
        }
        guard recordWrite == nil else {
            // The writer writes the newest record it has next; the requests it covers have
            // waited since the oldest of them was asked for.
            recordWriteNext = (number, record, recordWriteNext?.askedAt ?? now)
            return
        }
        startRecordWrite(number, record, askedAt: now)
    }

    /// A writer process starts: it copies the builds the driver holds now, and finishes once
    /// the state directory answers.
    private mutating func startRecordWrite(_ number: Int, _ record: BuildRecord, askedAt: MonotonicInstant) {
        keepCopies(of: record)
        recordWrite = (number, record, askedAt, max(now, stateFrozenUntil ?? now) + Self.recordWriteTime)
    }

    /// The write under way finishes, if its time has come: the record is on disk, the next one
    /// waiting starts, and the machine hears of it.
    mutating func finishRecordWrite() {
        guard let write = recordWrite, write.finishesAt <= now else { return }
        recordWrite = nil
        recordOnDisk = write.record
        recordTorn = false
        if let next = recordWriteNext {
            recordWriteNext = nil
            startRecordWrite(next.number, next.record, askedAt: next.askedAt)
        }
        deliver(.recordKept(number: write.number, failure: nil))
    }

    /// The supervisor is gone (killed, or it ended): what it handed over to its writer is
    /// written all the same, the newest record last, and the next start waits for it.
    mutating func settleRecordWrites() {
        if let next = recordWriteNext ?? recordWrite.map({ ($0.number, $0.record, $0.askedAt) }) {
            keepCopies(of: next.record)
            recordOnDisk = next.record
            recordTorn = false
        }
        recordWrite = nil
        recordWriteNext = nil
    }

    /// "A write that cannot finish is said once": once the oldest unfinished write has waited
    /// `--record-stall` (five seconds), the host says its state directory does not answer, and
    /// once every write finished, that the record is written again.
    mutating func checkRecordWrites() {
        guard setup.keepsRecord, exit == nil, let write = recordWrite, recordStallSaid == nil else { return }
        if now - write.askedAt > setup.machine.recordStall {
            violate("the record's write asked for at \(write.askedAt) is unfinished after \(TextFormat.seconds(now - write.askedAt)) (its state directory is frozen until \(stateFrozenUntil.map(\.description) ?? "-")), and the host did not say so")
        }
    }

    /// What the host says of its record's writes agrees with the world's disk.
    mutating func checkRecordNews(_ news: RecordWriteNews) {
        switch news {
        case .stalled(let duration):
            guard setup.keepsRecord, let write = recordWrite else {
                violate("the host says its record's writes stall, but no write is under way")
                return
            }
            if recordStallSaid != nil { violate("the host says its record's writes stall twice, while they stall once") }
            if now - write.askedAt < setup.machine.recordStall || duration != setup.machine.recordStall {
                violate("the host says its record's writes stall for over \(TextFormat.seconds(duration)); the oldest was asked for \(TextFormat.seconds(now - write.askedAt)) ago (the limit is \(TextFormat.seconds(setup.machine.recordStall)))")
            }
            recordStallSaid = now
        case .writtenAgain:
            if recordStallSaid == nil { violate("the host says its record is written again, but never said its writes stalled") }
            if recordWrite != nil || recordWriteNext != nil { violate("the host says its record is written again while a write is unfinished") }
            recordStallSaid = nil
        case .unwritable:
            if setup.keepsRecord { violate("the host says it cannot keep its record, but the state directory can be written") }
            if recordUnwritableSaid { violate("the host says twice that it cannot keep its record") }
            recordUnwritableSaid = true
        }
    }
}
