import HeraldCore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Fuzzer {
    /// Values that probe the job decoder's validation: near-valid times, spans, expressions,
    /// ids, zones, and the wrong types.
    static let jobValues: [JSONValue] = [
        .string("2026-11-22T14:05:00+01:00"), .string("2026-02-30T10:00Z"), .string("2026-11-22T24:00Z"), .string("2026-11-22T10:00"),
        .string("9999-12-31T23:59:59.999999Z"), .string("0000-01-01T00:00:00Z"), .string("15m"), .string("-5m"), .string("infinity"),
        .string("99999999999999999999h"), .string("Mon..Fri 09:00"), .string("Fri..Mon"), .string("*-*~29"), .string("daily Mars/Phobos"),
        .string("Europe/Berlin"), .string("../../etc/passwd"), .string(""), .string(" "), .string("a b"), .string(String(repeating: "x", count: 65)),
        .string("reminder"), .string("delivery"), .string("habit"), .string("critical"), .string("Zoë 🎉 <&>\u{7}"),
        .number(1), .number(0), .number(-1), .number(1.5), .number(1e20), .number(2), .bool(true), .null, .array([]), .object([:]),
        .array([.object(["name": .string("milk"), "quantity": .number(2)])]), .array([.object(["name": .string(""), "quantity": .number(0)])]),
        .object(["name": .string("A"), "address": .string("B"), "phone": .string("1")]),
        // Every field at its edge: spans at Int64's end, the calendar's first and last years,
        // schedules that fire every second or never, the largest counts and amounts.
        .string("9223372036854775807us"), .string("-9223372036854775808us"), .string("292000y"), .string("292277y"), .string("366d"),
        .string("366d 1us"), .string("1s"), .string("999ms"), .string("0"), .string("0000-01-01T00:00:00Z"), .string("0001-01-01T00:00:00+14:00"),
        .string("9999-12-31T23:59:59.999999-14:00"), .string("10000-01-01T00:00:00Z"), .string("1969-12-31T23:59:59.999999Z"),
        .string("*:*:0/0.001"), .string("*:*:*"), .string("*-*-* *:*:0.5/1"), .string("2199-12-31 23:59:59"), .string("1970-01-01 00:00:00"),
        .string("@253402300799"), .string("*-02-29 00:00"), .string("*-*~31"), .string("Mon..Sun *-*-* 00..23:00..59:00..59"),
        .string("366/366days"), .string("1/366days"), .string("31/month"), .string("7/week"), .string(String(repeating: "é", count: 4000)),
        .number(1_000_000), .number(1_000_001), .number(0.000001), .number(1e308), .number(-1e308), .number(9_007_199_254_740_992),
        .number(Double(Int64.max)), .number(999), .number(1000),
        .array(Array(repeating: .string("1s"), count: 8)), .array(["366d", "1s", "15m", "1d", "7d", "1h", "2h", "3h"].map { .string($0) }),
        .array(Array(repeating: .string("*:*:*"), count: 16)),
        .array(Array(repeating: .object(["name": .string("x"), "quantity": .number(1_000_000)]), count: 64)),
        .array([.object(["at": .string("9999-12-31T23:59:59Z"), "start": .string("9999-12-31"), "alarm": .number(999)]),
                .object(["at": .string("0000-01-01T00:00:00Z"), "start": .string(""), "alarm": .number(0)])]),
    ]
    static let jobKeys = ["version", "kind", "id", "at", "every", "timezone", "title", "text", "icon", "urgency", "recipient", "items", "lead",
                          "colour", "repeat", "warn", "times", "target", "unit", "targetType", "sound", "tags", "url", "alarms"]

    /// A seed job with one field changed, dropped or added, serialized again.
    mutating func mutateJob(_ seed: [UInt8]) -> [UInt8]? {
        guard case .object(var o)? = try? JSONValue.parse(Array(seed)) else { return nil }
        for _ in 0..<(1 + Int(rng.next() % 3)) {
            let key = Self.jobKeys[Int(rng.next() % UInt64(Self.jobKeys.count))]
            if rng.next() % 5 == 0 { o.removeValue(forKey: key) } else {
                o[key] = Self.jobValues[Int(rng.next() % UInt64(Self.jobValues.count))]
            }
        }
        return Array(Self.serialize(.object(o)).utf8)
    }

    static func serialize(_ value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .number(let n): return n == n.rounded() && abs(n) < 1e15 ? String(Int64(n)) : String(n)
        case .string(let s): return JSONWriter.render(.string(s))
        case .array(let items): return "[" + items.map(serialize).joined(separator: ",") + "]"
        case .object(let fields):
            return "{" + fields.keys.sorted().map { JSONWriter.render(.string($0)) + ":" + serialize(fields[$0]!) }.joined(separator: ",") + "}"
        }
    }
}
