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
        var values: [String: String] = [:]
        var text: [String] = []
        var k = 1
        while k < arguments.count {
            let token = arguments[k]
            if token.hasPrefix("-") {
                guard isRemindOption(token), values[token] == nil, k + 1 < arguments.count,
                      !arguments[k + 1].hasPrefix("-") else { return nil }
                values[token] = arguments[k + 1]
                k += 2
            } else {
                text.append(token)
                k += 1
            }
        }
        var urgency: Job.Urgency? = nil
        if let u = values["--urgency"] {
            guard let parsed = Job.Urgency(rawValue: u) else { return nil }
            urgency = parsed
        }
        return RemindRequest(spool: values["--spool"], config: values["--config"], at: values["--at"], inSpan: values["--in"],
                             every: values["--every"], title: values["--title"], urgency: urgency, icon: values["--icon"],
                             id: values["--id"], text: text)
    }
}
