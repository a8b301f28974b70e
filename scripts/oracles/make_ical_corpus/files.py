"""The hand-written corpus files: each feature of RFC 5545's recurrence and alarm rules once
or more (basics, every FREQ, BY-parts, RDATE/EXDATE, overrides, all-day, floating, zones,
Outlook zones, to-dos, items that must stay silent, IANA zones without a VTIMEZONE)."""
from .writer import IANA, A, Cal, D, Raw, T, component, first_weekday


def basic():
    c = Cal("01-basic.ics")
    B = "Europe/Berlin"
    c.event("basic-rel-start-neg@herald.test", "Dentist", T(2026, 2, 10, 9, 30), B,
            end=T(2026, 2, 10, 10, 15), alarms=[A("-PT15M")])
    c.event("basic-rel-start-pos@herald.test", "Stand-up (alarm after start)", T(2026, 2, 11, 9, 0), B,
            end=T(2026, 2, 11, 9, 15), alarms=[A("PT5M")])
    c.event("basic-rel-start-zero@herald.test", "Call Mum", T(2026, 2, 12, 18, 0), "UTC",
            end=T(2026, 2, 12, 18, 30), alarms=[A("PT0S")])
    c.event("basic-end-dtend@herald.test", "Parking ticket runs out", T(2026, 2, 13, 10, 0), B,
            end=T(2026, 2, 13, 12, 0), alarms=[A("-PT10M", related="END")])
    c.event("basic-end-duration@herald.test", "Oven", T(2026, 2, 14, 17, 20), B,
            duration="PT1H25M", alarms=[A("PT0S", related="END"), A("-PT5M", "AUDIO", related="END")])
    c.event("basic-end-positive@herald.test", "Follow-up after the meeting", T(2026, 2, 16, 14, 0), "UTC",
            duration="PT45M", alarms=[A("PT15M", related="END")])
    c.event("basic-end-no-dtend@herald.test", "Pill (no DTEND: the end is the start)",
            T(2026, 2, 17, 8, 0), B, alarms=[A("-PT2M", related="END")])
    c.event("basic-absolute@herald.test", "Flight (absolute trigger)", T(2026, 3, 2, 6, 40), B,
            end=T(2026, 3, 2, 9, 5), alarms=[A(T(2026, 3, 1, 19, 0)), A("-PT3H", "AUDIO")])
    c.event("basic-absolute-repeat@herald.test", "Tax return", T(2026, 5, 31, 12, 0), "UTC",
            alarms=[A(T(2026, 5, 30, 8, 0), repeat=(3, "PT2H"))])
    c.event("basic-repeat@herald.test", "Train leaves", T(2026, 2, 18, 7, 42), B,
            end=T(2026, 2, 18, 8, 30), alarms=[A("-PT20M", "AUDIO", repeat=(3, "PT5M"))])
    c.event("basic-repeat-end@herald.test", "Laundry done", T(2026, 2, 19, 19, 0), "UTC",
            duration="PT1H10M", alarms=[A("PT0S", related="END", repeat=(2, "PT10M"))])
    c.event("basic-audio@herald.test", "Tea", T(2026, 2, 20, 16, 0), B,
            alarms=[A("-PT4M", "AUDIO")])
    c.event("basic-display-email@herald.test", "Board meeting", T(2026, 2, 23, 11, 0), B,
            end=T(2026, 2, 23, 13, 0), alarms=[A("-P1D", "EMAIL"), A("-PT30M")])
    c.event("basic-many-alarms@herald.test", "Concert", T(2026, 3, 6, 20, 0), B,
            end=T(2026, 3, 6, 22, 30), alarms=[A("-P1W"), A("-P1D"), A("-PT2H"), A("-PT45M", "AUDIO"),
                                               A("PT0S", "EMAIL"), A("-PT30M", related="END")])
    c.event("basic-day-and-time@herald.test", "Exam (the day before, 1 h 30 earlier)",
            T(2026, 3, 12, 9, 0), B, end=T(2026, 3, 12, 12, 0), alarms=[A("-P1DT1H30M")])
    c.event("basic-weeks@herald.test", "Passport appointment", T(2026, 4, 15, 10, 0), B,
            alarms=[A("-P2W"), A("-P3D")])
    c.event("basic-seconds@herald.test", "Launch window", T(2026, 4, 1, 12, 0, 30), "UTC",
            alarms=[A("-PT1M10S"), A("PT45S")])
    c.event("basic-escaped@herald.test", "Lunch, then review; bring notes\nand C:\\temp\\plan.txt",
            T(2026, 3, 3, 12, 30), B, alarms=[A("-PT10M")])
    c.event("basic-unicode-folded@herald.test",
            "Zahnärztin Dr. Müller – Kontrolle ☕ und danach gleich weiter zur Physiotherapie in die "
            "Schönhauser Allee 123 (Hinterhof, 3. Stock links)", T(2026, 3, 4, 8, 15), B,
            end=T(2026, 3, 4, 9, 0), alarms=[A("-PT1H")])
    c.event("basic-long-uid-" + "x" * 70 + "@herald.test", "An event with a UID longer than a line",
            T(2026, 3, 5, 15, 0), "UTC", alarms=[A("-PT5M")])
    # Folds in odd places: inside a name, inside a value, with a tab as the fold.
    c.add("basic-odd-folds@herald.test", [
        "BEGIN:VEVENT", "UID:basic-odd-\x00folds@herald.test", "DTSTAMP:20251201T120000Z",
        "DTST\x01ART;TZID=Europe/Berlin:20260309T131500", "DTEND;TZID=Europe/Berlin:2026\x00"
        "0309T140000", "SUMMARY:Folded\x00 in odd places\\, still one summary",
        "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:odd folds", "TRIGGER;RELA\x00TED=END:-P\x01T5M",
        "END:VALARM", "END:VEVENT"])
    c.event("basic-escaped-uppercase-n@herald.test", Raw("Line one\\Nline two\\, written with an upper-case \\\\N"),
            T(2026, 3, 10, 7, 30), "UTC", alarms=[A("-PT5M")])
    # RFC 9074 ACKNOWLEDGED: an instant at or before it is not reported
    c.event("basic-ack-partial-repeat@herald.test", "Acknowledged twice, two repeats left",
            T(2026, 3, 11, 10, 0), "UTC",
            alarms=[A("-PT20M", repeat=(3, "PT5M"), ack=T(2026, 3, 11, 9, 45))])
    c.event("basic-ack-before@herald.test", "Acknowledged before the trigger (still fires)",
            T(2026, 3, 13, 10, 0), "UTC", alarms=[A("-PT20M", ack=T(2026, 3, 13, 9, 39, 59))])
    c.event("basic-ack-one-of-two@herald.test", "Two alarms, one acknowledged",
            T(2026, 3, 16, 10, 0), B, alarms=[A("-P1D", ack=T(2026, 3, 15, 9, 0)), A("-PT15M")])
    c.event("basic-utc-midnight@herald.test", "New month (UTC midnight)", T(2026, 6, 1, 0, 0), "UTC",
            alarms=[A("-PT1M")])
    # the edges of the 2026-01-01T00:00:00Z .. 2028-01-01T00:00:00Z window (half-open)
    c.event("basic-window-from@herald.test", "Alarm exactly at the window's start", T(2026, 1, 1, 0, 10), "UTC",
            alarms=[A("-PT10M"), A(T(2025, 12, 31, 23, 59, 59))])
    c.event("basic-window-to@herald.test", "Alarm exactly at the window's end (excluded)", T(2028, 1, 1, 0, 5),
            "UTC", alarms=[A("-PT5M"), A("-PT1H")])
    c.event("basic-multi-day-dst@herald.test", "Conference over the clock change",
            T(2026, 3, 27, 9, 0), B, end=T(2026, 3, 30, 17, 0),
            alarms=[A("-P1D"), A("-PT1H", related="END")])
    c.event("basic-duration-days-dst@herald.test", "Three nominal days over the clock change",
            T(2026, 10, 23, 18, 0), B, duration="P3D", alarms=[A("-PT30M", related="END")])
    c.write()


