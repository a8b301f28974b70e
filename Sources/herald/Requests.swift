#if canImport(Glibc)
import Glibc
#endif
import HeraldCore

extension CLIContext {
    /// Hands a one-job command to the running heraldd, which decides and writes (one writer);
    /// nil when no heraldd answers, and the command then applies the same `JobDecision` itself.
    ///
    /// - Throws: `CLIError` for heraldd's refusal, or when heraldd took the request but gave
    ///   no answer (the change may be made: it is never made a second time here).
    func askDaemon(_ request: ClientRequest) throws -> ClientAnswer? {
        // A job still being filed (`herald remind` a moment ago) or changing while heraldd read
        // it is refused as `changed` with nothing done: asked again for up to two seconds.
        for attempt in 0... {
            switch SpoolQuery.send(spool, request) {
            case .noDaemon: return nil
            case .busy:
                throw CLIError.failure("heraldd is busy (serving as many commands as it takes at once); nothing was done, try again")
            case .noAnswer:
                throw CLIError.failure("heraldd did not answer the \(request.verb) of '\(request.id)' in time; see 'herald history' and 'herald list' before trying again")
            case .answered(.refused(let refusal)) where refusal.code == .changed && attempt < 40:
                usleep(50_000)
            case .answered(.refused(let refusal)): throw refusal.cliError
            case .answered(let answer): return answer
            }
        }
        return nil
    }
}

extension ClientRefusal {
    var cliError: CLIError {
        switch code {
        case .beforeOwnTime: return .usage(message)
        case .failed: return .failure(message)
        default: return .data(message)
        }
    }
}

extension Spool {
    /// The occurrence of `id` most recently shown: read backwards from the end of history.jsonl
    /// in blocks, stopping at the first match, never more than `limit` bytes.
    func lastShownOccurrence(of id: String, limit: Int = 4 << 20) -> Instant? {
        var found: Instant?
        let needle = "\"\(id)\""
        FileSystem.forEachLineBackwards(historyPath, limit: limit) { line in
            guard line.includes(needle), let record = HistoryRecord(jsonLine: line), record.id == id, record.outcome == .shown else { return true }
            found = record.due
            return false
        }
        return found
    }
}
