/// Writes the record of what the host proved outside the supervisor's loop, so that a state
/// directory on a disk that stalls (a frozen or hung file system) stalls no deadline, watchdog
/// ping or answer: a process of its own, forked once when the first record is to be written
/// (the supervisor runs one thread, so no lock is held across the fork; a run that records
/// nothing forks none), writes every record the supervisor hands it on a stream between them,
/// in order. For each it makes the copies the
/// record names (from the builds the supervisor holds, opened through `/proc`), writes the
/// record whole and flushes it (``RecordFile/write(_:)``), and says back what it wrote: the
/// record with its copies and when each build was first kept so. Records handed over while it
/// writes wait in the stream; of those, it writes the newest, which keeps all the ones before.
///
/// It holds the record's lock while it has records to write, and outlives the supervisor:
/// killed, the supervisor leaves it the records it handed over, which it writes before it ends,
/// and the next start waits for it (``RecordFile/readAfterWrites()``). It keeps none of the
/// supervisor's sockets, ignores the signals that stop a service, and ends once the stream
/// has ended and everything handed over is written.
///
/// It decides nothing: the machine asks for each write (``SupervisionAction/keepRecord(_:number:)``)
/// and hears when it finished (``SupervisionEvent/recordKept(number:failure:)``).
struct RecordWriter {
    let file: RecordFile
    let copies: BuildCopies
    /// The record as last written, or as read when the host started: its permanent builds
    /// with their copies, and when each build was first kept so.
    private(set) var written: BuildRecord
    /// The writer's process, and the supervisor's end of the stream; `nil` before the first
    /// record, when none could be started, or once it ended.
    private(set) var process: ProcessID?
    private var stream: ByteStream?
    /// Whether a writer was started (or could not be): one is, once.
    private var started = false
    private let signals: (readEnd: FileDescriptor, handled: [Signal])
    /// What is handed over and not yet taken by the stream.
    private var outgoing: [UInt8] = []
    /// What the writer said and is not yet read whole.
    private var incoming: [UInt8] = []
    /// The newest write handed over and not yet answered; `nil` when every one was.
    private var unanswered: Int?

    /// How a write ended, as the writer says it.
    private enum Answer: UInt8 {
        case kept = 1
        case unchanged = 2
        case failed = 3
    }

    /// A writer of `file`, which takes over `written` (the record as read at the start) once
    /// it starts.
    ///
    /// - Parameter signals: The supervisor's signal pipe and the signals it handles, which the
    ///   writer must not inherit.
    init(file: RecordFile, copies: BuildCopies, written: BuildRecord, signals: (readEnd: FileDescriptor, handled: [Signal])) {
        self.file = file
        self.copies = copies
        self.written = written
        self.signals = signals
    }

    /// Forks the writer.
    private mutating func start() {
        started = true
        guard let (ours, theirs) = try? ByteStream.pair() else { return }
        let child: ProcessID
        do {
            child = try ProcessControl.forkBlockingSignals(for: "the process that writes the record")
        } catch {
            ours.close()
            theirs.close()
            return
        }
        if child.rawValue == 0 {
            SignalPipe.uninstall(readEnd: signals.readEnd, signals: signals.handled)
            // A service's stop (systemd's, timeout(1)'s) signals the whole group: what was handed over is written.
            ProcessControl.ignore([.terminate, .interrupt, .hangUp])
            DescriptorTable.closeAll(except: [theirs.descriptor.rawValue])
            // Its work is the disk's: the workers get the processors first.
            ProcessControl.yieldProcessorToOthers()
            ProcessControl.unblockAllSignals()
            Self.serve(theirs, file: file, copies: copies, written: written)
        }
        ProcessControl.unblockAllSignals()
        theirs.close()
        ours.descriptor.neverWaiting()
        (process, stream) = (child, ours)
    }

    /// The stream, to wait for: to read what the writer says, and to write what waits to be
    /// handed over.
    var interest: (descriptor: FileDescriptor, writing: Bool)? {
        guard process != nil, let stream else { return nil }
        return (stream.descriptor, !outgoing.isEmpty)
    }