def rrule_freq():
    c = Cal("02-rrule-freq.ics", crlf=False)
    B, U = "Europe/Berlin", "UTC"
    c.event("freq-secondly@herald.test", "Countdown (SECONDLY)", T(2026, 4, 2, 12, 0, 0), U,
            rrule="FREQ=SECONDLY;INTERVAL=20;COUNT=4", alarms=[A("-PT10S")])
    c.event("freq-secondly-byminute@herald.test", "SECONDLY limited to minute 1", T(2026, 4, 2, 13, 1, 50), U,
            rrule="FREQ=SECONDLY;INTERVAL=5;BYMINUTE=1;COUNT=3", alarms=[A("PT0S")])
    c.event("freq-minutely@herald.test", "Stretch (MINUTELY)", T(2026, 4, 3, 14, 0), B,
            rrule="FREQ=MINUTELY;INTERVAL=20;COUNT=6", alarms=[A("-PT1M")])
    c.event("freq-minutely-bysecond@herald.test", "MINUTELY;BYSECOND", T(2026, 4, 3, 9, 0, 0), U,
            rrule="FREQ=MINUTELY;BYSECOND=0,30;COUNT=6", alarms=[A("PT0S", "AUDIO")])
    c.event("freq-minutely-byhour@herald.test", "MINUTELY inside two hours", T(2026, 4, 6, 9, 0), B,
            rrule="FREQ=MINUTELY;INTERVAL=45;BYHOUR=9,10;COUNT=5", alarms=[A("-PT5M")])
    c.event("freq-hourly@herald.test", "Drink water (HOURLY)", T(2026, 4, 7, 8, 0), B,
            rrule="FREQ=HOURLY;INTERVAL=2;COUNT=6", alarms=[A("PT0S")])
    c.event("freq-hourly-byminute@herald.test", "HOURLY;BYMINUTE", T(2026, 4, 8, 10, 15), "America/New_York",
            rrule="FREQ=HOURLY;BYMINUTE=15,45;COUNT=7", alarms=[A("-PT2M")])
    c.event("freq-hourly-until@herald.test", "HOURLY until", T(2026, 4, 9, 12, 30), U,
            rrule="FREQ=HOURLY;INTERVAL=3;UNTIL=20260410T003000Z", alarms=[A("-PT10M")])
    c.event("freq-daily@herald.test", "Vitamins (DAILY)", T(2026, 1, 5, 8, 0), B,
            rrule="FREQ=DAILY;COUNT=90", alarms=[A("-PT5M")])
    c.event("freq-daily-interval@herald.test", "Water the plants (every 3 days)", T(2026, 5, 1, 19, 0), B,
            rrule="FREQ=DAILY;INTERVAL=3;UNTIL=20260731T170000Z", alarms=[A("PT0S", "AUDIO")])
    c.event("freq-daily-byhour@herald.test", "Twice a day", T(2026, 6, 1, 9, 0), "Asia/Kolkata",
            rrule="FREQ=DAILY;BYHOUR=9,21;COUNT=10", alarms=[A("-PT15M")])
    c.event("freq-daily-byhour-byminute@herald.test", "DAILY;BYHOUR;BYMINUTE", T(2026, 6, 3, 9, 0), U,
            rrule="FREQ=DAILY;BYHOUR=9,17;BYMINUTE=0,30;COUNT=12", alarms=[A("-PT3M")])
    c.event("freq-daily-byday@herald.test", "Weekday mornings", T(2026, 6, 8, 7, 30), B,
            rrule="FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR;COUNT=20", alarms=[A("-PT10M")])
    c.event("freq-daily-bymonth@herald.test", "DAILY only in December", T(2026, 12, 1, 18, 0), B,
            rrule="FREQ=DAILY;BYMONTH=12;UNTIL=20271224T170000Z", alarms=[A("PT0S")])
    c.event("freq-weekly@herald.test", "Team meeting (WEEKLY)", T(2026, 1, 6, 10, 0), B,
            end=T(2026, 1, 6, 11, 0), rrule="FREQ=WEEKLY", alarms=[A("-PT10M")])
    c.event("freq-weekly-byday@herald.test", "Gym Mon/Wed/Fri", T(2026, 1, 5, 18, 30), B,
            rrule="FREQ=WEEKLY;BYDAY=MO,WE,FR;COUNT=30", alarms=[A("-PT30M")])
    c.event("freq-weekly-interval-until@herald.test", "Bins (every 2nd week)", T(2026, 1, 7, 20, 0), B,
            rrule="FREQ=WEEKLY;INTERVAL=2;UNTIL=20261231T230000Z", alarms=[A("PT0S", "AUDIO")])
    c.event("freq-monthly@herald.test", "Rent (MONTHLY)", T(2026, 1, 28, 9, 0), B,
            rrule="FREQ=MONTHLY;COUNT=24", alarms=[A("-P2D")])
    c.event("freq-monthly-byday-ordinal@herald.test", "Book club (2nd Monday)", T(2026, 1, 12, 19, 0),
            "America/New_York", rrule="FREQ=MONTHLY;BYDAY=2MO;COUNT=12", alarms=[A("-PT1H")])
    c.event("freq-monthly-last-friday@herald.test", "Payday (last Friday)", T(2026, 1, 30, 12, 0), B,
            rrule="FREQ=MONTHLY;BYDAY=-1FR;COUNT=18", alarms=[A("-PT3H")])
    c.event("freq-monthly-interval@herald.test", "Quarterly review", T(2026, 2, 16, 9, 0), B,
            rrule="FREQ=MONTHLY;INTERVAL=3;COUNT=8", alarms=[A("-P1W"), A("-PT15M")])
    c.event("freq-yearly@herald.test", "Insurance renewal (YEARLY)", T(2026, 3, 15, 9, 0), B,
            rrule="FREQ=YEARLY", alarms=[A("-P1W")])
    c.event("freq-yearly-bymonth-byday@herald.test", "Thanksgiving", T(2026, 11, 26, 15, 0),
            "America/New_York", rrule="FREQ=YEARLY;BYMONTH=11;BYDAY=4TH", alarms=[A("-P1D")])
    c.event("freq-yearly-interval@herald.test", "Every other year", T(2026, 7, 1, 10, 0), U,
            rrule="FREQ=YEARLY;INTERVAL=2;COUNT=2", alarms=[A("-PT1H")])
    c.write()


