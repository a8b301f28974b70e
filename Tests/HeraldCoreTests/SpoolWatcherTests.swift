import Dispatch
import Foundation
import Synchronization
import Testing
@testable import HeraldCore

/// The watcher's pace: its rule on a clock the test moves, then the real thing (inotify, its
/// thread, a queue). What it saves in a burst is measured in BENCHMARKS.md.
struct ReadingPaceTests {
    let ms: UInt64 = 1_000_000

    /// Whether a reading at each instant waits a span after it, in order.
    func waits(_ pace: inout ReadingPace, _ instants: [UInt64]) -> [Bool] { instants.map { pace.read(at: $0) } }

    @Test func aChangeAfterAQuietSpellIsReadAtOnce() {
        var pace = ReadingPace(span: 10 * ms)
        // The last a whole span after the one before.
        #expect(waits(&pace, [1_000 * ms, 1_010 * ms, 5_000 * ms]) == [false, false, false])
    }

    @Test func aRunWaitsASpanAfterEachReading() {
        var pace = ReadingPace(span: 10 * ms)
        // The run's second change: wait.
        #expect(waits(&pace, [1_000 * ms, 1_001 * ms]) == [false, true])
        pace.resumed(at: 1_011 * ms)
        // What came meanwhile, and the run goes on: wait again.
        #expect(waits(&pace, [1_011 * ms + 50_000]) == [true])
        pace.resumed(at: 1_021 * ms)
        // The run ended while it waited: the next change, later, is read at once.
        #expect(waits(&pace, [1_040 * ms]) == [false])
    }

    @Test func aSpanOfZeroNeverWaits() {
        var pace = ReadingPace(span: 0)
        #expect(waits(&pace, [0, 1, 2, 3]) == [false, false, false, false])
    }
}

struct SpoolWatcherTests {
    let dir = TemporaryDirectory()
    var spool: Spool { Spool(root: dir.path + "/spool") }

    /// Collects what the watcher hands over, and wakes the test when `wanted` removals are in.
    final class Seen: @unchecked Sendable {
        let removed = Mutex<[String]>([])
        let intake = Mutex<[String]>([])
        let overflowed = Atomic<Bool>(false)
        let arrived = DispatchSemaphore(value: 0)
        let wanted = Atomic<Int>(.max)

        func take(_ changes: SpoolWatcher.Changes) {
            intake.withLock { $0 += changes.intake }
            if changes.overflowed { overflowed.store(true, ordering: .sequentiallyConsistent); arrived.signal() }
            let count = removed.withLock { list in
                for case .removed(let name) in changes.jobs { list.append(name) }
                return list.count
            }
            if count >= wanted.load(ordering: .sequentiallyConsistent) { arrived.signal() }
        }

        /// Waits until `count` removals in all were handed over (at most `seconds`).
        func await(_ count: Int, seconds: Int = 20) -> Bool {
            wanted.store(count, ordering: .sequentiallyConsistent)
            while removed.withLock({ $0.count }) < count {
                if arrived.wait(timeout: .now() + .seconds(seconds)) == .timedOut { return false }
            }
            return true
        }
    }

    static let clock: @Sendable () -> UInt64 = { DispatchTime.now().uptimeNanoseconds }

    private func makeJobs(_ count: Int) throws -> [String] {
        try spool.prepare()
        let names = (0..<count).map { "w-\($0).json" }
        // Files made before the watcher starts (and IN_CREATE is not watched in jobs/ anyway).
        for name in names { FileManager.default.createFile(atPath: spool.jobs + "/" + name, contents: Data("{}".utf8)) }
        return names
    }

