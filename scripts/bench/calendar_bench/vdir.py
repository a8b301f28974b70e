"""The calendar: a vdir of .ics files as khal and vdirsyncer leave one, and what heraldd should
make of it (each item's job id and first alarm), worked out here with the same rules."""
import bisect
import datetime as dt
import os
import random
import string
import time
from zoneinfo import ZoneInfo

from herald_scripts.files import write_atomically  # noqa: F401 (measure.py takes it from here)

ZONE_NAME = "Europe/Berlin"
ZONE = ZoneInfo(ZONE_NAME)
UTC = dt.timezone.utc
HORIZON = 35 * 86400          # CalendarPlanner.horizon
GRACE = 3600                  # catchUp.grace (default): alarms this far back are still planned
TRIGGER = 15 * 60             # TRIGGER:-PT15M
CLEAR = 2 * 3600              # how far every alarm keeps from "now" and from now + HORIZON
RULES = ["FREQ=DAILY", "FREQ=WEEKLY;BYDAY=MO,WE,FR", "FREQ=MONTHLY;BYMONTHDAY=15", "FREQ=YEARLY"]

SUMMARIES = ["Dentist", "Team sync", "1:1 with Maria", "Yoga", "Stand-up", "Lunch with Jonas",
             "Code review", "Call the bank", "Piano lesson", "Haircut", "Project planning",
             "Dinner at Anna's", "Parents' evening", "Running club", "Quarterly review",
             "Pick up the parcel", "Doctor's appointment", "Book club", "Car service",
             "Sprint retrospective", "Call Grandma", "Swimming", "Architecture meeting",
             "Tax advisor", "Flat viewing", "Choir rehearsal", "Interview: backend role"]
LOCATIONS = ["Room 3.14", "Café Einstein, Kurfürstenstraße 58, 10785 Berlin", "Online (Jitsi)",
             "Praxis Dr. Weber, Schönhauser Allee 10", "Office, 4th floor", "Home",
             "Stadtbad Neukölln", "Meeting room Spree", "Hauptbahnhof, Gleis 14",
             "https://meet.example.org/team-sync", "Bergmannstraße 5, Berlin"]
SENTENCES = ["Bring the slides and the notes from last time.",
             "Remember to take the insurance card; parking is behind the building.",
             "Agenda: status, blockers, next steps (15 minutes, strictly).",
             "Ask about the invoice from October and the new contract.",
             "The door code is 4711; ring twice if nobody answers.",
             "Prepare three questions, and check the numbers before we meet.",
             "We will go through the backlog, then plan the next two weeks.",
             "Take the blue folder; it has the papers they asked for.",
             "If it rains, we meet inside, at the café next door.",
             "Dial-in details are in the invitation; the PIN is 2381#."]


class Item:
    """One .ics file of the vdir: one VEVENT (repeating or not) with one VALARM."""

    def __init__(self, uid, start, minutes, rule, summary, location, description):
        self.uid, self.start, self.minutes, self.rule = uid, start, minutes, rule  # start: naive, Berlin wall time
        self.summary, self.location, self.description = summary, location, description

    def alarms(self, lo, hi):
        """Alarm instants (epoch seconds) in [lo, hi), in order."""
        if self.rule is None:
            days = [self.start.date()]
        else:
            first = dt.datetime.fromtimestamp(lo, ZONE).date() - dt.timedelta(days=2)
            last = dt.datetime.fromtimestamp(hi, ZONE).date() + dt.timedelta(days=2)
            days = [first + dt.timedelta(days=k) for k in range((last - first).days + 1)]
            days = [d for d in days if d >= self.start.date() and self.occurs(d)]
        out = (dt.datetime.combine(d, self.start.time(), ZONE).timestamp() - TRIGGER for d in days)
        return [t for t in out if lo <= t < hi]

    def occurs(self, d):
        s = self.start.date()
        return {"FREQ=DAILY": True,
                "FREQ=WEEKLY;BYDAY=MO,WE,FR": d.weekday() in (0, 2, 4),
                "FREQ=MONTHLY;BYMONTHDAY=15": d.day == 15,
                "FREQ=YEARLY": (d.month, d.day) == (s.month, s.day)}[self.rule]