def rrule_byparts():
    c = Cal("03-rrule-byparts.ics")
    B, U, NY = "Europe/Berlin", "UTC", "America/New_York"
    c.event("by-second@herald.test", "BYSECOND on DAILY", T(2026, 4, 13, 12, 0, 15), U,
            rrule="FREQ=DAILY;BYSECOND=15,45;COUNT=4", alarms=[A("PT0S")])
    c.event("by-minute@herald.test", "BYMINUTE on DAILY", T(2026, 4, 14, 12, 10), B,
            rrule="FREQ=DAILY;BYMINUTE=10,40;COUNT=6", alarms=[A("-PT1M")])
    c.event("by-hour@herald.test", "BYHOUR on WEEKLY", T(2026, 4, 15, 8, 0), B,
            rrule="FREQ=WEEKLY;BYHOUR=8,13,18;COUNT=9", alarms=[A("-PT5M")])
    c.event("by-day-weekly@herald.test", "BYDAY on WEEKLY (Tue/Thu)", T(2026, 4, 14, 17, 0), NY,
            rrule="FREQ=WEEKLY;BYDAY=TU,TH;UNTIL=20260630T235959Z", alarms=[A("-PT15M")])
    c.event("by-day-monthly-2mo@herald.test", "2nd Monday of the month", T(2026, 2, 9, 18, 0), B,
            rrule="FREQ=MONTHLY;BYDAY=2MO;COUNT=10", alarms=[A("-PT30M")])
    c.event("by-day-monthly-1fr-neg1fr@herald.test", "First and last Friday", T(2026, 1, 2, 16, 0), B,
            rrule="FREQ=MONTHLY;BYDAY=1FR,-1FR;COUNT=12", alarms=[A("-PT1H")])
    c.event("by-day-monthly-all-sundays@herald.test", "Every Sunday in March", T(2026, 3, 1, 11, 0), B,
            rrule="FREQ=MONTHLY;BYMONTH=3;BYDAY=SU;UNTIL=20271231T230000Z", alarms=[A("-PT20M")])
    c.event("by-day-yearly-20mo@herald.test", "20th Monday of the year", T(2026, 5, 18, 9, 0), U,
            rrule="FREQ=YEARLY;BYDAY=20MO;COUNT=2", alarms=[A("-PT1H")])
    c.event("by-day-yearly-neg1su@herald.test", "Last Sunday of the year", T(2026, 12, 27, 12, 0), B,
            rrule="FREQ=YEARLY;BYDAY=-1SU;COUNT=2", alarms=[A("-P1D")])
    c.event("by-monthday@herald.test", "1st and 15th", T(2026, 1, 1, 9, 0), B,
            rrule="FREQ=MONTHLY;BYMONTHDAY=1,15;COUNT=24", alarms=[A("-PT15M")])
    c.event("by-monthday-neg@herald.test", "Last day of the month", T(2026, 1, 31, 17, 0), B,
            rrule="FREQ=MONTHLY;BYMONTHDAY=-1;COUNT=24", alarms=[A("-PT2H")])
    c.event("by-monthday-neg3@herald.test", "Third-to-last day", T(2026, 1, 29, 10, 0), U,
            rrule="FREQ=MONTHLY;BYMONTHDAY=-3;COUNT=14", alarms=[A("PT0S")])
    c.event("by-monthday-31@herald.test", "31st (months without one are skipped)", T(2026, 1, 31, 8, 0), U,
            rrule="FREQ=MONTHLY;BYMONTHDAY=31;COUNT=7", alarms=[A("-PT30M")])
    c.event("by-monthday-friday13@herald.test", "Friday the 13th", T(2026, 2, 13, 13, 0), B,
            rrule="FREQ=MONTHLY;BYDAY=FR;BYMONTHDAY=13", alarms=[A("-PT13M")])
    c.event("by-yearday@herald.test", "Day 100 and 200", T(2026, 4, 10, 12, 0), U,
            rrule="FREQ=YEARLY;BYYEARDAY=100,200;COUNT=4", alarms=[A("-PT1H")])
    c.event("by-yearday-neg@herald.test", "Last day and 7th-to-last day of the year", T(2026, 12, 25, 9, 0), B,
            rrule="FREQ=YEARLY;BYYEARDAY=-7,-1;COUNT=4", alarms=[A("-PT1H")])
    c.event("by-weekno@herald.test", "Monday of ISO weeks 1 and 20", T(2026, 5, 11, 9, 0), B,
            rrule="FREQ=YEARLY;BYWEEKNO=1,20;BYDAY=MO;COUNT=3", alarms=[A("-PT5M")])
    c.event("by-weekno-neg@herald.test", "Monday of the last ISO week", T(2026, 12, 28, 15, 0), U,
            rrule="FREQ=YEARLY;BYWEEKNO=-1;BYDAY=MO;COUNT=2", alarms=[A("-PT15M")])
    for wkst in ("SU", "MO"):  # 2027: week 10 starts on 7 March (WKST=SU) or on 8 March (MO)
        c.event(f"by-weekno-wkst-{wkst.lower()}@herald.test", f"Sunday of week 10, WKST={wkst}",
                T(2026, 3, 8, 10, 0), U, rrule=f"FREQ=YEARLY;BYWEEKNO=10;BYDAY=SU;WKST={wkst};COUNT=2",
                alarms=[A("-PT1H")])
    c.event("by-month@herald.test", "March and September", T(2026, 3, 10, 8, 0), B,
            rrule="FREQ=YEARLY;BYMONTH=3,9;COUNT=4", alarms=[A("-P1D")])
    c.event("by-month-monthday@herald.test", "Every 10th of June and July", T(2026, 6, 10, 9, 0), NY,
            rrule="FREQ=YEARLY;BYMONTH=6,7;BYMONTHDAY=10;COUNT=4", alarms=[A("-PT15M")])
    c.event("by-setpos-last-weekday@herald.test", "Last weekday of the month", T(2026, 1, 30, 16, 0), B,
            rrule="FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1;COUNT=24", alarms=[A("-PT1H")])
    c.event("by-setpos-second-to-last@herald.test", "Second-to-last weekday", T(2026, 1, 29, 9, 0), U,
            rrule="FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-2;COUNT=6", alarms=[A("PT0S")])
    c.event("by-setpos-first-and-third@herald.test", "1st and 3rd Tue/Thu", T(2026, 2, 3, 12, 0), B,
            rrule="FREQ=MONTHLY;BYDAY=TU,TH;BYSETPOS=1,3;COUNT=8", alarms=[A("-PT10M")])
    c.event("by-setpos-hours@herald.test", "Last slot of the day", T(2026, 8, 3, 17, 0), U,
            rrule="FREQ=DAILY;BYHOUR=9,13,17;BYSETPOS=-1;COUNT=5", alarms=[A("-PT5M")])
    # RFC 5545's own WKST example, moved to 2026: INTERVAL=2;BYDAY=TU,SU differs by WKST.
    tue = first_weekday(2026, 8, 1)
    for wkst in ("MO", "SU"):
        c.event(f"wkst-{wkst.lower()}@herald.test", f"Every 2nd week Tue/Sun, WKST={wkst}",
                T(tue.year, tue.month, tue.day, 9, 0), NY,
                rrule=f"FREQ=WEEKLY;INTERVAL=2;COUNT=4;BYDAY=TU,SU;WKST={wkst}", alarms=[A("-PT5M")])
    c.event("count-one@herald.test", "COUNT=1", T(2026, 9, 1, 9, 0), B, rrule="FREQ=DAILY;COUNT=1",
            alarms=[A("-PT1M")])
    c.event("until-exact@herald.test", "UNTIL equal to the last start (inclusive)", T(2026, 9, 7, 9, 0), B,
            rrule="FREQ=DAILY;UNTIL=20260911T070000Z", alarms=[A("PT0S")])
    c.event("until-just-before@herald.test", "UNTIL one second before a start", T(2026, 9, 14, 9, 0), B,
            rrule="FREQ=DAILY;UNTIL=20260918T065959Z", alarms=[A("PT0S")])
    c.write()


