import Foundation
import Synchronization

/// Connects to a socket again and again on a thread of its own until told to finish, and
/// counts what happened.
final class ClientLoop: Sendable {
    struct Tally: CustomStringConvertible {
        var answered = 0
        var refused = 0
        var unanswered = 0
        var workers: Set<Int32> = []
        var stopping = false
        var description: String { "\(answered) answered, \(refused) refused, \(unanswered) unanswered, \(workers.count) workers" }
    }

    private let tally = Mutex(Tally())
    private let done = DispatchSemaphore(value: 0)

    /// - Parameter interval: How long to wait between connections; none by default.
    init(socket: String, every interval: Duration = .zero) {
        Thread.detachNewThread { [self] in
            while !tally.withLock({ $0.stopping }) {
                if interval > .zero { usleep(UInt32(interval / .microseconds(1))) }
                let answer = EchoClient.ask(socket, "ping")
                tally.withLock { tally in
                    switch answer {
                    case .answered(let worker):
                        tally.answered += 1
                        tally.workers.insert(worker)
                    case .refused: tally.refused += 1
                    case .unanswered: tally.unanswered += 1
                    }
                }
            }
            done.signal()
        }
    }

    /// Waits until `count` more connections were answered than when it was called.
    func wait(forAnswers count: Int) -> Bool {
        let start = tally.withLock { $0.answered }
        return IntegrationTests.wait(until: { tally.withLock { $0.answered } >= start + count })
    }

    func finish() -> Tally {
        tally.withLock { $0.stopping = true }
        done.wait()
        return tally.withLock { $0 }
    }
}
