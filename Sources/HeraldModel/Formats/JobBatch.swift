/// JSON Lines of job documents, one per non-blank line: a batch in `new/`, `herald import`'s
/// input, `herald validate FILE.jsonl`. Every reader of the format goes through here.
public enum JobBatch {
    public struct Line: Sendable {
        /// 1-based.
        public var number: Int
        public var bytes: ArraySlice<UInt8>
        public init(number: Int, bytes: ArraySlice<UInt8>) { self.number = number; self.bytes = bytes }
    }

    public struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
        public var line: Int
        public var message: String
        /// The message without values quoted from the file.
        public var redacted: String
        public var description: String { "line \(line): \(message)" }
        public init(line: Int, message: String, redacted: String) { self.line = line; self.message = message; self.redacted = redacted }
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
    public static func decode(_ bytes: [UInt8], localZone: TimeZoneRules, zones: ZoneLookup) -> (jobs: [(line: Line, job: Job)], problems: [Problem]) {
        var jobs: [(line: Line, job: Job)] = []
        var problems: [Problem] = []
        for line in lines(bytes) {
            switch decodeLine(line, localZone: localZone, zones: zones) {
            case .success(let job): jobs.append((line, job))
            case .failure(let problem): problems.append(problem)
            }
        }
        return (jobs, problems)
    }

    /// Decodes one line (a line longer than a job file may be is a problem).
    public static func decodeLine(_ line: Line, localZone: TimeZoneRules, zones: ZoneLookup) -> Result<Job, Problem> {
        // Filed as a job file with its newline, which must fit too.
        if line.bytes.count + 1 > Job.maximumFileSize { return .failure(tooLong(line.number)) }
        do { return .success(try Job.decode(line.bytes, zones: zones, localZone: localZone)) } catch {
            return .failure(Problem(line: line.number, message: error.description, redacted: error.reason))
        }
    }

    public static func tooLong(_ number: Int) -> Problem {
        let message = "longer than \(Job.maximumFileSize / 1024) KiB"
        return Problem(line: number, message: message, redacted: message)
    }

    /// The id a line without one gets when a batch named `stem.jsonl` is taken in.
    public static func defaultID(stem: String, line: Int) -> String { "\(stem)-\(line)" }
}