def rdate_exdate():
    c = Cal("04-rdate-exdate.ics")
    B, U, NY = "Europe/Berlin", "UTC", "America/New_York"
    c.event("rdate-only@herald.test", "RDATE only, no RRULE", T(2026, 5, 4, 15, 0), B,
            rdate=[([T(2026, 5, 11, 15, 0), T(2026, 6, 2, 16, 30)], B, "")], alarms=[A("-PT15M")])
    c.event("rdate-plus-rrule@herald.test", "RRULE plus extra RDATEs", T(2026, 5, 5, 9, 0), B,
            rrule="FREQ=WEEKLY;COUNT=4", rdate=[(T(2026, 5, 9, 11, 0), B, ""),
                                                 (T(2026, 5, 23, 7, 0), U, "")],
            alarms=[A("-PT10M")])
    c.event("rdate-utc@herald.test", "RDATE in UTC for a New York series", T(2026, 7, 1, 8, 0), NY,
            rdate=[([T(2026, 7, 3, 12, 0), T(2026, 7, 8, 12, 0)], U, "")], alarms=[A("-PT30M")])
    c.event("rdate-period@herald.test", "RDATE;VALUE=PERIOD with end and with duration",
            T(2026, 5, 6, 10, 0), U, end=T(2026, 5, 6, 11, 0),
            rdate=[([(T(2026, 5, 13, 14, 0), T(2026, 5, 13, 16, 30))], U, ";VALUE=PERIOD"),
                   ([(T(2026, 5, 20, 9, 0), "PT3H")], U, ";VALUE=PERIOD")],
            alarms=[A("-PT5M"), A("PT0S", related="END")])
    c.event("rdate-period-zoned@herald.test", "PERIOD RDATE for a Berlin series", T(2026, 6, 10, 9, 0), B,
            duration="PT1H", rdate=[([(T(2026, 6, 17, 12, 0), T(2026, 6, 17, 14, 15))], U, ";VALUE=PERIOD")],
            alarms=[A("-PT15M", related="END")])
    c.event("rdate-date@herald.test", "All-day with RDATE;VALUE=DATE", D(2026, 8, 3), None,
            rrule="FREQ=MONTHLY;COUNT=3", rdate=[([D(2026, 8, 20), D(2026, 12, 24)], None, "")],
            alarms=[A("-P1D")])
    c.event("rdate-duplicate@herald.test", "RDATE equal to an RRULE instance counts once", T(2026, 9, 1, 9, 0), U,
            rrule="FREQ=DAILY;COUNT=3", rdate=[(T(2026, 9, 2, 9, 0), U, "")], alarms=[A("-PT1M")])
    c.event("exdate@herald.test", "EXDATE drops two", T(2026, 5, 4, 8, 30), B,
            rrule="FREQ=DAILY;COUNT=10", exdate=[([T(2026, 5, 6, 8, 30), T(2026, 5, 9, 8, 30)], B)],
            alarms=[A("-PT5M")])
    c.event("exdate-utc@herald.test", "EXDATE given in UTC", T(2026, 11, 2, 9, 0), NY,
            rrule="FREQ=WEEKLY;COUNT=5", exdate=[(T(2026, 11, 16, 14, 0), U)], alarms=[A("-PT5M")])
    c.event("exdate-multiple-lines@herald.test", "Several EXDATE lines", T(2026, 5, 4, 12, 0), B,
            rrule="FREQ=WEEKLY;BYDAY=MO,TH;COUNT=12",
            exdate=[(T(2026, 5, 7, 12, 0), B), (T(2026, 5, 18, 12, 0), B), (T(2026, 6, 11, 12, 0), B)],
            alarms=[A("-PT15M")])
    c.event("exdate-rdate@herald.test", "EXDATE removes an RDATE too", T(2026, 7, 6, 18, 0), B,
            rrule="FREQ=WEEKLY;COUNT=3", rdate=[(T(2026, 7, 8, 18, 0), B, ""), (T(2026, 7, 9, 18, 0), B, "")],
            exdate=[(T(2026, 7, 8, 18, 0), B)], alarms=[A("-PT5M")])
    c.event("exdate-first@herald.test", "EXDATE on DTSTART itself", T(2026, 8, 10, 7, 0), U,
            rrule="FREQ=DAILY;COUNT=4", exdate=[(T(2026, 8, 10, 7, 0), U)], alarms=[A("-PT5M")])
    c.event("exdate-all-day@herald.test", "All-day EXDATE", D(2026, 9, 7), None,
            rrule="FREQ=WEEKLY;COUNT=6", exdate=[([D(2026, 9, 14), D(2026, 9, 28)], None)],
            alarms=[A("-P1D")])
    c.write()


