/// The tasks of the services components registered: each runs on the plugin threads from
/// the moment its plugin joins, and posts ``HostEvents/Event/serviceEnded(plugin:error:)``
/// when it returns or throws.
struct ServiceTasks {
    private var tasks: [PluginNumber: Task<Void, Never>] = [:]

    /// Whether no service runs.
    var isEmpty: Bool { tasks.isEmpty }

    /// Whether `plugin`'s service runs.
    func isRunning(_ plugin: RunningPlugin) -> Bool { tasks[plugin.number] != nil }

    /// Starts the services `plugins` registered, each as a task on `threads`.
    mutating func start(_ plugins: [RunningPlugin], threads: PluginThreads, events: HostEvents) {
        for plugin in plugins {
            guard let service = plugin.lifecycle.service else { continue }
            let executor = threads.executor(for: plugin.number, phase: .run)
            tasks[plugin.number] = Task(executorPreference: executor) {
                var error: String?
                do {
                    try await service()
                } catch let thrown {
                    error = "\(thrown)"
                }
                ExitTrap.endIfForkedCopy()
                executor.retarget(to: nil, phase: .unknown)
                events.post(.serviceEnded(plugin: plugin.number, error: error))
            }
        }
    }

    /// Forgets `plugin`'s service, which ended.
    mutating func ended(_ plugin: PluginNumber) {
        tasks[plugin] = nil
    }

    /// Cancels the services of `plugins` and waits up to `timeout` (and not past `until`)
    /// for them to return; the events that arrive meanwhile are posted again afterwards.
    ///
    /// - Returns: The plugins whose service did not return in time (left behind).
    mutating func stop(
        _ plugins: [RunningPlugin], threads: PluginThreads, events: HostEvents, within timeout: Duration?, until: MonotonicInstant? = nil
    ) -> [RunningPlugin] {
        let stopping = plugins.filter(isRunning)
        guard !stopping.isEmpty else { return [] }
        let link = threads.link
        let deadline = min(timeout.map { MonotonicInstant.now + $0 } ?? .distantFuture, until ?? .distantFuture)
        let limit = deadline == .distantFuture ? nil : max(.zero, deadline - .now)
        for plugin in stopping {
            link.begin(.stop, of: plugin.number, within: limit, policy: .skip)
            // Cancelling runs the task's cancellation handlers, plugin code, on the
            // cancelling thread: a plugin thread, not this one.
            if let task = tasks[plugin.number] {
                threads.submit { thread in
                    thread.running(plugin.number, phase: .stop) { task.cancel() }
                    ExitTrap.endIfForkedCopy()
                }
            }
        }
        var left = Set(stopping.map(\.number))
        var others: [HostEvents.Event] = []
        while !left.isEmpty, let event = events.next(until: deadline) {
            if case .serviceEnded(let number, _) = event, left.remove(number) != nil {
                link.end(stepOf: number)
                tasks[number] = nil
            } else {
                others.append(event)
            }
        }
        for event in others { events.post(event) }
        return stopping.filter { left.contains($0.number) }.map { plugin in
            link.end(stepOf: plugin.number)
            tasks[plugin.number] = nil
            return plugin
        }
    }
}
