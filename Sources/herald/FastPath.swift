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

    /// `herald run` with plain options before `--` and the program after it (no script on
    /// standard input, no flags): nil for anything else, which ArgumentParser then reads.
    static func run(_ arguments: [String]) -> RunRequest? {
        guard arguments.first == "run" else { return nil }
        var spool, config, at, inSpan, every, timeout, notify, label, id: String?
        var k = 1
        while k < arguments.count, arguments[k] != "--" {
            let token = arguments[k]
            guard token.hasPrefix("--"), k + 1 < arguments.count, !arguments[k + 1].hasPrefix("-") else { return nil }
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
            case "--timeout": taken = once(&timeout)
            case "--notify": taken = once(&notify)
            case "--label": taken = once(&label)
            case "--id": taken = once(&id)
            default: taken = false
            }
            guard taken else { return nil }
            k += 2
        }
        // The program after `--`, at least one word of it.
        guard k + 1 < arguments.count, arguments[k] == "--" else { return nil }
        return RunRequest(spool: spool, config: config, at: at, inSpan: inSpan, every: every.map { [$0] } ?? [], timeout: timeout,
                          notify: notify, label: label, id: id, program: Array(arguments[(k + 1)...]))
    }
}