def overrides():
    c = Cal("05-overrides.ics", crlf=False)
    B, U, NY = "Europe/Berlin", "UTC", "America/New_York"
    uid = "override-moved@herald.test"
    c.add(uid,
          component("VEVENT", uid, "Weekly 1:1", T(2026, 1, 13, 10, 0), B, end=T(2026, 1, 13, 10, 30),
                    rrule="FREQ=WEEKLY;COUNT=10", alarms=[A("-PT10M")]),
          component("VEVENT", uid, "Weekly 1:1", T(2026, 1, 21, 15, 0), B, end=T(2026, 1, 21, 15, 30),
                    rid=T(2026, 1, 20, 10, 0), alarms=[A("-PT10M")]))
    uid = "override-summary@herald.test"
    c.add(uid,
          component("VEVENT", uid, "Choir", T(2026, 2, 4, 19, 30), B, rrule="FREQ=WEEKLY;COUNT=6",
                    alarms=[A("-PT1H")]),
          component("VEVENT", uid, "Choir: dress rehearsal, bring the score", T(2026, 2, 18, 19, 30), B,
                    rid=T(2026, 2, 18, 19, 30), alarms=[A("-PT1H")]))
    uid = "override-other-alarm@herald.test"
    c.add(uid,
          component("VEVENT", uid, "Yoga", T(2026, 3, 2, 18, 0), NY, rrule="FREQ=WEEKLY;COUNT=5",
                    alarms=[A("-PT30M")]),
          component("VEVENT", uid, "Yoga (outdoor)", T(2026, 3, 16, 17, 0), NY, rid=T(2026, 3, 16, 18, 0),
                    alarms=[A("-PT1H", "AUDIO"), A("-PT10M")]))
    uid = "override-no-alarm@herald.test"  # an override replaces the instance, alarms too
    c.add(uid,
          component("VEVENT", uid, "Piano lesson", T(2026, 4, 7, 16, 0), B, rrule="FREQ=WEEKLY;COUNT=4",
                    alarms=[A("-PT15M")]),
          component("VEVENT", uid, "Piano lesson (teacher's own reminder only)", T(2026, 4, 14, 16, 0), B,
                    rid=T(2026, 4, 14, 16, 0)))
    uid = "override-rid-utc@herald.test"
    c.add(uid,
          component("VEVENT", uid, "RECURRENCE-ID written in UTC", T(2026, 4, 6, 9, 0), B,
                    rrule="FREQ=DAILY;COUNT=5", alarms=[A("-PT5M")]),
          component("VEVENT", uid, "RECURRENCE-ID written in UTC (moved)", T(2026, 4, 8, 11, 0), B,
                    rid=T(2026, 4, 8, 7, 0), rid_zone=U, alarms=[A("-PT5M")]))
    uid = "override-cancelled-instance@herald.test"
    c.add(uid,
          component("VEVENT", uid, "Swimming", T(2026, 5, 5, 7, 0), B, rrule="FREQ=WEEKLY;COUNT=5",
                    alarms=[A("-PT20M")]),
          component("VEVENT", uid, "Swimming (pool closed)", T(2026, 5, 19, 7, 0), B, rid=T(2026, 5, 19, 7, 0),
                    status="CANCELLED", alarms=[A("-PT20M")]))
    uid = "override-moved-earlier@herald.test"
    c.add(uid,
          component("VEVENT", uid, "Daily check", T(2026, 6, 1, 12, 0), U, rrule="FREQ=DAILY;COUNT=5",
                    alarms=[A("-PT15M")]),
          component("VEVENT", uid, "Daily check (a day early)", T(2026, 6, 2, 8, 0), U,
                    rid=T(2026, 6, 3, 12, 0), alarms=[A("-PT15M")]))
    uid = "override-moved-out@herald.test"
    c.add(uid,
          component("VEVENT", uid, "Monthly report", T(2026, 9, 30, 9, 0), B, rrule="FREQ=MONTHLY;COUNT=3",
                    alarms=[A("-P1D")]),
          component("VEVENT", uid, "Monthly report (moved to the next month)", T(2026, 11, 2, 9, 0), B,
                    rid=T(2026, 10, 30, 9, 0), alarms=[A("-P1D")]))
    uid = "override-thisandfuture@herald.test"
    c.add(uid,
          component("VEVENT", uid, "Sprint review", T(2026, 6, 2, 10, 0), B, end=T(2026, 6, 2, 11, 0),
                    rrule="FREQ=WEEKLY;COUNT=8", alarms=[A("-PT15M")]),
          component("VEVENT", uid, "Sprint review (new slot)", T(2026, 6, 30, 14, 0), B,
                    end=T(2026, 6, 30, 14, 45), rid=T(2026, 6, 30, 10, 0), rid_range="THISANDFUTURE",
                    alarms=[A("-PT15M"), A("PT0S", "AUDIO", related="END")]))
    uid = "override-thisandfuture-summary@herald.test"
    c.add(uid,
          component("VEVENT", uid, "Newsletter", T(2026, 8, 3, 8, 0), "Asia/Kolkata",
                    rrule="FREQ=DAILY;COUNT=6", alarms=[A("-PT5M")]),
          component("VEVENT", uid, "Newsletter v2", T(2026, 8, 5, 7, 30), "Asia/Kolkata",
                    rid=T(2026, 8, 5, 8, 0), rid_range="THISANDFUTURE", alarms=[A("-PT5M")]))
    uid = "override-all-day@herald.test"
    c.add(uid,
          component("VEVENT", uid, "Bin day", D(2026, 10, 5), None, rrule="FREQ=WEEKLY;COUNT=4",
                    alarms=[A("-P1D")]),
          component("VEVENT", uid, "Bin day (holiday shift)", D(2026, 10, 13), None, rid=D(2026, 10, 12),
                    alarms=[A("-P1D")]))
    uid = "override-floating@herald.test"
    c.add(uid,
          component("VEVENT", uid, "Floating weekly", T(2026, 11, 3, 9, 0), None, rrule="FREQ=WEEKLY;COUNT=3",
                    alarms=[A("-PT10M")]),
          component("VEVENT", uid, "Floating weekly (moved)", T(2026, 11, 10, 13, 0), None,
                    rid=T(2026, 11, 10, 9, 0), alarms=[A("-PT10M")]))
    uid = "override-only@herald.test"  # an invitation to one instance: no master in the file
    c.add(uid, component("VEVENT", uid, "Only this instance was shared", T(2026, 12, 3, 15, 0), B,
                         rid=T(2026, 12, 3, 14, 0), alarms=[A("-PT30M")]))
    uid = "override-sequence@herald.test"
    c.add(uid,
          component("VEVENT", uid, "Sequenced", T(2026, 12, 7, 10, 0), U, rrule="FREQ=DAILY;COUNT=3",
                    extra=["SEQUENCE:2"], alarms=[A("-PT5M")]),
          component("VEVENT", uid, "Sequenced (moved, same SEQUENCE)", T(2026, 12, 8, 16, 0), U,
                    rid=T(2026, 12, 8, 10, 0), extra=["SEQUENCE:2"], alarms=[A("-PT5M")]))
    c.write()


