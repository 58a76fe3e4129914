import Dispatch

/// `transform` applied to every element, spread over the processors; the results are in
/// the order of `elements`. Small inputs are mapped on the calling thread.
func concurrentMap<Element: Sendable, Result: Sendable>(
    _ elements: [Element], minimumPerThread: Int = 16, _ transform: @Sendable (Element) -> Result
) -> [Result] {
    let workers = min(processorCount, elements.count / minimumPerThread)
    guard workers > 1 else { return elements.map(transform) }
    return [Result](unsafeUninitializedCapacity: elements.count) { buffer, initialized in
        let results = UnsafeSendableBuffer(buffer)
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            // Each worker fills its own stripe of indices; nobody else writes them.
            var index = worker
            while index < elements.count {
                (results.base.baseAddress! + index).initialize(to: transform(elements[index]))
                index += workers
            }
        }
        initialized = elements.count
    }
}

/// A buffer whose elements concurrent workers initialise at disjoint indices.
private struct UnsafeSendableBuffer<Element>: @unchecked Sendable {
    let base: UnsafeMutableBufferPointer<Element>

    init(_ base: UnsafeMutableBufferPointer<Element>) { self.base = base }
}
