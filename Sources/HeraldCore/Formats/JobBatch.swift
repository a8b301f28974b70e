#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// JSON Lines of job documents, one per non-blank line: a batch in `new/`, `herald import`'s
/// input, `herald validate FILE.jsonl`. Every reader of the format goes through here.
public enum JobBatch {
    public struct Line: Sendable {
        /// 1-based.
        public var number: Int
        public var bytes: ArraySlice<UInt8>
    }

    public struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
        public var line: Int
        public var message: String
        /// The message without values quoted from the file.
        public var redacted: String
        public var description: String { "line \(line): \(message)" }
    }

    /// The non-blank lines.
    public static func lines(_ bytes: [UInt8]) -> [Line] {
        var result: [Line] = []
        var number = 0
        for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            number += 1
            if line.allSatisfy({ $0 == 32 || $0 == 9 || $0 == 13 }) { continue }
            result.append(Line(number: number, bytes: line))
        }
        return result
    }

    /// Decodes every line; a line longer than a job file may be, or not a valid job, is a problem.
    public static func decode(_ bytes: [UInt8], localZone: TimeZoneRules) -> (jobs: [(line: Line, job: Job)], problems: [Problem]) {
        var jobs: [(line: Line, job: Job)] = []
        var problems: [Problem] = []
        for line in lines(bytes) {
            switch decodeLine(line, localZone: localZone) {
            case .success(let job): jobs.append((line, job))
            case .failure(let problem): problems.append(problem)
            }
        }
        return (jobs, problems)
    }

    /// Decodes one line (a line longer than a job file may be is a problem).
    public static func decodeLine(_ line: Line, localZone: TimeZoneRules) -> Result<Job, Problem> {
        // Filed as a job file with its newline, which must fit too.
        if line.bytes.count + 1 > Job.maximumFileSize { return .failure(tooLong(line.number)) }
        do { return .success(try Job.decode(Data(line.bytes), localZone: localZone)) } catch {
            return .failure(Problem(line: line.number, message: error.description, redacted: error.reason))
        }
    }

    static func tooLong(_ number: Int) -> Problem {
        let message = "longer than \(Job.maximumFileSize / 1024) KiB"
        return Problem(line: number, message: message, redacted: message)
    }

    /// Calls `body` with each non-blank line of `fd` and its byte offset, reading a chunk at a
    /// time: a batch of any size is checked in bounded memory. A line too long to be a job is
    /// reported with `tooLong` (its bytes are not kept).
    public static func forEachLine(_ fd: Int32, _ body: (Line, _ offset: Int) -> Void, tooLong: (Problem) -> Void) {
        var number = 0
        var offset = 0  // of the current line's first byte
        var long = false
        FileSystem.forEachLine(fd) { bytes, piece in
            switch piece {
            case .part:
                if !long { number += 1; tooLong(Self.tooLong(number)) }
                long = true
                offset += bytes.count
            case .lastPart:
                long = false
                offset += bytes.count + 1
            case .line:
                number += 1
                if !bytes.allSatisfy({ $0 == 32 || $0 == 9 || $0 == 13 }) { body(Line(number: number, bytes: bytes), offset) }
                offset += bytes.count + 1
            }
        }
    }

    /// The id a line without one gets when a batch named `stem.jsonl` is taken in.
    public static func defaultID(stem: String, line: Int) -> String { "\(stem)-\(line)" }
}