def all_day():
    c = Cal("06-all-day.ics")
    c.event("allday-single@herald.test", "Mum's birthday party", D(2026, 4, 18), None,
            alarms=[A("-P1D"), A("PT0S")])
    c.event("allday-dtend@herald.test", "Holiday (one day, DTEND next day)", D(2026, 5, 1), None,
            end=D(2026, 5, 2), alarms=[A("-P2D")])
    c.event("allday-multi-day@herald.test", "Trip to Lisbon", D(2026, 7, 10), None, end=D(2026, 7, 15),
            alarms=[A("-P1W"), A("-P1D", related="END")])
    c.event("allday-duration@herald.test", "Festival (DURATION:P3D)", D(2026, 8, 21), None, duration="P3D",
            alarms=[A("PT0S", related="END")])
    c.event("allday-yearly@herald.test", "Anna's birthday", D(2026, 2, 14), None, rrule="FREQ=YEARLY",
            alarms=[A("-P1D"), A("PT0S", "AUDIO")])
    c.event("allday-yearly-feb29@herald.test", "Leap-day birthday (on the 28th)", D(2026, 2, 28), None,
            rrule="FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=-1", alarms=[A("-P1D")])
    c.event("allday-monthly-neg@herald.test", "Month end close", D(2026, 1, 31), None,
            rrule="FREQ=MONTHLY;BYMONTHDAY=-1;COUNT=24", alarms=[A("-P3D")])
    c.event("allday-weekly-until@herald.test", "Market day", D(2026, 3, 7), None,
            rrule="FREQ=WEEKLY;BYDAY=SA;UNTIL=20260530", alarms=[A("-P1D")])
    c.event("allday-daily-until@herald.test", "Advent calendar", D(2026, 12, 1), None,
            rrule="FREQ=DAILY;UNTIL=20261224", alarms=[A("PT0S")])
    c.event("allday-dst-day@herald.test", "Clocks go forward (all-day on the change day)", D(2026, 3, 29), None,
            alarms=[A("-P1D"), A("PT0S")])
    c.event("allday-fallback-day@herald.test", "Clocks go back", D(2026, 10, 25), None,
            alarms=[A("-P1D", related="END")])
    c.event("allday-yearly-byweekno@herald.test", "Week 33 Wednesday", D(2026, 8, 12), None,
            rrule="FREQ=YEARLY;BYWEEKNO=33;BYDAY=WE", alarms=[A("-P2D")])
    c.event("allday-interval-weeks@herald.test", "Biweekly payroll", D(2026, 1, 9), None,
            rrule="FREQ=WEEKLY;INTERVAL=2;COUNT=20", alarms=[A("-P1D")])
    c.todo("allday-todo-due@herald.test", "Renew library books", None, None, due=D(2026, 6, 19),
           alarms=[A("-P2D", related="END")])
    c.write()


def floating():
    c = Cal("07-floating.ics", crlf=False)
    c.event("floating-single@herald.test", "Wake up (floating)", T(2026, 3, 3, 7, 0), None,
            alarms=[A("PT0S", "AUDIO")])
    c.event("floating-end@herald.test", "Nap (floating, DTEND)", T(2026, 3, 8, 14, 0), None,
            end=T(2026, 3, 8, 14, 40), alarms=[A("PT0S", related="END")])
    c.event("floating-daily@herald.test", "Meditate (floating daily)", T(2026, 3, 20, 7, 15), None,
            rrule="FREQ=DAILY;COUNT=20", alarms=[A("-PT5M")])
    c.event("floating-weekly-until@herald.test", "Floating weekly with floating UNTIL", T(2026, 10, 1, 18, 0), None,
            rrule="FREQ=WEEKLY;UNTIL=20261112T180000", alarms=[A("-PT15M")])
    c.event("floating-dst-day@herald.test", "Floating on the clock-change day", T(2026, 10, 25, 9, 0), None,
            alarms=[A("-PT1H"), A("-P1D")])
    c.event("floating-monthly@herald.test", "Floating monthly", T(2026, 1, 15, 12, 0), None,
            rrule="FREQ=MONTHLY;COUNT=6", exdate=[(T(2026, 3, 15, 12, 0), None)], alarms=[A("-PT30M")])
    c.event("floating-rdate@herald.test", "Floating RDATE", T(2026, 6, 1, 20, 0), None,
            rdate=[([T(2026, 6, 5, 20, 0)], None, "")], alarms=[A("-PT1H", "AUDIO")])
    c.todo("floating-todo@herald.test", "Floating todo", T(2026, 5, 2, 9, 0), None, due=T(2026, 5, 2, 17, 0),
           alarms=[A("-PT1H", related="END"), A("PT0S")])
    c.write()


def zones():
    c = Cal("08-zones-dst.ics")
    B, NY, SY, KO, SP, AK = IANA
    # weekly series straddling every transition of their zone
    c.event("dst-berlin-weekly@herald.test", "Berlin weekly 09:00", T(2026, 3, 2, 9, 0), B,
            rrule="FREQ=WEEKLY;UNTIL=20261130T235959Z", alarms=[A("-PT15M"), A("-P1D")])
    c.event("dst-ny-weekly@herald.test", "New York weekly 08:30", T(2026, 2, 22, 8, 30), NY,
            rrule="FREQ=WEEKLY;COUNT=45", alarms=[A("-PT30M")])
    c.event("dst-sydney-weekly@herald.test", "Sydney weekly 18:00", T(2026, 3, 15, 18, 0), SY,
            end=T(2026, 3, 15, 19, 0), rrule="FREQ=WEEKLY;COUNT=40", alarms=[A("-PT1H"), A("PT0S", related="END")])
    c.event("dst-auckland-daily@herald.test", "Auckland daily 07:45", T(2026, 3, 30, 7, 45), AK,
            rrule="FREQ=DAILY;COUNT=14", alarms=[A("-PT15M")])
    c.event("dst-auckland-spring@herald.test", "Auckland daily over spring forward", T(2026, 9, 21, 20, 0), AK,
            rrule="FREQ=DAILY;COUNT=14", alarms=[A("-PT2H")])
    c.event("dst-kolkata@herald.test", "Kolkata (+05:30, no DST)", T(2026, 3, 25, 10, 0), KO,
            rrule="FREQ=MONTHLY;COUNT=12", alarms=[A("-PT45M")])
    c.event("dst-saopaulo@herald.test", "Sao Paulo (no DST since 2019)", T(2026, 10, 18, 0, 30), SP,
            rrule="FREQ=WEEKLY;COUNT=10", alarms=[A("-PT30M")])
    c.event("dst-saopaulo-midnight@herald.test", "Sao Paulo midnight in early November", T(2026, 11, 1, 0, 0), SP,
            alarms=[A("-PT10M")])
    c.event("dst-berlin-monthly-pre@herald.test", "Berlin: the day before at the same time", T(2026, 3, 30, 8, 0), B,
            alarms=[A("-P1D")])
    # explicit local times inside a spring-forward gap: the offset before the gap (RFC 5545 3.3.5)
    c.event("gap-berlin@herald.test", "Berlin 02:30 on the spring-forward day", T(2026, 3, 29, 2, 30), B,
            alarms=[A("-PT15M"), A("-PT45M", "AUDIO")])
    c.event("gap-berlin-end@herald.test", "Berlin from the gap to 04:00", T(2026, 3, 29, 2, 15), B,
            end=T(2026, 3, 29, 4, 0), alarms=[A("-PT5M"), A("-PT10M", related="END")])
    c.event("gap-newyork@herald.test", "New York 02:30 on the spring-forward day", T(2026, 3, 8, 2, 30), NY,
            alarms=[A("-PT30M")])
    c.event("gap-sydney@herald.test", "Sydney 02:10 on the spring-forward day", T(2026, 10, 4, 2, 10), SY,
            alarms=[A("-PT10M")])
    c.event("gap-auckland@herald.test", "Auckland 02:45 on the spring-forward day", T(2026, 9, 27, 2, 45), AK,
            alarms=[A("-PT1H")])
    c.event("gap-rdate@herald.test", "RDATE inside the 2027 Berlin gap", T(2027, 3, 21, 2, 30), B,
            rdate=[(T(2027, 3, 28, 2, 30), B, "")], alarms=[A("-PT20M")])
    # local times that happen twice: the first one (RFC 5545 3.3.5)
    c.event("overlap-berlin@herald.test", "Berlin 02:30 on the fall-back day", T(2026, 10, 25, 2, 30), B,
            alarms=[A("-PT10M")])
    c.event("overlap-berlin-daily@herald.test", "Berlin daily 02:30 over the fall-back", T(2027, 10, 28, 2, 30), B,
            rrule="FREQ=DAILY;COUNT=6", alarms=[A("-PT20M")])
    c.event("overlap-newyork-daily@herald.test", "New York daily 01:30 over the fall-back", T(2026, 10, 30, 1, 30),
            NY, rrule="FREQ=DAILY;COUNT=5", alarms=[A("-PT15M")])
    c.event("overlap-sydney@herald.test", "Sydney 02:30 on the fall-back day", T(2026, 4, 5, 2, 30), SY,
            duration="PT20M", alarms=[A("-PT5M")])
    c.event("overlap-auckland-weekly@herald.test", "Auckland weekly Sunday 02:15", T(2027, 3, 21, 2, 15), AK,
            rrule="FREQ=WEEKLY;BYDAY=SU;COUNT=4", alarms=[A("-PT15M")])
    c.event("dst-ny-exdate-after-change@herald.test", "New York EXDATE after the change", T(2026, 3, 2, 9, 0), NY,
            rrule="FREQ=WEEKLY;COUNT=4", exdate=[(T(2026, 3, 16, 9, 0), NY)], alarms=[A("-PT5M")])
    c.event("dst-berlin-rid-utc@herald.test", "Override in summer time given in UTC", T(2026, 3, 23, 12, 0), B,
            rrule="FREQ=WEEKLY;COUNT=3", alarms=[A("-PT5M")])
    uid = "dst-berlin-rid-utc@herald.test"
    c.lines += component("VEVENT", uid, "Override after the change (RID in UTC)", T(2026, 3, 30, 13, 0), B,
                         rid=T(2026, 3, 30, 10, 0), rid_zone="UTC", alarms=[A("-PT5M")])
    c.write()


