import CHeraldSys
import Dispatch
import Glibc
import HeraldCore

/// heraldd's side of one calendar source's reader: a process of its own (`heraldd
/// --calendar-reader`, `CalendarReaderMain`) that reads the source's folder and answers one
/// line a request. A folder on a hung network mount can keep a thread waiting in the kernel
/// even through SIGKILL: it is then the reader's, and heraldd goes on (and stops, and starts
/// again) without it. The reader is started when first asked, and again after it stopped.
final class CalendarSourceProcess: @unchecked Sendable {  // state confined to `queue`
    let source: HeraldConfig.CalendarSource
    /// Where requests wait for the reader's answer (one at a time).
    let queue = DispatchQueue(label: "herald.calendar.source", qos: .utility)
    private let spool: Spool
    private var child: ChildProcess?
    private var input: Descriptor?
    private var output: LineReader?
    /// The note a reader that stopped left (its next begin counts on from it).
    private var suspect: (what: String, strikes: Int)?

    /// How a read went when no snapshot came back.
    enum Failure: Error {
        /// The reader stopped (it died on a file, or was stopped): the note it left, if any.
        case stopped(leftover: (what: String, strikes: Int)?)
        case cannotStart(String)
    }

    init(source: HeraldConfig.CalendarSource, spool: Spool) {
        self.source = source
        self.spool = spool
    }

    /// The reader's note of the file it reads (its crash-loop breaker).
    var noteName: String { CalendarSourceReader.noteName(source.path) }

    /// Remembers that heraldd already died once while planning `what` (a note found at start).
    func suspect(_ what: String, strikes: Int) { queue.async { [self] in suspect = (what, strikes) } }

    /// Reads the source (on `queue`).
    func read(now: Instant, grace: Span, setAside: [String: String]) -> Result<SourceSnapshot, Failure> {
        let request = SourceRequest.read(now: now, grace: grace, setAside: setAside, suspect: suspect)
        suspect = nil
        return exchange(request).flatMap { line in
            guard let (header, count) = SourceSnapshot.header(json: line) else {
                stop()
                return .failure(.cannotStart("the calendar reader answered something else"))
            }
            // Its items follow, a line each, within the answer's limit altogether.
            var snapshot = header
            var budget = Self.answerLimit - line.count
            for _ in 0..<count {
                guard let output, let itemLine = output.next(limit: max(budget, 0)) else { return .failure(.stopped(leftover: ended())) }
                budget -= itemLine.count + 1
                guard snapshot.add(itemJSON: itemLine) else {
                    stop()
                    return .failure(.cannotStart("the calendar reader answered something else"))
                }
            }
            return .success(snapshot)
        }
    }

    /// Writes a change back into an item (on `queue`); what to log.
    func writeBack(_ change: CalendarWriteBack) -> (written: Bool, message: String) {
        switch exchange(.writeBack(change)) {
        case .success(let line):
            guard case .object(let o)? = try? JSONValue.parse(line), case .bool(let written)? = o["written"],
                  case .string(let message)? = o["message"] else { return (false, "The calendar reader answered something else") }
            return (written, message)
        case .failure: return (false, "The calendar reader stopped; nothing written back")
        }
    }

    /// Ends the reader (from any thread): a read waiting for it gets its end.
    func stop() {
        child?.signal(SIGKILL)
        input?.close()
    }

    private func exchange(_ request: SourceRequest) -> Result<[UInt8], Failure> {
        if child == nil {
            if let problem = start() { return .failure(.cannotStart(problem)) }
        }
        guard let input, let output, input.writeAll(Array((request.json + "\n").utf8)),
              let line = output.next(limit: Self.answerLimit) else {
            return .failure(.stopped(leftover: ended()))
        }
        return .success(line)
    }

    /// The most a reader may answer (a calendar of many items; far more than a real one).
    static let answerLimit = 512 << 20

    /// Starts the reader; the problem when it cannot be.
    private func start() -> String? {
        guard let (childIn, parentOut) = Descriptor.pipe(), let (parentIn, childOut) = Descriptor.pipe() else {
            return String(cString: strerror(errno))
        }
        // The child's ends stay open until it has started (they are then closed here).
        defer { withExtendedLifetime((childIn, childOut)) {} }
        var arguments = ["--calendar-reader", source.path, "--spool", spool.root]
        if source.writeBack { arguments.append("--write-back") }
        let command = ChildProcess.Command("/proc/self/exe", arguments, input: .descriptor(childIn.raw), output: .descriptor(childOut.raw))
        do { child = try command.start() } catch { return error.description }
        input = parentOut
        output = LineReader(parentIn)
        return nil
    }

    /// The reader is gone: reaped if it can be, and its note read (it may have died on a file).
    private func ended() -> (what: String, strikes: Int)? {
        input?.close()
        input = nil
        output = nil
        if let child, child.poll() == nil {
            child.signal(SIGKILL)
            // One stuck on a hung mount may never end: it is left, not waited for.
            _ = child.poll()
        }
        child = nil
        return WorkClaim.leftover(spool: spool, name: noteName)
    }
}
