import Glibc
import Synchronization
import Testing

@testable import PluginHost

@Suite("concurrentMap: every element once, results in order")
struct ConcurrentMapTests {
    /// What the transforms saw, from whichever thread.
    private final class Record: Sendable {
        let calls = Atomic<Int>(0)
        let threads = Mutex<Set<pthread_t>>([])
    }

    @Test("each element is transformed exactly once and the results keep the elements' order", arguments: [0, 1, 15, 31, 32, 33, 1_000, 100_003])
    func orderAndCount(count: Int) {
        let record = Record()
        let results = concurrentMap(Array(0..<count)) { element in
            record.calls.add(1, ordering: .relaxed)
            return "\(element)"
        }
        #expect(results == (0..<count).map { "\($0)" })
        #expect(record.calls.load(ordering: .relaxed) == count)
    }

    @Test("a large input is spread over more than one thread when there is more than one processor")
    func spreadsOverThreads() {
        let record = Record()
        _ = concurrentMap(Array(0..<20_000), minimumPerThread: 1) { element in
            record.threads.withLock { _ = $0.insert(pthread_self()) }
            return element
        }
        // A finished thread's identifier can be reused by the next, so not one per processor.
        #expect(record.threads.withLock { $0.count } >= min(processorCount, 2))
    }
}