def outlook_zones():
    c = Cal("09-outlook-vtimezone.ics")
    W, AU, IN, FX = "W. Europe Standard Time", "AUS Eastern Standard Time", "India Standard Time", "Herald Fictional Time"
    c.event("outlook-weurope@herald.test", "Outlook: weekly over both Berlin changes", T(2026, 3, 16, 10, 0), W,
            end=T(2026, 3, 16, 10, 30), rrule="FREQ=WEEKLY;UNTIL=20261109T090000Z", alarms=[A("-PT15M")])
    c.event("outlook-weurope-single@herald.test", "Outlook: single in summer", T(2026, 7, 20, 14, 0), W,
            alarms=[A("-PT30M", "AUDIO")])
    c.event("outlook-weurope-overlap@herald.test", "Outlook: 02:30 on the fall-back day", T(2026, 10, 25, 2, 30), W,
            alarms=[A("-PT10M")])
    c.event("outlook-weurope-exdate@herald.test", "Outlook: EXDATE in the custom zone", T(2026, 4, 1, 9, 0), W,
            rrule="FREQ=DAILY;COUNT=5", exdate=[(T(2026, 4, 3, 9, 0), W)], alarms=[A("-PT5M")])
    uid = "outlook-weurope-override@herald.test"
    c.add(uid,
          component("VEVENT", uid, "Outlook: monthly", T(2026, 1, 20, 11, 0), W, rrule="FREQ=MONTHLY;COUNT=6",
                    alarms=[A("-PT15M")]),
          component("VEVENT", uid, "Outlook: monthly (moved)", T(2026, 4, 21, 16, 0), W, rid=T(2026, 4, 20, 11, 0),
                    alarms=[A("-PT15M")]))
    c.event("outlook-aus@herald.test", "Outlook AUS Eastern over both changes", T(2026, 3, 1, 9, 30), AU,
            rrule="FREQ=MONTHLY;BYDAY=1SU;COUNT=10", alarms=[A("-PT1H")])
    c.event("outlook-india@herald.test", "Outlook India (no DST)", T(2026, 6, 15, 11, 0), IN,
            rrule="FREQ=WEEKLY;COUNT=3", alarms=[A("-PT10M")])
    c.event("fictional-zone@herald.test", "A zone that only its VTIMEZONE knows", T(2026, 4, 27, 9, 0), FX,
            rrule="FREQ=WEEKLY;UNTIL=20260930T000000Z", alarms=[A("-PT5M")])
    c.event("fictional-zone-single@herald.test", "Fictional zone, summer", T(2027, 7, 1, 12, 0), FX,
            alarms=[A("PT0S")])
    c.write()
    # Pre-2007 US rules under a Windows name: in March and late October/early November the
    # VTIMEZONE and America/New_York disagree; the VTIMEZONE wins.
    c = Cal("09-outlook-legacy-rules.ics")
    E = "Eastern Standard Time"
    c.event("outlook-legacy-eastern@herald.test", "Old Outlook Eastern: weekly Mondays", T(2026, 3, 2, 9, 0), E,
            rrule="FREQ=WEEKLY;BYDAY=MO;UNTIL=20261201T000000Z", alarms=[A("-PT15M")])
    c.event("outlook-legacy-eastern-single@herald.test", "Old Outlook Eastern: 20 March", T(2026, 3, 20, 12, 0), E,
            alarms=[A("-PT1H")])
    c.write()