    /// Hands the writer `record`, write `number`, with the files of the builds the supervisor
    /// holds that it may have to copy.
    ///
    /// - Returns: What finished at once: the write fails when no writer runs.
    mutating func keep(_ record: BuildRecord, number: Int, held: HeldBuilds) -> [SupervisionEvent] {
        if !started { start() }
        guard process != nil, stream != nil else {
            return [.recordKept(number: number, failure: "no process could be started to write it")]
        }
        let supervisor = ProcessControl.current
        // Every permanent build held: the writer copies those it has no copy of yet (``BuildCopies/keep``).
        var sources: [String] = []
        for build in record.permanent {
            guard let (file, identity) = held.file(of: build.published) else { continue }
            let fields = [build.name] + RecordFile.fields(build.identity) + RecordFile.fields(identity) + ["/proc/\(supervisor)/fd/\(file.descriptor)"]
            sources.append(fields.joined(separator: "\t"))
        }
        outgoing += Self.frame(number: number, kind: 0, [RecordFile.encode(record, directories: []), Array(sources.joined(separator: "\n").utf8)])
        unanswered = number
        flush()
        return []
    }

    /// Writes what waits to be handed over, as far as the stream takes it now.
    mutating func flush() {
        guard let stream, !outgoing.isEmpty, let written = stream.writeSome(outgoing, from: 0) else { return }
        outgoing.removeFirst(written)
    }

    /// Reads what the writer said.
    ///
    /// - Returns: The writes it finished.
    mutating func receive() -> [SupervisionEvent] {
        guard let stream else { return [] }
        var events: [SupervisionEvent] = []
        while let bytes = stream.read(), !bytes.isEmpty {
            incoming += bytes
        }
        while let (number, kind, parts) = Self.takeFrame(from: &incoming) {
            let body = parts.first ?? []
            switch Answer(rawValue: kind) {
            case .kept?:
                // What it wrote is the record from now on, its copies with it.
                if case .record(let kept) = RecordFile.decode(body) { written = kept }
                events.append(.recordKept(number: number, failure: nil))
            case .unchanged?:
                events.append(.recordKept(number: number, failure: nil))
            case .failed?, nil:
                events.append(.recordKept(number: number, failure: String(decoding: body, as: UTF8.self)))
            }
            if unanswered.map({ $0 <= number }) ?? false { unanswered = nil }
        }
        return events
    }

    /// Process `process` ended, as `termination` says: when it is the writer, what it said
    /// last, and the write it did not finish fails.
    mutating func ended(_ process: ProcessID, _ termination: Termination) -> [SupervisionEvent] {
        guard process == self.process else { return [] }
        var events = receive()
        self.process = nil
        stream?.close()
        if let unanswered {
            events.append(.recordKept(number: unanswered, failure: "the process writing it ended (\(termination)) before it said it had"))
            self.unanswered = nil
        }
        return events
    }

    /// Waits, as the host ends, for what was handed over to be written, for at most `patience`;
    /// then lets the writer go, which writes the rest by itself.
    ///
    /// - Returns: Why the record was not all written in that time, when it was not.
    mutating func finish(within patience: Duration) -> String? {
        guard let stream, let process else { return nil }
        let deadline = MonotonicInstant.now + patience
        while !outgoing.isEmpty, MonotonicInstant.now < deadline {
            let before = outgoing.count
            flush()
            if outgoing.count == before { ProcessControl.sleep(nanoseconds: 2_000_000) }
        }
        stream.finishWriting()
        while unanswered != nil, MonotonicInstant.now < deadline {
            _ = receive()
            if unanswered != nil { ProcessControl.sleep(nanoseconds: 2_000_000) }
        }
        stream.close()
        guard let unanswered else { return nil }
        return outgoing.isEmpty
            ? "write \(unanswered) has not finished within \(TextFormat.seconds(patience)), and goes on by itself (process \(process))"
            : "what the host proved last could not be handed to the process that writes it (process \(process)) within \(TextFormat.seconds(patience))"
    }

    // MARK: The writer's process

