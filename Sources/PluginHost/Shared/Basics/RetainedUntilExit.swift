import Synchronization

/// Values kept alive until the process exits, so that it does not spend time freeing them
/// just before the operating system reclaims everything anyway.
enum RetainedUntilExit {
    private static let values = Mutex<[any Sendable]>([])

    static func keep(_ values: any Sendable...) {
        let kept = values
        Self.values.withLock { $0.append(contentsOf: kept) }
    }
}
