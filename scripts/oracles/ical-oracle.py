#!/usr/bin/env python3
"""Comparison oracle for `herald calendar alarms ... --json` (iCalendar VALARM instants).

Why this exists: the test suite checks Herald's own RFC 5545 recurrence/alarm engine
against an implementation it shares no code with. Occurrences (RRULE, RDATE incl.
PERIOD, EXDATE, RECURRENCE-ID incl. RANGE=THISANDFUTURE, VTIMEZONE) come from the
`recurring-ical-events` + `icalendar` packages (pip; written against 3.8.2 / 7.3.0).
The alarm arithmetic is done here, because that library's own VALARM expansion is not
RFC 5545 strict (see --compare, and scripts/oracles/make_ical_corpus/ for the corners):
  * a relative TRIGGER's weeks/days are nominal (local wall clock), its hours/minutes/
    seconds exact; DATE and floating times are wall times in --zone (first instant of a
    repeated local time, pre-gap offset for a skipped one: RFC 5545 3.3.5);
  * REPEAT n adds n more instants, DURATION apart (exact); an absolute TRIGGER fires once;
  * X-WR-TIMEZONE is ignored (rie.of() would apply it; RFC 5545 does not know it);
  * no alarm for STATUS:CANCELLED components or completed VTODOs (STATUS:COMPLETED or a
    COMPLETED property), for ACTIONs other than DISPLAY/AUDIO (a VALARM without ACTION is
    DISPLAY, Mozilla's reading, which Herald shares), nor for an instant at or
    before its VALARM's ACKNOWLEDGED (RFC 9074).
Output: one JSON array, sorted by at, uid, recurrenceId (null first), the VALARM's index in
its component, file; from <= at < to. A directory means its *.ics and those one level down.

  scripts/oracles/ical-oracle.py --from 2026-01-01T00:00:00Z --to 2028-01-01T00:00:00Z \
      --zone Europe/Berlin Tests/HeraldCoreTests/Fixtures/calendar-corpus

--compare also runs the library's own VALARM expansion and lists on stderr every instant
where it differs from ours (exit 3), which is how the corpus is kept clear of the corners
where the library is known to deviate from the RFC.
"""
import argparse
import datetime as dt
import json
import os
import sys
from collections import Counter
from zoneinfo import ZoneInfo

import icalendar
import recurring_ical_events as rie
from recurring_ical_events.util import to_recurrence_ids

UTC = dt.timezone.utc


def utc(value, zone):
    """date (midnight), floating or zoned datetime -> aware UTC; fold=0 as RFC 5545 3.3.5."""
    if not isinstance(value, dt.datetime):
        value = dt.datetime(value.year, value.month, value.day)
    if value.tzinfo is None:
        value = value.replace(tzinfo=zone)
    return value.astimezone(UTC)


def iso(value, zone):
    if not isinstance(value, dt.datetime):
        return value.isoformat()
    return utc(value, zone).strftime("%Y-%m-%dT%H:%M:%SZ")


def shift(base, delta, zone):
    """base + a DURATION: weeks/days nominal on the local wall clock, the rest exact."""
    sign, mag = (-1, -delta) if delta < dt.timedelta(0) else (1, delta)
    if not isinstance(base, dt.datetime):
        base = dt.datetime(base.year, base.month, base.day)
    wall = base + sign * dt.timedelta(days=mag.days)  # aware + timedelta = wall clock
    return utc(wall, zone) + sign * (mag - dt.timedelta(days=mag.days))


def nonexistent(t):
    """A zoned wall time skipped by a spring-forward gap."""
    return (isinstance(t, dt.datetime) and t.tzinfo is not None
            and t.astimezone(UTC).astimezone(t.tzinfo).replace(tzinfo=None) != t.replace(tzinfo=None))


def end_of(rec, occ, comp, zone):
    """An occurrence's end, RFC 5545 3.8.5.3: DURATION nominal/exact as in shift(); a
    DTEND/DUE gives every instance the same exact duration (whole days for DATE values)."""
    if rec.has_core and any(r in rec.replace_ends for r in to_recurrence_ids(occ.start)):
        return occ.end  # RDATE;VALUE=PERIOD
    start, first = occ.start, comp.get("DTSTART")
    if "DURATION" in comp and first is not None:
        return shift(start, comp["DURATION"].dt, zone)
    last = comp.get("DTEND" if comp.name == "VEVENT" else "DUE")
    if last is None or first is None:
        dated = comp.name == "VEVENT" and not isinstance(start, dt.datetime)
        return start + dt.timedelta(days=1) if dated else start
    if not isinstance(first.dt, dt.datetime):
        return start + (last.dt - first.dt)
    return utc(start, zone) + (utc(last.dt, zone) - utc(first.dt, zone))


def silent(comp):
    status = str(comp.get("STATUS", "")).upper()
    return status == "CANCELLED" or (
        comp.name == "VTODO" and (status == "COMPLETED" or "COMPLETED" in comp))


def valarms(comp):
    return [c for c in comp.subcomponents if c.name == "VALARM"]


def action(alarm):
    """A VALARM's ACTION; one without it is DISPLAY, as Mozilla's calendar reads it (and Herald:
    README "What Herald reads leniently"). RFC 5545 requires the property."""
    return str(alarm.get("ACTION", "DISPLAY")).strip().upper()


def instants(alarm, first):
    step = alarm.DURATION if alarm.REPEAT else None
    return [first + k * step for k in range(alarm.REPEAT + 1)] if step else [first]


