#if canImport(Glibc)
import Glibc
#endif
import CHeraldSys

extension Spool {
    /// Replaces pending job `current`'s document with `job` and moves it to the state `next`
    /// (`herald reschedule`, `herald edit`). The new document is written and fsynced beside the
    /// old one, the two are swapped in one step (`renameat2` RENAME_EXCHANGE, which fails when
    /// the old one has gone, so a job that fired or was cancelled meanwhile is never brought
    /// back), and the file is then renamed to its new state, as a snooze is. Until the swap the
    /// old job is untouched.
    ///
    /// - Throws: `FileSystemError`; ENOENT when the job changed meanwhile (fired, cancelled).
    public func replace(_ current: JobFileName, with job: Job, zone: TimeZoneRules, next: JobFileName) throws(FileSystemError) {
        let target = path(of: current)
        let staged = jobs + "/.replace-" + current.id + "." + String(getpid())
        unlink(staged)
        try FileSystem.writeFile(Array((job.encoded(zone: zone) + "\n").utf8), at: staged, options: [.exclusiveCreate], sync: true)
        guard herald_rename_exchange(staged, target) == 0 else {
            let error = FileSystem.fail("replace", target)
            unlink(staged)
            throw error
        }
        unlink(staged)  // the old document, now replaced
        if next != current { try FileSystem.move(target, to: path(of: next)) }
        try FileSystem.syncDirectoryOf(path(of: next))
    }
}
