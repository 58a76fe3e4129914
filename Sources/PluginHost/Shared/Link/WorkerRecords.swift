/// The worker's records of what went wrong, made where nothing else can be trusted: in
/// signal handlers and in the `exit` handler. Each finds the plugin to blame and writes it
/// to the supervision page, without allocating or taking a lock; the supervisor reads them
/// when the worker has ended.
///
/// The culprit is, in this order: the plugin whose code holds the faulting instruction; the
/// plugin whose load the thread was running (its ELF constructors and those of the
/// libraries it brings in run inside `dlopen`, before its code is known to the page, and the
/// loading thread's stack still holds words of the plugins loaded before it); the innermost
/// plugin whose code is on the thread's stack (a Swift runtime trap or `abort()` called from
/// a plugin, an `exit()` call); the plugin whose code the thread was running, when it is one
/// of the host's plugin threads.
enum WorkerRecords {
    /// Installs, in the worker, the handlers of crashes, of `exit` calls the host did not
    /// make, of the stray signals and of the supervisor's probe, all recording in `page`.
    ///
    /// - Parameters:
    ///   - supervisor: The process to wake when SIGINT, SIGTERM or SIGHUP reach the worker.
    ///   - crashStatus: The worker's status after a crash or a plugin's `exit()`.
    static func install(page: SupervisionPage, supervisor: ProcessID, crashStatus: ExitStatus) {
        recordingPage = page
        supervisorToWake = supervisor
        StackWords.prepare()
        FatalSignals.install(
            recorder: { signal, code, stack in
                guard let page = recordingPage else { return }
                var record = WorkerRecords.blame(stackFrom: stack, faultingCode: code, in: page)
                record.signal = signal
                record.address = code
                page.crash = record
            },
            exitStatus: crashStatus.rawValue)
        ExitTrap.install(
            recorder: { status, stack in
                guard let page = recordingPage else { return }
                var record = WorkerRecords.blame(stackFrom: stack, faultingCode: nil, in: page)
                record.status = status
                page.exitCall = record
            },
            exitStatus: crashStatus.rawValue, detaching: page.sharedMemory)
        StraySignals.install(forwarder: { signal in
            guard let page = recordingPage else { return }
            page.forward(Signal(rawValue: signal))
            ProcessControl.send(.wake, to: supervisorToWake)
        })
        ProbeSignal.install(recorder: { code, stack in
            guard let page = recordingPage else { return }
            page.stall = WorkerRecords.blame(stackFrom: stack, faultingCode: code, in: page)
        })
    }

    /// Finds who is to blame for what the calling thread is doing now (crashing, calling
    /// `exit`, being stuck), from its stack and its slot. Async-signal-safe.
    ///
    /// - Parameter stackPointer: Where to start reading the thread's stack.
    static func blame(stackFrom stackPointer: UInt64, faultingCode: UInt64?, in page: SupervisionPage) -> WorkerRecord {
        var record = WorkerRecord()
        let running = page.slot(of: ThreadIdentity.current).map { page.slot($0) }
        if let running {
            record.thread = running.plugin == nil ? .hostCode : .pluginCode
        }
        if let faultingCode, let owner = page.plugin(containingCode: faultingCode) {
            record.culprit = owner
            record.evidence = .faultingCode
        } else if let running, running.phase == .load, let loading = running.plugin {
            record.culprit = loading
            record.evidence = .runningThread
        } else if let owner = innermostPlugin(onStackFrom: stackPointer, in: page) {
            record.culprit = owner
            record.evidence = .stack
        } else if let plugin = running?.plugin {
            record.culprit = plugin
            record.evidence = .runningThread
        }
        if let running, let culprit = record.culprit, running.plugin == culprit {
            record.phase = running.phase
        } else if let culprit = record.culprit, page.step(of: culprit) != nil {
            record.phase = page.lastPhase(of: culprit)
        }
        return record
    }

    /// The plugin whose code a word on the stack, read upwards from `stackPointer`, points
    /// into first.
    private static func innermostPlugin(onStackFrom stackPointer: UInt64, in page: SupervisionPage) -> PluginNumber? {
        let (lower, upper) = page.codeBounds()
        guard lower < upper else { return nil }
        return StackWords.first(from: stackPointer) { word in
            word >= lower && word < upper ? page.plugin(containingCode: word) : nil
        }
    }

    /// Asks the driving thread of `worker` what holds it up, and waits briefly for the
    /// answer.
    ///
    /// - Returns: What the thread was found running, or `nil` when it did not answer.
    static func askStall(of worker: ProcessID, page: SupervisionPage) -> WorkerRecord? {
        guard ProbeSignal.send(toThread: page.driverThread, of: worker) else { return nil }
        let deadline = MonotonicInstant.now + .milliseconds(200)
        while MonotonicInstant.now < deadline {
            if let stall = page.stall { return stall }
            ProcessControl.sleep(nanoseconds: 5_000_000)
        }
        return nil
    }
}

/// The page the handlers record in: set once, before any handler is installed.
nonisolated(unsafe) private var recordingPage: SupervisionPage?
nonisolated(unsafe) private var supervisorToWake = ProcessID(rawValue: 0)