def berlin_transitions(first_year, last_year):
    """Every UTC offset change of Europe/Berlin in the years: (utc epoch, name, from, to)."""
    out, t = [], dt.datetime(first_year, 1, 1, tzinfo=UTC)
    prev = t.astimezone(ZONE).utcoffset()
    while t.year <= last_year:
        t += dt.timedelta(hours=1)
        local = t.astimezone(ZONE)
        if local.utcoffset() != prev:
            out.append((t.timestamp(), local.tzname(), prev, local.utcoffset()))
            prev = local.utcoffset()
    return out


TRANSITIONS = []


def vtimezone(start):
    """The VTIMEZONE khal writes for an event (khal.icalendar.create_timezone: the transition
    before its start and the first one after a day later, DTSTART in the new local time)."""
    if not TRANSITIONS:
        TRANSITIONS.extend(berlin_transitions(2017, 2030))
    t = dt.datetime.combine(start.date(), start.time(), ZONE).timestamp()
    k = bisect.bisect_left([x[0] for x in TRANSITIONS], t)
    lines = ["BEGIN:VTIMEZONE", "TZID:" + ZONE_NAME]
    for when, name, before, after in TRANSITIONS[max(k - 1, 0):k + 1]:
        kind = "DAYLIGHT" if name == "CEST" else "STANDARD"
        local = dt.datetime.fromtimestamp(when, ZONE).replace(tzinfo=None)
        lines += [f"BEGIN:{kind}", f"DTSTART:{local:%Y%m%dT%H%M%S}", f"TZNAME:{name}",
                  f"TZOFFSETFROM:{offset(before)}", f"TZOFFSETTO:{offset(after)}", f"END:{kind}"]
    return lines + ["END:VTIMEZONE"]


def offset(td):
    s = int(td.total_seconds())
    return f"{'-' if s < 0 else '+'}{abs(s) // 3600:02d}{abs(s) % 3600 // 60:02d}"


def text(value):
    return value.replace("\\", "\\\\").replace(";", "\\;").replace(",", "\\,").replace("\n", "\\n")


def fold(line):
    """RFC 5545 folding: at most 75 octets a line, never inside a UTF-8 sequence."""
    data, out = line.encode(), []
    while len(data) > (74 if out else 75):  # a continuation line's leading space counts
        cut = 74 if out else 75
        while (data[cut] & 0xC0) == 0x80:
            cut -= 1
        out.append(data[:cut])
        data = data[cut:]
    out.append(data)
    return b"\r\n ".join(out).decode()


def render(item, stamp):
    end = item.start + dt.timedelta(minutes=item.minutes)
    lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//PIMUTILS.ORG//NONSGML khal / icalendar //EN"]
    lines += vtimezone(item.start)
    lines += ["BEGIN:VEVENT", "SUMMARY:" + text(item.summary),
              f"DTSTART;TZID={ZONE_NAME}:{item.start:%Y%m%dT%H%M%S}",
              f"DTEND;TZID={ZONE_NAME}:{end:%Y%m%dT%H%M%S}",
              f"DTSTAMP:{stamp:%Y%m%dT%H%M%SZ}", "UID:" + item.uid]
    if item.rule:
        lines.append("RRULE:" + item.rule)
    lines += ["SEQUENCE:0", "LOCATION:" + text(item.location), "DESCRIPTION:" + text(item.description),
              "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:" + text(item.summary), "TRIGGER:-PT15M",
              "END:VALARM", "END:VEVENT", "END:VCALENDAR"]
    return "".join(fold(line) + "\r\n" for line in lines)


