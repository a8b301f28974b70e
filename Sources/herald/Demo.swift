import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import HeraldCore

extension Herald {
    struct Demo: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "demo",
            abstract: "Load or remove a short tour of what Herald does (jobs tagged 'demo').",
            discussion: """
                'herald demo load' enqueues: a delivery of apple, grapes, milk, muffin, popcorn, \
                soda and strawberries arriving in 2 minutes (its heads-up pops up now), a habit \
                'Drink water' every hour from 09:00 to 17:00, and a 1-minute shopping timer. \
                'herald demo remove' cancels exactly those (the jobs tagged 'demo') and nothing else.
                """,
            subcommands: [Load.self, Remove.self])

        static let tag = "demo"
        static let items = ["apple", "grapes", "milk", "muffin", "popcorn", "soda", "strawberries"]

        struct Load: ParsableCommand {
            static let configuration = CommandConfiguration(commandName: "load", abstract: "Enqueue the demo jobs.")

            @OptionGroup var global: GlobalOptions

            func run() throws {
                let ctx = try CLIContext.load(global)
                let pending = try ctx.pendingJobs()
                let loaded = pending.filter(Demo.isDemo)
                if !loaded.isEmpty {
                    say("The demo is already loaded (\(loaded.count) job\(loaded.count == 1 ? "" : "s"): \(loaded.map(\.id).joined(separator: ", "))); 'herald demo remove' removes it.")
                    return
                }
                let taken = Set(pending.map(\.id))
                func freeID(_ base: String) -> String { HabitNames.freeID(for: base, taken: taken) }
                var jobs: [Job] = []
                let arrival = ctx.fromNow(.minutes(2))
                let name = ctx.config.profile.name ?? ctx.environment["USER"].flatMap { $0.isEmpty ? nil : $0 } ?? "friend"
                let address = ctx.config.profile.address ?? "your front door"
                jobs.append(Job(kind: .delivery, id: freeID("demo-delivery"), at: arrival, timezone: ctx.zone.identifierForJobs,
                                recipient: .init(name: name, address: address),
                                items: Demo.items.map { Job.Item(name: $0, quantity: 1) }, lead: .minutes(2), tags: [Demo.tag]))
                let hasWaterHabit = pending.contains { $0.job?.kind == .habit && $0.job?.title?.lowercased() == "drink water" }
                if !hasWaterHabit {
                    jobs.append(Job(kind: .habit, id: freeID("demo-drink-water"), every: "*-*-* 09..17:00", title: "Drink water",
                                    icon: "weather-showers-symbolic", tags: [Demo.tag]))
                }
                jobs.append(Job(kind: .reminder, id: freeID("demo-shopping-timer"), at: ctx.fromNow(.minutes(1)),
                                timezone: ctx.zone.identifierForJobs, title: "Shopping", text: TimerCommand.upText(.minutes(1)),
                                icon: "alarm-symbolic", tags: [Demo.tag]))
                try ctx.prepareSpool(adding: jobs.count)
                for job in jobs {
                    do { try ctx.spool.submit(job, zone: ctx.zone) } catch { throw CLIError.failure("\(error)") }
                }
                say("Loaded the demo (\(jobs.count) jobs, tagged 'demo'):")
                var rows: [[String]] = []
                rows.append(["delivery", jobs[0].id!, "heads-up now, arrives \(ctx.when(arrival)) at \(address), for \(name)"])
                if !hasWaterHabit {
                    let first = try? JobSchedule(jobs[1], localZone: ctx.zone).first(now: ctx.now)
                    rows.append(["habit", jobs[1].id!, "Drink water, every hour 09:00-17:00" + (first.map { ", first \(ctx.when($0))" } ?? "")])
                } else {
                    rows.append(["habit", "-", "skipped: you already have a habit 'Drink water'"])
                }
                rows.append(["timer", jobs.last!.id!, "Shopping, 1 minute, until \(ctx.when(ctx.fromNow(.minutes(1))))"])
                say(Table.render(rows.map { ["  " + $0[0]] + $0.dropFirst() }))
                if SpoolLock.runningDaemon(ctx.spool) == nil {
                    say("heraldd is not running: start it ('systemctl --user start heraldd' or 'heraldd') to see the popups.")
                }
                if ctx.config.profile.name == nil || ctx.config.profile.address == nil {
                    say("Set profile.name and profile.address in the config to see your own name and address.")
                }
                say("Remove it with 'herald demo remove'.")
            }
        }

        struct Remove: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "remove", abstract: "Cancel the demo jobs (those tagged 'demo'), and nothing else.")

            @OptionGroup var global: GlobalOptions

            func run() throws {
                let ctx = try CLIContext.load(global)
                let targets = try ctx.pendingJobs().filter(Demo.isDemo)
                guard !targets.isEmpty else {
                    say("Nothing to remove: no demo jobs are pending (load them with 'herald demo load').")
                    return
                }
                for target in targets {
                    try ctx.cancel(target)
                    if target.job?.kind == .habit { try ctx.archiveHabitLog(id: target.id) }
                }
                say("Removed the demo: " + targets.map { "\($0.id) (\(ctx.kindLabel($0)))" }.joined(separator: ", ") + ".")
            }
        }

        static func isDemo(_ p: PendingJob) -> Bool { p.job?.tags.contains(tag) ?? false }
    }
}
