import Synchronization

/// How an operation run against a deadline ended.
enum DeadlineOutcome: Sendable {
    case finished
    case failed(String)
    case overran
}

/// Runs `operation` and waits for it at most `timeout`; when it overruns, returns while it
/// goes on in the background (plugin code cannot be interrupted).
func withDeadline(_ timeout: Duration?, _ operation: @escaping @Sendable () async throws -> Void) async -> DeadlineOutcome {
    await withCheckedContinuation { (continuation: CheckedContinuation<DeadlineOutcome, Never>) in
        let pending = Mutex<CheckedContinuation<DeadlineOutcome, Never>?>(continuation)
        let resume: @Sendable (DeadlineOutcome) -> Void = { outcome in
            pending.withLock { $0.take() }?.resume(returning: outcome)
        }
        let alarm = timeout.map { DeadlineWatch.shared.schedule(after: $0) { resume(.overran) } }
        Task {
            do {
                try await operation()
                resume(.finished)
            } catch {
                resume(.failed("\(error)"))
            }
            if let alarm { DeadlineWatch.shared.cancel(alarm) }
        }
    }
}
