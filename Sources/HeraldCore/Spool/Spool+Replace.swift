#if canImport(Glibc)
import Glibc
#endif
import SystemPackage
import CHeraldSys

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
        let staged = tmp + "/replace-" + current.id + "." + String(getpid())
        unlink(staged)
        let document = Array((job.encoded(zone: zone) + "\n").utf8)
        do { try FileSystem.writeFile(document, at: staged, options: [.exclusiveCreate], sync: true) } catch {
            throw .failed(error)
        }
        // Into the pack before it is swapped in (see JobDocPack).
        var st = stat()
        if lstat(staged, &st) == 0 {
            JobDocPack(spool: self).append([JobDocPack.Record(id: current.id, inode: UInt64(st.st_ino), document: document)])
        }
        guard herald_rename_exchange(staged, target) == 0 else {
            let error = FileSystem.fail("replace", target)
            unlink(staged)
            throw error.isNotFound ? .changed : .failed(error)
        }
        unlink(staged)  // the old document, now replaced
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
