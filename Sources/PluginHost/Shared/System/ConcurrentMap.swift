/// `transform` applied to every element, spread over the processors; the results are in
/// the order of `elements`. Small inputs are mapped on the calling thread.
///
/// The calling thread takes a share of the work and waits for threads of its own started
/// for the rest (not Dispatch, whose Swift overlay and blocks runtime would cost every
/// start of the host two more libraries to load).
func concurrentMap<Element: Sendable, Result: Sendable>(
    _ elements: [Element], minimumPerThread: Int = 16, _ transform: @escaping @Sendable (Element) -> Result
) -> [Result] {
    let workers = min(processorCount, elements.count / minimumPerThread)
    guard workers > 1 else { return elements.map(transform) }
    return [Result](unsafeUninitializedCapacity: elements.count) { buffer, initialized in
        let results = UnsafeSendableBuffer(buffer)
        // Each worker fills its own stripe of indices; nobody else writes them.
        @Sendable func fill(stripe worker: Int) {
            var index = worker
            while index < elements.count {
                (results.base.baseAddress! + index).initialize(to: transform(elements[index]))
                index += workers
            }
        }
        let finished = Semaphore()
        var started = 0
        for worker in 1..<workers {
            if startDetachedThread({ fill(stripe: worker); finished.signal() }) {
                started += 1
            } else {
                fill(stripe: worker)
            }
        }
        fill(stripe: 0)
        for _ in 0..<started { finished.wait(timeout: nil) }
        initialized = elements.count
    }
}

/// A buffer whose elements concurrent workers initialise at disjoint indices.
private struct UnsafeSendableBuffer<Element>: @unchecked Sendable {
    let base: UnsafeMutableBufferPointer<Element>

    init(_ base: UnsafeMutableBufferPointer<Element>) { self.base = base }
}