    /// What the writer does: each record handed over, written in order, until the stream ends.
    private static func serve(_ stream: ByteStream, file: RecordFile, copies: BuildCopies, written start: BuildRecord) -> Never {
        var written = start
        var lock: FileLock?
        var incoming: [UInt8] = []
        while true {
            // Every frame there is: the newest keeps all the ones before it.
            var newest: (number: Int, parts: [[UInt8]])?
            repeat {
                guard let bytes = stream.read() else {
                    if newest == nil { ProcessControl.exitImmediately(0) }
                    break
                }
                incoming += bytes
                while let (number, _, parts) = takeFrame(from: &incoming) { newest = (number, parts) }
            } while newest == nil || stream.hasBytesWaiting
            guard let (number, parts) = newest, parts.count == 2, case .record(let record) = RecordFile.decode(parts[0]) else { continue }
            let sources = parts[1].split(separator: UInt8(ascii: "\n")).compactMap(Source.init)
            do {
                // Locked while it has records to write: a start waits for them, and reads what
                // the host before it proved.
                if lock == nil {
                    try makeDirectories(file.stateDirectory)
                    lock = try FileLock.forWriting(file.lockPath)
                }
                let kept = try write(record, to: file, copies: copies, after: written, from: sources)
                if let kept {
                    written = kept
                    _ = stream.writeAll(frame(number: number, kind: Answer.kept.rawValue, [RecordFile.encode(kept, directories: [])]))
                } else {
                    _ = stream.writeAll(frame(number: number, kind: Answer.unchanged.rawValue, []))
                }
            } catch {
                _ = stream.writeAll(frame(number: number, kind: Answer.failed.rawValue, [Array("\(error)".utf8)]))
            }
            // With nothing more to write, it lets go: another host of these directories may start.
            if !stream.hasBytesWaiting {
                lock?.unlock()
                lock = nil
            }
        }
    }

    /// A file the writer may copy a build from: the build, and the file the supervisor holds
    /// of it, with that file's own identity.
    private struct Source {
        let name: String
        let build: FileIdentity
        let held: FileIdentity
        let path: String

        init?(_ line: ArraySlice<UInt8>) {
            let fields = line.split(separator: UInt8(ascii: "\t"), omittingEmptySubsequences: false)
            guard fields.count == 12, let build = RecordFile.identity(fields[1...5]), let held = RecordFile.identity(fields[6...10]) else { return nil }
            (name, self.build, self.held) = (String(decoding: fields[0], as: UTF8.self), build, held)
            path = String(decoding: fields[11], as: UTF8.self)
        }
    }

    /// Makes the copies `record` names, and writes it unless it is `before` again.
    ///
    /// - Returns: The record as written; `nil` when it is the one written before.
    private static func write(_ record: BuildRecord, to file: RecordFile, copies: BuildCopies, after before: BuildRecord, from sources: [Source]) throws(SystemError) -> BuildRecord? {
        var record = record
        // A permanent build with no copy (none is held in a run that is no service) cannot
        // run from the record: it is not kept.
        try copies.keep(&record, made: before.permanent) { build in
            guard let source = sources.first(where: { $0.name == build.name && $0.build.hasSameContents(as: build.identity) }),
                let opened = try? ReadOnlyFile(path: source.path)
            else { return nil }
            return (opened, source.held)
        }
        record.permanent.removeAll { $0.copy == nil }
        record.stamp(since: before, now: Int64(WallClock.secondsSinceEpoch))
        guard record != before else { return nil }
        try file.write(record)
        copies.prune(keeping: record)
        return record
    }

    // MARK: Frames

    /// A frame on the stream: its write's number, what kind it is, and its parts, each with
    /// its length first.
    private static func frame(number: Int, kind: UInt8, _ parts: [[UInt8]]) -> [UInt8] {
        var body: [UInt8] = [kind]
        for part in parts { body += bytes(of: UInt64(part.count)) + part }
        return bytes(of: UInt64(body.count)) + bytes(of: UInt64(number)) + body
    }

    /// The first whole frame of `bytes`, taken from them; `nil` while none is whole.
    private static func takeFrame(from bytes: inout [UInt8]) -> (number: Int, kind: UInt8, parts: [[UInt8]])? {
        guard bytes.count >= 17 else { return nil }
        let length = Int(number(bytes[0..<8]))
        guard bytes.count >= 16 + length, length >= 1 else { return nil }
        let number = Int(number(bytes[8..<16]))
        let body = Array(bytes[16..<(16 + length)])
        bytes.removeFirst(16 + length)
        var parts: [[UInt8]] = []
        var offset = 1
        while offset + 8 <= body.count {
            let count = Int(Self.number(body[offset..<(offset + 8)]))
            guard offset + 8 + count <= body.count else { break }
            parts.append(Array(body[(offset + 8)..<(offset + 8 + count)]))
            offset += 8 + count
        }
        return (number, body[0], parts)
    }

    private static func bytes(of value: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }

    private static func number(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }

}
