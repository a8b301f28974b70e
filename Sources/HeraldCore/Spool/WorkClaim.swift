#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The crash-loop breaker's note of the one input a queue is working on: written before the
/// work, cleared after it. If heraldd dies in between (a trap, the OOM killer, SIGKILL), the
/// next start finds the note and puts that input aside instead of dying on it again.
///
/// One open file per queue, rewritten in place (`pwrite`, `ftruncate`): two system calls an
/// input, no fsync. The note only has to outlive the process, not the machine.
public final class WorkClaim: @unchecked Sendable {  // used from one serial queue
    public let path: String
    private let note: Descriptor
    /// How often heraldd already died on each input (from the note found at start).
    private var strikes: [String: Int] = [:]

    /// `.taking` (the intake queue of large batches: a file of `new/`), `.taking-small` (the
    /// queue of small files, which reads beside it) and `.planning` (the calendar queue).
    public static let intake = ".taking"
    public static let smallIntake = ".taking-small"
    /// One note per intake queue: both read at once, and one note shared between them was
    /// overwritten and cleared by the small queue while the large one still read its batch.
    public static let intakeNotes = [intake, smallIntake]
    public static let calendar = ".planning"

    /// Opens (creating, mode 0600) the spool's note `name`; nil when it cannot, and the work
    /// then goes on unguarded rather than not at all.
    public init?(spool: Spool, name: String) {
        path = spool.root + "/" + name
        Self.removeIfNotRegular(path)
        guard let opened = Descriptor.open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK) else { return nil }
        var st = stat()
        guard fstat(opened.raw, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return nil }
        note = opened
    }

    /// The note is heraldd's own file: a symlink, FIFO or socket in its place (nobody's data)
    /// is removed, so that it is never followed, waited on or truncated through.
    static func removeIfNotRegular(_ path: String) {
        var st = stat()
        guard lstat(path, &st) == 0 else { return }
        switch st.st_mode & S_IFMT {
        case S_IFREG, S_IFDIR: return  // a directory is left alone (and the note then not kept)
        default: unlink(path)
        }
    }

    /// The note's descriptor, opened safely (nil: there is none, or it is not a regular file).
    static func openNote(_ path: String) -> Descriptor? {
        removeIfNotRegular(path)
        guard let note = Descriptor.open(path, O_RDWR | O_NOFOLLOW | O_NONBLOCK) else { return nil }
        var st = stat()
        guard fstat(note.raw, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return nil }
        return note
    }

    /// Remembers that heraldd died once already while working on `what`.
    public func suspect(_ what: String, strikes n: Int) { strikes[what] = n }

    /// Notes `what` (one line) as being worked on.
    public func begin(_ what: String) {
        // The line's end marks where it stops: a longer note before it may leave a tail if the
        // process dies between the two calls, and the reader ignores what follows the newline.
        let bytes = Array(("\((strikes[what] ?? 0) + 1) " + what + "\n").utf8)
        _ = bytes.withUnsafeBytes { pwrite(note.raw, $0.baseAddress, $0.count, 0) }
        _ = ftruncate(note.raw, off_t(bytes.count))
    }

    /// The work is over, whatever its outcome.
    public func end() { _ = ftruncate(note.raw, 0) }

    /// What a process that died was working on (nil: nothing), and how many times in a row it
    /// died on it; read at start before anything is taken up. The note is cleared.
    public static func leftover(spool: Spool, name: String) -> (what: String, strikes: Int)? {
        guard let note = openNote(spool.root + "/" + name) else { return nil }
        var bytes = [UInt8](repeating: 0, count: 4096)  // a note is one short line
        let n = bytes.withUnsafeMutableBytes { pread(note.raw, $0.baseAddress!, $0.count, 0) }
        _ = ftruncate(note.raw, 0)
        guard n > 0 else { return nil }
        bytes.removeSubrange(n...)
        guard let end = bytes.firstIndex(of: UInt8(ascii: "\n")), end > 0 else { return nil }
        let line = String(decoding: bytes[..<end], as: UTF8.self)
        guard let space = line.firstIndex(of: " "), let n = Int(line[..<space]), n >= 1 else { return nil }
        return (String(line[line.index(after: space)...]), n)
    }

    /// Died this many times in a row on one input: set it aside. One death may be anything (a
    /// SIGKILL, the machine going down) and must not cost a good file; two on the same input
    /// is the input.
    public static let strikesToSetAside = 2

    /// Clears the note on a clean stop: whatever was being read is simply read again.
    public static func clear(spool: Spool, name: String) {
        _ = openNote(spool.root + "/" + name).map { ftruncate($0.raw, 0) }
    }

    /// The reason given to an input set aside this way.
    public static let reason = "heraldd stopped while reading this (it is set aside so that heraldd does not stop on it again)"
}
