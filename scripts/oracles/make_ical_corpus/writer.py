"""iCalendar text for the corpus: VTIMEZONEs (from tzdata, and Outlook-style custom ones),
content lines, components with their VALARMs, and Cal, one corpus file, which registers its
items' UIDs (ITEMS; SILENT for those meant to have no alarm)."""
import datetime as dt
import os
import re
from zoneinfo import ZoneInfo

# This package is scripts/oracles/make_ical_corpus/; the repository is three folders up.
PACKAGE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(PACKAGE)))
OUT = os.path.join(ROOT, "Tests/HeraldCoreTests/Fixtures/calendar-corpus")
UTC = dt.timezone.utc
D, T = dt.date, dt.datetime
ITEMS, SILENT = [], []  # uids in order; uids meant to have no alarm at all

# ---------------------------------------------------------------------------- time zones

IANA = ["Europe/Berlin", "America/New_York", "Australia/Sydney", "Asia/Kolkata",
        "America/Sao_Paulo", "Pacific/Auckland"]


def off(td):
    s = int(td.total_seconds())
    sign, s = ("-" if s < 0 else "+"), abs(s)
    return f"{sign}{s // 3600:02d}{s % 3600 // 60:02d}"


def iana_vtimezone(name):
    """A VTIMEZONE with every transition of 2025..2028 from tzdata, as Thunderbird writes them."""
    tz, t = ZoneInfo(name), T(2025, 1, 1, tzinfo=UTC)
    first = t.astimezone(tz)
    kind = "DAYLIGHT" if first.dst() else "STANDARD"
    lines = ["BEGIN:VTIMEZONE", f"TZID:{name}", f"X-LIC-LOCATION:{name}",
             f"BEGIN:{kind}", f"TZOFFSETFROM:{off(first.utcoffset())}",
             f"TZOFFSETTO:{off(first.utcoffset())}", f"TZNAME:{first.tzname()}",
             "DTSTART:19700101T000000", f"END:{kind}"]
    prev = first.utcoffset()
    while t < T(2029, 1, 1, tzinfo=UTC):
        t += dt.timedelta(minutes=30)
        local = t.astimezone(tz)
        if local.utcoffset() != prev:
            kind = "DAYLIGHT" if local.dst() else "STANDARD"
            onset = (t + prev).replace(tzinfo=None)  # local time in TZOFFSETFROM
            lines += [f"BEGIN:{kind}", f"TZOFFSETFROM:{off(prev)}",
                      f"TZOFFSETTO:{off(local.utcoffset())}", f"TZNAME:{local.tzname()}",
                      f"DTSTART:{onset:%Y%m%dT%H%M%S}", f"END:{kind}"]
            prev = local.utcoffset()
    return lines + ["END:VTIMEZONE"]


def outlook(tzid, std, dst=None):
    """Outlook's rule style: observances from 1601 with a yearly RRULE each."""
    lines = ["BEGIN:VTIMEZONE", f"TZID:{tzid}"]
    if dst is None:
        return lines + ["BEGIN:STANDARD", "DTSTART:16010101T000000", f"TZOFFSETFROM:{std}",
                        f"TZOFFSETTO:{std}", "END:STANDARD", "END:VTIMEZONE"]
    (s_off, s_time, s_rule), (d_off, d_time, d_rule) = std, dst
    return lines + [
        "BEGIN:STANDARD", f"DTSTART:16010101T{s_time}", f"TZOFFSETFROM:{d_off}",
        f"TZOFFSETTO:{s_off}", f"RRULE:FREQ=YEARLY;INTERVAL=1;{s_rule}", "END:STANDARD",
        "BEGIN:DAYLIGHT", f"DTSTART:16010101T{d_time}", f"TZOFFSETFROM:{s_off}",
        f"TZOFFSETTO:{d_off}", f"RRULE:FREQ=YEARLY;INTERVAL=1;{d_rule}", "END:DAYLIGHT",
        "END:VTIMEZONE"]


