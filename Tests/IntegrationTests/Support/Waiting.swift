import Foundation

/// Waits until `condition` holds, looking again every 20 ms, for at most `limit`: whether it
/// held. For what a host does, which takes as long as the machine lets it.
func wait(limit: Duration = .seconds(10), until condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + limit
    while ContinuousClock.now < deadline {
        if condition() { return true }
        usleep(20_000)
    }
    return condition()
}
