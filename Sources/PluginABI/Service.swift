/// A component that provides a long-running service.
///
/// After every component has bootstrapped, the host calls `run()` of each service
/// concurrently and keeps running until it is asked to stop (SIGINT or SIGTERM), or until
/// every service has returned. To stop, the host cancels the task running `run()`: a
/// service returns promptly when its task is cancelled (for example by awaiting
/// `Task.sleep` or checking `Task.isCancelled`). Then `shutdown()` is called, in reverse
/// bootstrap order. When no component is a service, the host exits right after the chain.
public protocol Service: Bootstrapping {
    /// Runs the service until it is done or its task is cancelled.
    ///
    /// - Throws: Any error; the host reports it, stops the other services and shuts down.
    func run() async throws
}

extension Service {
    /// `self`.
    public var asService: (any Service)? { self }
}