CUSTOM = {  # non-IANA TZIDs: only their VTIMEZONE says what they mean
    "W. Europe Standard Time": outlook(
        "W. Europe Standard Time", ("+0100", "030000", "BYDAY=-1SU;BYMONTH=10"),
        ("+0200", "020000", "BYDAY=-1SU;BYMONTH=3")),
    "AUS Eastern Standard Time": outlook(
        "AUS Eastern Standard Time", ("+1000", "030000", "BYDAY=1SU;BYMONTH=4"),
        ("+1100", "020000", "BYDAY=1SU;BYMONTH=10")),
    "India Standard Time": outlook("India Standard Time", "+0530"),
    # The rules US Outlook exported before 2007: first Sunday of April .. last Sunday of
    # October. RFC 5545 says the VTIMEZONE is what counts, not what the name suggests.
    "Eastern Standard Time": outlook(
        "Eastern Standard Time", ("-0500", "020000", "BYDAY=-1SU;BYMONTH=10"),
        ("-0400", "020000", "BYDAY=1SU;BYMONTH=4")),
    # A zone that exists nowhere: +03:30, and +04:30 from the 2nd Sunday of May at 02:00
    # to the 1st Sunday of September at 03:00.
    "Herald Fictional Time": outlook(
        "Herald Fictional Time", ("+0330", "030000", "BYDAY=1SU;BYMONTH=9"),
        ("+0430", "020000", "BYDAY=2SU;BYMONTH=5")),
}

# ---------------------------------------------------------------------------- content lines


def esc(text):
    return (text.replace("\\", "\\\\").replace(";", "\\;").replace(",", "\\,")
            .replace("\n", "\\n"))


def stamp(t):
    return t.strftime("%Y%m%d") if type(t) is D else t.strftime("%Y%m%dT%H%M%S")


def value(t, zone):
    if isinstance(t, tuple):  # PERIOD: start/end or start/duration
        return value(t[0], zone) + "/" + (t[1] if isinstance(t[1], str) else value(t[1], zone))
    return stamp(t) + ("Z" if zone == "UTC" and type(t) is T else "")


def prop(name, ts, zone, params=""):
    """A DATE/DATE-TIME property; zone is an IANA or custom TZID, "UTC", or None (floating)."""
    ts = ts if isinstance(ts, (list, tuple)) else [ts]
    if type(ts[0]) is D:
        params += ";VALUE=DATE"
    elif zone not in (None, "UTC"):
        params += f";TZID={zone}"
    return f"{name}{params}:" + ",".join(value(t, zone) for t in ts)


def valarm(trigger, action="DISPLAY", related=None, repeat=None, ack=None, text="Reminder"):
    if isinstance(trigger, T):
        lines = ["BEGIN:VALARM", f"TRIGGER;VALUE=DATE-TIME:{stamp(trigger)}Z"]
    else:
        lines = ["BEGIN:VALARM", "TRIGGER" + (f";RELATED={related}" if related else "") + f":{trigger}"]
    lines.append(f"ACTION:{action}")
    if repeat:
        lines += [f"REPEAT:{repeat[0]}", f"DURATION:{repeat[1]}"]
    if action == "DISPLAY":
        lines.append(f"DESCRIPTION:{esc(text)} ({trigger if not isinstance(trigger, T) else 'at'})")
    elif action == "AUDIO":
        lines.append("ATTACH;FMTTYPE=audio/ogg:file:///usr/share/sounds/freedesktop/stereo/bell.oga")
    elif action == "EMAIL":
        lines += [f"DESCRIPTION:{esc(text)}", f"SUMMARY:{esc(text)}",
                  "ATTENDEE:mailto:someone@example.com"]
    else:
        lines.append(f"DESCRIPTION:{esc(text)}")
    if ack:
        lines.append(f"ACKNOWLEDGED:{stamp(ack)}Z")
    return lines + ["END:VALARM"]


