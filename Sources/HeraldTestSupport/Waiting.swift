import Foundation

/// The monotonic clock, in nanoseconds: durations and deadlines that a change of the wall
/// clock cannot move.
public func monotonicNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// Polls `condition` every `pollMilliseconds` until it holds or `timeout` seconds pass; whether
/// it held. Tests and the benchmark wait for the event they expect with this, never for a
/// fixed time, so that a busy machine makes them slower but not wrong.
public func waitUntil(timeout: Double = 10, pollMilliseconds: Int = 20, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = monotonicNanoseconds() + UInt64(timeout * 1e9)
    while monotonicNanoseconds() < deadline {
        if try condition() { return true }
        usleep(useconds_t(pollMilliseconds * 1000))
    }
    return try condition()
}
