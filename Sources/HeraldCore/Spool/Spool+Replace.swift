#if canImport(Glibc)
import Glibc
#endif

extension Spool {
    /// Replaces pending job `current`'s document with `job` and moves it to the state `next`
    /// (`herald reschedule`, `herald edit`). The new document is written and fsynced in `tmp/`
    /// (a leftover is swept with the rest of `tmp/`), the two are swapped in one step
    /// (`renameat2` RENAME_EXCHANGE, which fails when the old one has gone, so a job that
    /// finished or was cancelled meanwhile is never brought back), and the file is then renamed
    /// to its new state, as a snooze is. Until the swap the old job is untouched.
    ///
    /// - Throws: `ReplaceError.changed` when the job moved before the swap (nothing changed),
    ///   `.firedDuringChange` when heraldd moved it between the swap and the rename (the new
    ///   document is in place, at the state heraldd gave it), `.failed` otherwise.
    public func replace(_ current: JobFileName, with job: Job, zone: TimeZoneRules, next: JobFileName) throws(ReplaceError) {
        let target = path(of: current)
        let document = Array((job.encoded(zone: zone) + "\n").utf8)
        let outcome: AtomicReplace.Outcome
        do throws(FileSystemError) {
            let staged = try AtomicReplace.stage(target, options: .init(mode: 0o600, existing: .mustExist, staging: tmp))
            try staged.write(document)
            // Into the pack before it is swapped in (see JobDocPack).
            JobDocPack(spool: self).append([JobDocPack.Record(id: current.id, inode: staged.inode, document: document)])
            outcome = try staged.commit()
        } catch {
            throw .failed(error)
        }
        guard outcome == .replaced else { throw .changed }
        if next != current {
            do { try FileSystem.move(target, to: path(of: next)) } catch {
                throw error.isNotFound ? .firedDuringChange : .failed(error)
            }
        }
        do { try FileSystem.syncDirectoryOf(path(of: next)) } catch { throw .failed(error) }
    }
}

/// Why `Spool.replace` did not finish.
public enum ReplaceError: Error, Sendable {
    case changed
    case firedDuringChange
    case failed(FileSystemError)
}