def A(trigger, action="DISPLAY", **kw):
    return (trigger, action, kw)


def component(kind, uid, summary, start=None, zone=None, end=None, duration=None, due=None,
              rrule=None, rdate=(), exdate=(), alarms=(), status=None, extra=(),
              rid=None, rid_zone=False, rid_range=None):
    lines = [f"BEGIN:{kind}", f"UID:{uid}", "DTSTAMP:20251201T120000Z"]
    if rid is not None:
        lines.append(prop("RECURRENCE-ID", rid, zone if rid_zone is False else rid_zone,
                          f";RANGE={rid_range}" if rid_range else ""))
    if start is not None:
        lines.append(prop("DTSTART", start, zone))
    if end is not None:
        lines.append(prop("DTEND", end, zone))
    if due is not None:
        lines.append(prop("DUE", due, zone))
    if duration:
        lines.append(f"DURATION:{duration}")
    if rrule:
        lines.append(f"RRULE:{rrule}")
    for ts, z, params in rdate:
        lines.append(prop("RDATE", ts, z, params))
    for ts, z in exdate:
        lines.append(prop("EXDATE", ts, z))
    lines.append(f"SUMMARY:{summary if isinstance(summary, Raw) else esc(summary)}")
    if status:
        lines.append(f"STATUS:{status}")
    lines += list(extra)
    for i, (trigger, action, kw) in enumerate(alarms):
        kw.setdefault("text", f"{summary} #{i + 1}")
        lines += valarm(trigger, action, **kw)
    return lines + [f"END:{kind}"]


class Raw(str):
    """Text written as it is (already escaped)."""


class Cal:
    def __init__(self, name, crlf=True, vtimezones=True):
        self.name, self.crlf, self.vtimezones = name, crlf, vtimezones
        self.lines, self.zones = [], []

    def add(self, uid, *components, silent=False):
        assert uid not in ITEMS, uid
        ITEMS.append(uid)
        if silent:
            SILENT.append(uid)
        for c in components:
            self.lines += c
            for line in c:
                m = re.search(r";TZID=([^:;]+)", line)
                if m and m.group(1) not in self.zones:
                    self.zones.append(m.group(1))

    def event(self, uid, summary, start, zone, silent=False, **kw):
        self.add(uid, component("VEVENT", uid, summary, start, zone, **kw), silent=silent)

    def todo(self, uid, summary, start, zone, silent=False, **kw):
        self.add(uid, component("VTODO", uid, summary, start, zone, **kw), silent=silent)

    def write(self):
        head = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Herald//calendar-corpus//EN",
                "CALSCALE:GREGORIAN", "METHOD:PUBLISH"]
        tz = []
        for z in self.zones:
            if z in CUSTOM:
                tz += CUSTOM[z]
            elif self.vtimezones:
                tz += iana_vtimezone(z)
        text = (("\r\n" if self.crlf else "\n").join(
            fold(line) for line in head + tz + self.lines + ["END:VCALENDAR"])
            + ("\r\n" if self.crlf else "\n"))
        if self.crlf:
            text = text.replace("\r\n", "\n").replace("\n", "\r\n")
        path = os.path.join(OUT, self.name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(text)


def fold(line):
    """Fold to 75 octets, never inside a UTF-8 sequence. A line may ask for its own fold
    points: "\x00" marks a fold with a space, "\x01" one with a tab."""
    if "\x00" in line or "\x01" in line:
        return line.replace("\x00", "\n ").replace("\x01", "\n\t")
    out, cur, size = [], "", 0
    for ch in line:
        n = len(ch.encode())
        if size + n > 75:
            out.append(cur)
            cur, size = " ", 1
        cur += ch
        size += n
    return "\n".join(out + [cur])


WEEKDAYS = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"]


def first_weekday(year, month, weekday):
    d = D(year, month, 1)
    return d + dt.timedelta(days=(weekday - d.weekday()) % 7)
