"""The checks of the written corpus (see __init__.py): tzdata VTIMEZONEs agree with tzdata, no
time part of 24 hours or more, each DTSTART the first instance of its RRULE, and
ical-oracle.py --compare in five zones agreeing with which items are silent."""
import datetime as dt
import json
import os
import re
import subprocess
import sys
from zoneinfo import ZoneInfo

from .writer import IANA, ITEMS, OUT, PACKAGE, SILENT, UTC, D, T, iana_vtimezone


def check():
    import icalendar
    from dateutil.rrule import rrulestr
    from dateutil.tz import tzical
    import io
    problems = []
    # VTIMEZONEs made from tzdata agree with it (hourly over the corpus range)
    for z in IANA:
        mine = tzical(io.StringIO("\n".join(l for l in iana_vtimezone(z) if not l.startswith("X-")))).get()
        t = T(2026, 1, 1, tzinfo=UTC)
        while t < T(2028, 1, 1, tzinfo=UTC):
            if t.astimezone(mine).utcoffset() != t.astimezone(ZoneInfo(z)).utcoffset():
                problems.append(f"VTIMEZONE {z} wrong at {t}")
                break
            t += dt.timedelta(hours=1)
    paths = sorted(os.path.join(d, f) for d, _, fs in os.walk(OUT) for f in fs if f.endswith(".ics"))
    for path in paths:
        with open(path, "rb") as f:
            raw = f.read()
        for m in re.finditer(rb"(?m)^(?:DURATION|TRIGGER)[^:\n]*:(-?P[^\r\n]*)", raw.replace(b"\r\n ", b"").replace(b"\n ", b"").replace(b"\n\t", b"")):
            t = re.search(rb"T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?$", m.group(1))
            if t and int(t.group(1) or 0) * 3600 + int(t.group(2) or 0) * 60 + int(t.group(3) or 0) >= 86400:
                problems.append(f"{path}: time part >= 24h: {m.group(0)}")
        cal = icalendar.Calendar.from_ical(raw)
        for comp in cal.walk():
            if comp.name in ("VEVENT", "VTODO") and "RRULE" in comp and "RECURRENCE-ID" not in comp:
                start = comp["DTSTART"].dt
                for r in (comp["RRULE"] if isinstance(comp["RRULE"], list) else [comp["RRULE"]]):
                    text = r.to_ical().decode()
                    naive = start if type(start) is D else start.replace(tzinfo=None)
                    naive = T(naive.year, naive.month, naive.day) if type(naive) is D else naive
                    text = re.sub(r"UNTIL=(\d{8})(T\d{6})?Z?", lambda m: "UNTIL=" + m.group(1) + (m.group(2) or "T235959"), text)
                    first = next(iter(rrulestr(text, dtstart=naive)), None)
                    if first != naive:
                        problems.append(f"{path}: {comp['UID']}: DTSTART is not the first instance of {text}")
    oracle = os.path.join(os.path.dirname(PACKAGE), "ical-oracle.py")  # beside this package
    for zone in ["Europe/Berlin", "America/New_York", "Australia/Sydney", "Asia/Kolkata", "UTC"]:
        run = subprocess.run([sys.executable, oracle, "--from", "2026-01-01T00:00:00Z", "--to",
                              "2028-01-01T00:00:00Z", "--zone", zone, "--compare", OUT],
                             capture_output=True, text=True)
        if run.returncode or run.stderr:
            problems.append(f"oracle --compare --zone {zone}:\n{run.stderr}")
            continue
        rows = json.loads(run.stdout)
        loud = {r["uid"] for r in rows}
        if loud | set(SILENT) != set(ITEMS) or loud & set(SILENT):
            problems.append(f"zone {zone}: items without alarms: {sorted(set(ITEMS) - loud - set(SILENT))}; "
                            f"silent items with alarms: {sorted(loud & set(SILENT))}")
        if zone == "Europe/Berlin":
            print(f"{len(ITEMS)} items, {len(loud)} with alarms, {len(SILENT)} silent, {len(rows)} alarm instants "
                  f"(Europe/Berlin), {len(paths)} files", file=sys.stderr)
    if len(set(ITEMS) - set(SILENT)) < 200:
        problems.append("fewer than 200 items with alarms")
    return problems