def rows(cal, lo, hi, zone):
    """(at, uid, recurrenceId, alarm index, summary, action, component) for every instant."""
    out = []

    def emit(comp, rid, index, alarm, at):
        ack = alarm.ACKNOWLEDGED
        if lo <= at < hi and not silent(comp) and (ack is None or at > ack):
            out.append((at, str(comp.get("UID", "")), rid, index, str(comp.get("SUMMARY", "")),
                        action(alarm), comp))

    for comp in cal.walk():  # absolute triggers: once per component
        if comp.name in ("VEVENT", "VTODO"):
            rid = comp.get("RECURRENCE-ID")
            for i, alarm in enumerate(valarms(comp)):
                if isinstance(alarm.TRIGGER, dt.datetime):
                    for at in instants(alarm, utc(alarm.TRIGGER, zone)):
                        emit(comp, rid and iso(rid.dt, zone), i, alarm, at)
    reach = dt.timedelta(days=2) + max(
        [abs(a.TRIGGER) + a.REPEAT * abs(a.DURATION or dt.timedelta(0))
         for a in cal.walk("VALARM") if isinstance(a.TRIGGER, dt.timedelta)] or [dt.timedelta(0)])
    for series in rie.CalendarQuery(cal, components=["VEVENT", "VTODO"]).series:
        rec = series.recurrence
        core = rec.core._component if rec.has_core else None
        recurring = core is not None and ("RRULE" in core or "RDATE" in core)
        explicit = {utc(t, zone) for t in ([rec.start, *rec.rdates] if rec.has_core else [])}
        for occ in series.between(lo - reach, hi + reach):
            adapter = occ._adapter
            comp = adapter._component
            if adapter.is_modification() and not adapter.this_and_future:
                original = comp["RECURRENCE-ID"].dt
            elif recurring or adapter.is_modification():  # THISANDFUTURE moves later ones too
                original = occ.start - adapter.move_recurrences_by
            else:
                original = None
            if original is not None and not adapter.is_modification() and nonexistent(original) \
                    and utc(original, zone) not in explicit:
                print(f"warning: {comp.get('UID')}: RRULE instance {original} is a nonexistent local"
                      " time; dropped (RFC 5545 3.3.10; a COUNT is then off by one)", file=sys.stderr)
                continue
            rid = None if original is None else iso(original, zone)
            start, end = occ.start, end_of(rec, occ, comp, zone)
            for i, alarm in enumerate(valarms(comp)):
                if isinstance(alarm.TRIGGER, dt.timedelta):
                    base = end if alarm.TRIGGER_RELATED == "END" else start
                    for at in instants(alarm, shift(base, alarm.TRIGGER, zone)):
                        emit(comp, rid, i, alarm, at)
    return out


def library_view(cal, lo, hi, zone):
    """The library's own VALARM expansion, through the same filters: Counter of (uid, at)."""
    got = Counter()
    query = rie.CalendarQuery(cal, components=["VALARM"])
    for o in query._occurrences_between(lo - dt.timedelta(days=60), hi + dt.timedelta(days=60)):
        parent = o.parent._adapter if hasattr(o.parent, "_adapter") else o.parent
        comp, at, ack = parent._component, utc(o.start, zone), o.alarm.ACKNOWLEDGED
        if (lo <= at < hi and not silent(comp) and (ack is None or at > ack)
                and action(o.alarm) in ("DISPLAY", "AUDIO")):
            got[(str(comp.get("UID", "")), at)] += 1
    return got


def files(args):
    for arg in args:
        if not os.path.isdir(arg):
            yield arg
            continue
        for name in sorted(os.listdir(arg)):
            sub = os.path.join(arg, name)
            if os.path.isdir(sub):
                yield from (os.path.join(sub, n) for n in sorted(os.listdir(sub)) if n.endswith(".ics"))
            elif name.endswith(".ics"):
                yield sub


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--from", dest="lo", required=True)
    p.add_argument("--to", dest="hi", required=True)
    p.add_argument("--zone", required=True, help="IANA zone for floating and all-day times")
    p.add_argument("--compare", action="store_true")
    p.add_argument("paths", nargs="+")
    a = p.parse_args()
    zone = ZoneInfo(a.zone)
    lo, hi = (dt.datetime.fromisoformat(v.replace("Z", "+00:00")) for v in (a.lo, a.hi))
    lo, hi = utc(lo, zone), utc(hi, zone)
    result, diffs = [], 0
    for path in files(a.paths):
        # A VTIMEZONE belongs to its own file: forget custom zones cached from earlier files.
        getattr(icalendar.timezone.tzp, "_TZP__tz_cache", {}).clear()
        with open(path, "rb") as f:
            cal = icalendar.Calendar.from_ical(f.read())
        found = rows(cal, lo, hi, zone)
        result += [(r, path) for r in found if r[5] in ("DISPLAY", "AUDIO")]
        if a.compare:
            ours = Counter((r[1], r[0]) for r in found if r[5] in ("DISPLAY", "AUDIO"))
            theirs = library_view(cal, lo, hi, zone)
            for key in sorted((ours - theirs) + (theirs - ours)):
                diffs += 1
                side = "oracle only " if key in ours - theirs else "library only"
                print(f"{path}: {side} {key[0]} {key[1]:%Y-%m-%dT%H:%M:%SZ}", file=sys.stderr)
    result.sort(key=lambda x: (x[0][0], x[0][1], x[0][2] or "", x[0][3], x[1]))
    sys.stdout.reconfigure(encoding="utf-8")
    print("[" + ",".join(
        "\n" + json.dumps({"at": f"{r[0]:%Y-%m-%dT%H:%M:%SZ}", "uid": r[1], "recurrenceId": r[2],
                           "summary": r[4], "action": r[5], "file": path}, ensure_ascii=False)
        for r, path in result) + ("\n]" if result else "]"))
    if diffs:
        print(f"{diffs} instant(s) differ from recurring-ical-events' own alarms", file=sys.stderr)
        sys.exit(3)


if __name__ == "__main__":
    main()
