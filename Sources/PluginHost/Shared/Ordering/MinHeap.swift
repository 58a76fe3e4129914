/// A binary heap of whole numbers: ``popMin()`` gives the smallest first.
struct MinHeap: Sendable {
    private var items: [Int] = []

    var isEmpty: Bool { items.isEmpty }
    var count: Int { items.count }

    mutating func insert(_ item: Int) {
        items.append(item)
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard items[child] < items[parent] else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    mutating func popMin() -> Int? {
        guard let last = items.popLast() else { return nil }
        guard !items.isEmpty else { return last }
        let smallest = items[0]
        items[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var least = parent
            if left < items.count && items[left] < items[least] { least = left }
            if right < items.count && items[right] < items[least] { least = right }
            guard least != parent else { break }
            items.swapAt(parent, least)
            parent = least
        }
        return smallest
    }
}