    @Test func aRunOfRenamesIsReadInAFewReadingsInOrderAndNothingIsLost() throws {
        let names = try makeJobs(600)
        let queue = DispatchQueue(label: "test.watch")
        let seen = Seen()
        let span: UInt64 = 10_000_000
        let watcher = try SpoolWatcher(spool: spool, queue: queue, pace: span, clock: Self.clock) { seen.take($0) }
        defer { queue.sync { watcher.cancel() } }
        let started = DispatchTime.now().uptimeNanoseconds
        for name in names { #expect(rename(spool.jobs + "/" + name, spool.done + "/" + name) == 0) }
        #expect(seen.await(names.count))
        let took = DispatchTime.now().uptimeNanoseconds - started
        #expect(seen.removed.withLock { $0 } == names)
        // At most one reading per span in a run, beside the run's first two (and one span of slack
        // for where the run began within a span); read as they came, 600 renames take hundreds.
        let bound = 3 + Int(took / span) + 1
        #expect(watcher.readings <= bound, "\(watcher.readings) readings in \(took / 1_000_000) ms")
    }

    @Test func aLoneChangeIsReadAtOnceAndTheRunsNextWaitsForTheSpanOrAQuestion() throws {
        let names = try makeJobs(3)
        let queue = DispatchQueue(label: "test.watch")
        let seen = Seen()
        // A span far longer than the test waits: what arrives, arrived without waiting for it.
        var watcher: SpoolWatcher? = try SpoolWatcher(spool: spool, queue: queue, pace: 600_000_000_000, clock: Self.clock) { seen.take($0) }
        defer { if let watcher { queue.sync { watcher.cancel() } } }  // a failed check leaves no thread behind
        func move(_ name: String) { #expect(rename(spool.jobs + "/" + name, spool.done + "/" + name) == 0) }
        move(names[0])
        #expect(seen.await(1))
        move(names[1])  // within the span of the first reading: read, and the thread then waits
        #expect(seen.await(2))
        move(names[2])
        // The thread does not read it; a question about the spool does, on the queue, in order.
        queue.sync { watcher!.handleQueuedEvents() }
        #expect(seen.removed.withLock { $0 } == names)
        #expect(watcher!.readings == 2)
        // Cancelled in its wait, the thread ends long before the span.
        let ending = watcher!
        queue.sync { ending.cancel() }
        watcher = nil
        #expect(ending.threadEnded.wait(timeout: .now() + 20) == .success)
    }

    @Test func aFileDroppedIntoNewIsReadAtOnceWhileJobsWaitsOutItsSpan() throws {
        let names = try makeJobs(3)
        let queue = DispatchQueue(label: "test.watch")
        let seen = Seen()
        let watcher = try SpoolWatcher(spool: spool, queue: queue, pace: 600_000_000_000, clock: Self.clock) { seen.take($0) }
        defer { queue.sync { watcher.cancel() } }
        func move(_ name: String) { #expect(rename(spool.jobs + "/" + name, spool.done + "/" + name) == 0) }
        move(names[0])
        #expect(seen.await(1))
        move(names[1])
        #expect(seen.await(2))  // the thread now waits out a span on jobs/
        move(names[2])
        // The maildir way: written in tmp/, renamed into new/.
        FileManager.default.createFile(atPath: spool.tmp + "/x.json", contents: Data("{}".utf8))
        #expect(rename(spool.tmp + "/x.json", spool.new + "/x.json") == 0)
        // Read at once, and with it what jobs/ had meanwhile, in its order.
        #expect(seen.await(3))
        #expect(seen.intake.withLock { $0 } == ["x.json"])
        #expect(seen.removed.withLock { $0 } == names)
        #expect(watcher.readings == 3)
    }

    @Test func changesPilingUpWhileTheQueueIsBusyBecomeARescan() throws {
        let names = try makeJobs(SpoolWatcher.pendingLimit + 100)
        let queue = DispatchQueue(label: "test.watch")
        let seen = Seen()
        let watcher = try SpoolWatcher(spool: spool, queue: queue, pace: 0, clock: Self.clock) { seen.take($0) }
        defer { queue.sync { watcher.cancel() } }
        let held = DispatchSemaphore(value: 0)
        queue.async { held.wait() }  // the scheduler's queue is busy: nothing is handed over
        for name in names { #expect(rename(spool.jobs + "/" + name, spool.done + "/" + name) == 0) }
        // The thread goes on reading the kernel's events; past the limit they become a rescan.
        #expect(watcher.pendingDropped.wait(timeout: .now() + 30) == .success)
        held.signal()
        queue.sync {}
        let rescan = seen.overflowed.load(ordering: .sequentiallyConsistent)
        #expect(rescan)
        #expect(seen.removed.withLock { $0.count } < names.count)
    }

    @Test func aChangeAfterCancelIsNotHandedOver() throws {
        let names = try makeJobs(2)
        let queue = DispatchQueue(label: "test.watch")
        let seen = Seen()
        var watcher: SpoolWatcher? = try SpoolWatcher(spool: spool, queue: queue, pace: 0, clock: Self.clock) { seen.take($0) }
        #expect(rename(spool.jobs + "/" + names[0], spool.done + "/" + names[0]) == 0)
        #expect(seen.await(1))
        queue.sync { watcher!.cancel() }
        #expect(rename(spool.jobs + "/" + names[1], spool.done + "/" + names[1]) == 0)
        queue.sync { watcher!.handleQueuedEvents() }
        // Once the thread has ended, whatever it handed over is on the queue: nothing of it may
        // reach the handler.
        #expect(watcher!.threadEnded.wait(timeout: .now() + 20) == .success)
        watcher = nil
        queue.sync {}
        #expect(seen.removed.withLock { $0 } == [names[0]])
    }
}
