"""The seeded part of the corpus (bulk/): 140 items combining zones, rules and alarms. Its
random.Random is the only one, so the same code writes the same files."""
import datetime as dt
import random

from .writer import IANA, WEEKDAYS, A, Cal, D, T, component, stamp

rng = random.Random(5545)

BULK_ZONES = ["UTC", *IANA, None, "W. Europe Standard Time", "AUS Eastern Standard Time", "DATE"]
TIME_TRIGGERS = ["-PT5M", "-PT10M", "-PT15M", "-PT30M", "-PT1H", "-PT2H", "-PT1H30M", "PT0S", "PT5M",
                 "-P1D", "-P2D", "-P1W", "-P1DT1H"]
DAY_TRIGGERS = ["-P1D", "-P2D", "-P1W", "PT0S", "-P3D"]


def ordinal_weekday(d):
    n = (d.day - 1) // 7 + 1
    last = (d + dt.timedelta(days=7)).month != d.month
    return f"{-1 if last and rng.random() < 0.5 else n}{WEEKDAYS[d.weekday()]}"


def bulk_item(c, n):
    zone = rng.choice(BULK_ZONES)
    day = D(2026, 1, 10) + dt.timedelta(days=rng.randrange(0, 680))
    allday = zone == "DATE"
    start = day if allday else T(day.year, day.month, day.day, rng.randrange(7, 21), rng.choice([0, 15, 30, 45]))
    tzid = None if allday else zone
    kind = "VTODO" if rng.random() < 0.15 and not allday else "VEVENT"
    until_z = "UTC" if tzid not in (None,) else None
    far = day + dt.timedelta(days=rng.randrange(20, 200))
    until = (stamp(far) if allday else stamp(T(far.year, far.month, far.day, 23, 0)) + ("Z" if until_z else ""))
    rule = rng.choice([
        None, None, f"FREQ=DAILY;COUNT={rng.randrange(2, 12)}",
        f"FREQ=DAILY;INTERVAL={rng.randrange(2, 5)};COUNT={rng.randrange(3, 9)}",
        f"FREQ=WEEKLY;BYDAY={','.join(sorted({WEEKDAYS[day.weekday()], rng.choice(WEEKDAYS)}, key=WEEKDAYS.index))};COUNT={rng.randrange(3, 12)}",
        f"FREQ=WEEKLY;INTERVAL=2;UNTIL={until}",
        f"FREQ=MONTHLY;BYMONTHDAY={day.day};COUNT={rng.randrange(2, 7)}" if day.day <= 28 else "FREQ=MONTHLY;BYMONTHDAY=-1;COUNT=3",
        f"FREQ=MONTHLY;BYDAY={ordinal_weekday(day)};COUNT={rng.randrange(2, 6)}",
        "FREQ=YEARLY;COUNT=2" if day.year == 2026 and not (day.month == 2 and day.day == 29) else None])
    if rule and "BYMONTHDAY=-1" in rule and (day + dt.timedelta(days=1)).month == day.month:
        rule = None
    pool = DAY_TRIGGERS if allday else TIME_TRIGGERS
    alarms = []
    for i in range(rng.choice([1, 1, 1, 2, 2, 3])):
        trig = rng.choice(pool)
        action = rng.choice(["DISPLAY"] * 6 + ["AUDIO"] * 2 + ["EMAIL"])
        kw = {}
        if rng.random() < 0.15:
            kw["related"] = "END"
            trig = rng.choice(["-PT5M", "PT0S", "PT10M", "-PT1H"] if not allday else ["-P1D", "PT0S"])
        if rng.random() < 0.1 and not allday:
            kw["repeat"] = (rng.randrange(1, 4), rng.choice(["PT5M", "PT10M"]))
        if any(a[0] == trig and a[2].get("related") == kw.get("related") for a in alarms):
            continue
        alarms.append(A(trig, action, **kw))
    if all(a[1] == "EMAIL" for a in alarms):
        alarms.append(A("-PT5M" if not allday else "-P1D", "DISPLAY"))
    end = duration = due = None
    length = rng.choice([15, 30, 45, 60, 90, 120])
    if allday:
        if rng.random() < 0.5:
            end = day + dt.timedelta(days=rng.randrange(1, 4))
    elif kind == "VTODO":
        due = start + dt.timedelta(minutes=length)
    elif rng.random() < 0.5:
        end = start + dt.timedelta(minutes=length)
    else:
        duration = rng.choice(["PT15M", "PT30M", "PT1H", "PT1H30M", "PT2H"])
    words = ["Dentist", "Call", "Review", "Pick up", "Standup", "Deadline", "Yoga", "Groceries", "Meet Sam",
             "Backup", "Invoice", "Train", "Piano", "Vet", "Haircut"]
    summary = f"{rng.choice(words)} {n:03d}" + rng.choice(["", "", ", room 4", "; bring ID", " (\"quoted\")", " – ünïcødé"])
    uid = f"bulk-{n:03d}@herald.test"
    c.add(uid, component(kind, uid, summary, start, tzid, end=end, duration=duration, due=due,
                         rrule=rule, alarms=alarms))


def bulk():
    a, b = Cal("bulk/generated-a.ics"), Cal("bulk/generated-b.ics", crlf=False)
    for n in range(1, 141):
        bulk_item(a if n <= 70 else b, n)
    a.write()
    b.write()
