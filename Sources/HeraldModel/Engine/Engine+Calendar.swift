extension Engine {
    /// A calendar popup was dismissed or snoozed: when its source writes back (and the item has
    /// no attendees), the item's file learns it too, so Herald on the user's other machines
    /// does not show it again after a sync. Otherwise the job's own state is all there is.
    /// Done on a to-do completes it; Done elsewhere is a Dismiss.
    mutating func writeBack(_ popup: Firing, _ change: CalendarWriteBack.Change, now: Instant) -> [EngineEffect] {
        guard popup.job.kind == .calendar, let link = popup.job.calendar, link.writeBack,
              let entry = CalendarKind.entry(of: popup.job, at: popup.name.occurrence) else { return [] }
        let change = change == .completed && !link.todo ? .acknowledged : change
        logger.info("Calendar alarm written back", metadata: ["job.id": "\(popup.name.id)", "change": "\(change.label)"])
        return [.writeBack(CalendarWriteBack(file: link.file, source: link.source, uid: link.uid, component: entry.component, alarm: entry.alarm,
                                             alarmUID: entry.alarmUID, recurrenceID: entry.recurrenceID, change: change, at: now))]
    }
}
