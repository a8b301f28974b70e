import ArgumentParser
import HeraldCore

/// A shortcut past ArgumentParser for the command scripts and hot keys run most:
/// `herald remind` with plain options: ArgumentParser's reflection costs more per run than `at`
/// takes to queue a whole job (BENCHMARKS.md, "Why the code is as it is"). The shortcut takes only plain, well-formed
/// command lines — known `--option value` pairs, each at most once, and words of text —
/// and returns nil for anything else (help, `--opt=value`, `--`, unknown or repeated options,
/// a missing value), which ArgumentParser then handles, errors and suggestions included.
/// `FastPathTests` checks it agrees with ArgumentParser on many generated command lines.
enum FastPath {
    static func remind(_ arguments: [String]) -> RemindRequest? {
        guard arguments.first == "remind" else { return nil }
        // One variable per option, not a table: every new collection type (a Dictionary, an
        // array of tuples) costs a run-time metadata instantiation on each start.
        var spool, config, at, inSpan, every, title, urgency, icon, id: String?
        var text: [String] = []
        var k = 1
        while k < arguments.count {
            let token = arguments[k]
            if token.hasPrefix("-") {
                guard k + 1 < arguments.count, !arguments[k + 1].hasPrefix("-") else { return nil }
                let value = arguments[k + 1]
                func once(_ slot: inout String?) -> Bool {
                    guard slot == nil else { return false }
                    slot = value
                    return true
                }
                let taken: Bool
                switch token {
                case "--spool": taken = once(&spool)
                case "--config": taken = once(&config)
                case "--at": taken = once(&at)
                case "--in": taken = once(&inSpan)
                case "--every": taken = once(&every)
                case "--title": taken = once(&title)
                case "--urgency": taken = once(&urgency)
                case "--icon": taken = once(&icon)
                case "--id": taken = once(&id)
                default: taken = false
                }
                guard taken else { return nil }
                k += 2
            } else {
                text.append(token)
                k += 1
            }
        }
        var level: Job.Urgency? = nil
        if let urgency {
            guard let parsed = Job.Urgency(rawValue: urgency) else { return nil }
            level = parsed
        }
        return RemindRequest(spool: spool, config: config, at: at, inSpan: inSpan, every: every.map { [$0] } ?? [], title: title,
                             urgency: level, icon: icon, id: id, text: text)
    }
}
