import ArgumentParser
import HeraldCore

/// A shortcut past ArgumentParser for the command scripts and hot keys run most:
/// `herald remind` with plain options. ArgumentParser's reflection costs about 2 ms per run,
/// more than `at` takes to queue a whole job. The shortcut takes only plain, well-formed
/// command lines — known `--option value` pairs, each at most once, and words of text —
/// and returns nil for anything else (help, `--opt=value`, `--`, unknown or repeated options,
/// a missing value), which ArgumentParser then handles, errors and suggestions included.
/// `FastPathTests` checks it agrees with ArgumentParser on many generated command lines.
enum FastPath {
    static func isRemindOption(_ token: String) -> Bool {
        switch token {
        case "--spool", "--config", "--at", "--in", "--every", "--title", "--urgency", "--icon", "--id": return true
        default: return false
        }
    }

    static func remind(_ arguments: [String]) -> RemindRequest? {
        guard arguments.first == "remind" else { return nil }
        // Option values in a small list, not a Dictionary: the first [String: String] in a
        // process costs a run-time conformance lookup that scans every conformance record.
        var values: [(option: String, value: String)] = []
        func value(_ option: String) -> String? {
            for entry in values where entry.option == option { return entry.value }
            return nil
        }
        var text: [String] = []
        var k = 1
        while k < arguments.count {
            let token = arguments[k]
            if token.hasPrefix("-") {
                guard isRemindOption(token), value(token) == nil, k + 1 < arguments.count,
                      !arguments[k + 1].hasPrefix("-") else { return nil }
                values.append((token, arguments[k + 1]))
                k += 2
            } else {
                text.append(token)
                k += 1
            }
        }
        var urgency: Job.Urgency? = nil
        if let u = value("--urgency") {
            guard let parsed = Job.Urgency(rawValue: u) else { return nil }
            urgency = parsed
        }
        return RemindRequest(spool: value("--spool"), config: value("--config"), at: value("--at"), inSpan: value("--in"),
                             every: value("--every"), title: value("--title"), urgency: urgency, icon: value("--icon"),
                             id: value("--id"), text: text)
    }
}