def todos():
    c = Cal("10-todos.ics", crlf=False)
    B, U = "Europe/Berlin", "UTC"
    c.todo("todo-due-only@herald.test", "Pay the electricity bill", None, B, due=T(2026, 4, 30, 18, 0),
           alarms=[A("-P1D", related="END"), A("-PT2H", related="END")])
    c.todo("todo-start-due@herald.test", "Write the report", T(2026, 5, 4, 9, 0), B, due=T(2026, 5, 8, 17, 0),
           alarms=[A("PT0S"), A("-PT1H", related="END")])
    c.todo("todo-start-duration@herald.test", "Bake bread", T(2026, 5, 9, 8, 0), U, duration="PT4H",
           alarms=[A("PT0S", related="END"), A("PT30M")])
    c.todo("todo-due-positive@herald.test", "Overdue nag", None, U, due=T(2026, 5, 11, 12, 0),
           alarms=[A("PT1H", related="END", repeat=(2, "PT1H"))])
    c.todo("todo-recurring@herald.test", "Weekly timesheet", T(2026, 1, 9, 9, 0), B, due=T(2026, 1, 9, 16, 0),
           rrule="FREQ=WEEKLY;COUNT=20", alarms=[A("-PT30M", related="END")])
    c.todo("todo-recurring-monthly@herald.test", "Monthly backup check", T(2026, 2, 1, 10, 0), "America/New_York",
           due=T(2026, 2, 1, 12, 0), rrule="FREQ=MONTHLY;COUNT=12", alarms=[A("PT0S"), A("PT0S", "AUDIO", related="END")])
    c.todo("todo-in-process@herald.test", "Half done (STATUS:IN-PROCESS)", T(2026, 6, 1, 9, 0), B,
           due=T(2026, 6, 3, 9, 0), status="IN-PROCESS", extra=["PERCENT-COMPLETE:50"],
           alarms=[A("-PT1H", related="END")])
    c.todo("todo-absolute@herald.test", "Todo with an absolute alarm", None, U, due=T(2026, 6, 20, 12, 0),
           alarms=[A(T(2026, 6, 19, 7, 30))])
    c.todo("todo-needs-action@herald.test", "Call the plumber", T(2026, 6, 22, 8, 0), "Australia/Sydney",
           due=T(2026, 6, 22, 12, 0), status="NEEDS-ACTION", alarms=[A("-PT10M")])
    uid = "todo-override@herald.test"
    c.add(uid,
          component("VTODO", uid, "Water the garden", T(2026, 7, 1, 18, 0), B, due=T(2026, 7, 1, 19, 0),
                    rrule="FREQ=DAILY;COUNT=4", alarms=[A("-PT5M")]),
          component("VTODO", uid, "Water the garden (done on this day)", T(2026, 7, 2, 18, 0), B,
                    due=T(2026, 7, 2, 19, 0), rid=T(2026, 7, 2, 18, 0), status="COMPLETED",
                    extra=["COMPLETED:20260702T170000Z"], alarms=[A("-PT5M")]))
    c.write()


def silent():
    c = Cal("11-silent.ics")
    B, U = "Europe/Berlin", "UTC"
    c.event("silent-cancelled@herald.test", "Cancelled meeting", T(2026, 4, 20, 10, 0), B,
            status="CANCELLED", alarms=[A("-PT15M")], silent=True)
    c.event("silent-cancelled-series@herald.test", "Cancelled series", T(2026, 4, 21, 10, 0), B,
            rrule="FREQ=WEEKLY;COUNT=5", status="CANCELLED", alarms=[A("-PT15M")], silent=True)
    c.event("silent-cancelled-all-day@herald.test", "Cancelled all-day", D(2026, 4, 22), None,
            status="CANCELLED", alarms=[A("-P1D")], silent=True)
    c.todo("silent-completed-both@herald.test", "Done (STATUS and COMPLETED)", None, U,
           due=T(2026, 4, 23, 12, 0), status="COMPLETED", extra=["COMPLETED:20260420T080000Z"],
           alarms=[A("-PT1H", related="END")], silent=True)
    c.todo("silent-completed-property@herald.test", "Done (COMPLETED property only)", T(2026, 4, 24, 9, 0), U,
           due=T(2026, 4, 24, 12, 0), extra=["COMPLETED:20260424T083000Z", "PERCENT-COMPLETE:100"],
           alarms=[A("-PT10M", related="END")], silent=True)
    c.todo("silent-completed-status@herald.test", "Done (STATUS:COMPLETED only)", T(2026, 4, 25, 9, 0), B,
           due=T(2026, 4, 25, 17, 0), status="COMPLETED", alarms=[A("PT0S")], silent=True)
    c.todo("silent-cancelled-todo@herald.test", "Cancelled todo", None, U, due=T(2026, 4, 26, 12, 0),
           status="CANCELLED", alarms=[A("-PT1H", related="END")], silent=True)
    c.event("silent-email-only@herald.test", "Only an e-mail alarm", T(2026, 4, 27, 15, 0), B,
            alarms=[A("-PT30M", "EMAIL")], silent=True)
    c.event("silent-email-only-series@herald.test", "Series with only e-mail alarms", T(2026, 4, 28, 15, 0), U,
            rrule="FREQ=DAILY;COUNT=3", alarms=[A("-PT30M", "EMAIL"), A("-P1D", "EMAIL")], silent=True)
    c.event("silent-other-action@herald.test", "An x-name ACTION", T(2026, 4, 29, 15, 0), U,
            alarms=[A("-PT5M", "X-HERALD-PING")], silent=True)
    c.event("silent-acknowledged@herald.test", "Acknowledged after it fired", T(2026, 5, 12, 9, 0), B,
            alarms=[A("-PT15M", ack=T(2026, 5, 12, 6, 46))], silent=True)
    c.event("silent-acknowledged-equal@herald.test", "Acknowledged exactly at the trigger", T(2026, 5, 13, 9, 0), U,
            alarms=[A("-PT15M", ack=T(2026, 5, 13, 8, 45))], silent=True)
    c.event("silent-acknowledged-repeat@herald.test", "Acknowledged after the last repeat", T(2026, 5, 14, 9, 0), U,
            alarms=[A("-PT15M", repeat=(2, "PT5M"), ack=T(2026, 5, 14, 8, 55))], silent=True)
    c.event("silent-acknowledged-series@herald.test", "Series acknowledged up to its end", T(2026, 5, 18, 9, 0), U,
            rrule="FREQ=DAILY;COUNT=4", alarms=[A("-PT10M", ack=T(2026, 5, 21, 12, 0))], silent=True)
    # partly silent: these still have alarms
    c.event("partly-acknowledged-series@herald.test", "Series acknowledged until its 3rd instance",
            T(2026, 5, 25, 9, 0), U, rrule="FREQ=DAILY;COUNT=6", alarms=[A("-PT10M", ack=T(2026, 5, 27, 8, 50))])
    c.event("partly-email@herald.test", "E-mail alarm plus display alarm", T(2026, 6, 8, 11, 0), B,
            alarms=[A("-P1D", "EMAIL"), A("-PT5M")])
    c.write()


def bare_iana():
    """TZIDs naming IANA zones with no VTIMEZONE at all (RFC 5545 says MUST have one; many
    producers omit it)."""
    c = Cal("12-iana-without-vtimezone.ics", crlf=False, vtimezones=False)
    for i, (z, t) in enumerate([("Europe/Berlin", T(2026, 7, 7, 9, 0)), ("America/New_York", T(2026, 11, 2, 9, 0)),
                                ("Australia/Sydney", T(2026, 10, 5, 9, 0)), ("Pacific/Auckland", T(2026, 9, 28, 9, 0)),
                                ("Asia/Kolkata", T(2027, 1, 4, 9, 0)), ("America/Sao_Paulo", T(2027, 2, 1, 9, 0))]):
        c.event(f"bare-iana-{i}@herald.test", f"No VTIMEZONE for {z}", t, z,
                rrule="FREQ=DAILY;COUNT=3", alarms=[A("-PT20M")])
    c.write()