def make_items(count, recurring, now, rng):
    """Items whose alarms all keep CLEAR away from now (so none is due or caught up during the
    run) and from now + HORIZON (so which items have a job does not depend on when heraldd plans)."""
    now_local = dt.datetime.fromtimestamp(now, ZONE)
    horizon_end = now + HORIZON
    times = [dt.time(h, m) for h in range(7, 21) for m in (0, 15, 30, 45)]

    def clear_of_now(t):  # a repeating alarm's wall time, CLEAR from now's on the 24-hour circle
        a = (t.hour * 60 + t.minute - TRIGGER // 60) * 60
        b = now_local.hour * 3600 + now_local.minute * 60 + now_local.second
        return min((a - b) % 86400, (b - a) % 86400) >= CLEAR

    def uid():
        return "".join(rng.choice(string.ascii_uppercase + string.digits) for _ in range(36))

    items = []
    for k in range(count):
        if k < recurring:
            rule = RULES[k % len(RULES)]
            while True:
                day = dt.date(2019, 1, 1) + dt.timedelta(days=rng.randrange(365))
                if rule.startswith("FREQ=WEEKLY"):
                    day += dt.timedelta(days=[0, 1, 0, 1, 0, 2, 1][day.weekday()])  # to Mon/Wed/Fri
                elif rule.startswith("FREQ=MONTHLY"):
                    day = day.replace(day=15)
                t = rng.choice(times)
                if clear_of_now(t):
                    break
            start = dt.datetime.combine(day, t)
        else:
            rule = None
            while True:
                day = now_local.date() + dt.timedelta(days=rng.randrange(61))
                start = dt.datetime.combine(day, rng.choice(times))
                alarm = start.replace(tzinfo=ZONE).timestamp() - TRIGGER
                if alarm >= now + CLEAR and abs(alarm - horizon_end) >= CLEAR:
                    break
        items.append(Item(uid(), start, rng.choice((30, 45, 60, 60, 90)), rule,
                          rng.choice(SUMMARIES), rng.choice(LOCATIONS), rng.choice(SENTENCES)))
    rng.shuffle(items)  # repeating items spread through the folder, as in a real one
    return items


def job_id(source, path, uid):
    """CalendarPlanner.jobID: cal- and the FNV-1a (64-bit) hash of source, file and UID."""
    h = 0xCBF29CE484222325
    for byte in (source + "\0" + path + "\0" + uid).encode():
        h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"cal-{h:016x}"


class Calendar:
    """The vdir on disk and what heraldd should make of it."""

    def __init__(self, work, count, recurring, seed):
        self.rng = random.Random(seed)
        self.source = os.path.join(work, "cal")
        self.folder = os.path.join(self.source, "personal")
        os.makedirs(self.folder)
        self.now = time.time()
        started = time.monotonic()
        self.items = make_items(count, recurring, self.now, self.rng)
        stamp = dt.datetime.fromtimestamp(self.now, UTC)
        self.bytes = 0
        for item in self.items:
            content = render(item, stamp)
            self.bytes += len(content.encode())
            with open(self.path(item), "w", encoding="utf-8", newline="") as f:
                f.write(content)
        self.seconds = time.monotonic() - started
        self.kinds = {self.id(i): i.rule or "one-off" for i in self.items}
        self.expected = {}  # job id -> its first alarm, in microseconds (the occurrence in its file name)
        for item in self.items:
            self.expect(item)

    def path(self, item):
        return os.path.join(self.folder, item.uid + ".ics")

    def id(self, item):
        return job_id(self.source, self.path(item), item.uid)

    def expect(self, item):
        alarms = item.alarms(self.now - GRACE, self.now + HORIZON)
        if alarms:
            self.expected[self.id(item)] = int(alarms[0]) * 1_000_000

    def move(self, item, hours):
        """Rewrites the item's file atomically with DTSTART and DTEND `hours` later."""
        moved = Item(item.uid, item.start + dt.timedelta(hours=hours), item.minutes, item.rule,
                     item.summary, item.location, item.description)
        write_atomically(self.path(item), render(moved, dt.datetime.now(UTC)))
        self.items[self.items.index(item)] = moved
        self.expect(moved)
