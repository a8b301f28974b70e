#!/usr/bin/python3
"""Writes calendar-systemd.json: what `systemd-analyze calendar` says about Herald's
calendar corpus, the expected answers for CalendarSystemdTests.

For each time zone and base time, every valid expression's normalized form and next
elapse times (in UTC, to the second) as systemd computes them; and which expressions
systemd refuses. Run it again after changing the corpus:

    /usr/bin/python3 Tests/HeraldCoreTests/Fixtures/make-calendar-fixture.py
"""
import calendar
import json
import os
import re
import subprocess
import sys
import time

ITERATIONS = 6

ZONES = ["UTC", "America/New_York", "Europe/Berlin", "Australia/Lord_Howe", "Asia/Kolkata"]

# Base times (UTC) just before daylight-saving changes, month ends, a leap day, a year end.
BASES = [
    "2026-03-08T06:30:00",  # New York: 02:00 EST -> 03:00 EDT at 07:00Z
    "2026-11-01T05:10:00",  # New York: 02:00 EDT -> 01:00 EST at 06:00Z
    "2026-03-29T00:20:00",  # Berlin: 02:00 CET -> 03:00 CEST at 01:00Z
    "2026-10-25T00:10:00",  # Berlin: 03:00 CEST -> 02:00 CET at 01:00Z
    "2026-04-04T14:20:00",  # Lord Howe: 02:00 +11 -> 01:30 +1030 at 15:00Z
    "2026-10-03T15:10:00",  # Lord Howe: 02:00 +1030 -> 02:30 +11 at 15:30Z
    "2026-01-31T20:00:00",  # the end of January
    "2028-02-28T18:00:00",  # a leap day ahead
    "2026-12-31T21:00:00",  # the end of the year
    "2026-11-22T08:00:00",  # an ordinary day
]

VALID = [
    "minutely", "hourly", "daily", "weekly", "monthly", "yearly", "annually", "quarterly", "semiannually",
    "*-*-* 02:30", "*-*-* 01:30:00", "*-*-* 03:00", "*-*-* 00:00", "*-*-* 02,03:00,30", "*-*-* 23:59:59",
    "Mon..Fri 09:00", "Sat,Sun 10:00", "Mon,Wed,Fri 18:30", "Tue..Thu,Sun 07:15", "Mon-Fri 10:00",
    "monday..friday 10:00", "Fri *-*-13 00:00", "Mon *-*-1..7 09:00", "Sun *-*-* 02:30",
    "*-*-01 00:00", "*-*-31 12:00", "*-02-29 09:00", "*-1/2-01", "*-*-01/10", "*-*~1", "*-02~3",
    "*-*~1..7 08:00", "*-*~5/2", "1..3/5:00", "12-25 06:00", "2028-02-29", "2027-02-29", "*-02-30", "26-11-30 10:00",
    "09..17:00/30", "*:0/15", "*:*:0/5", "*:0/7", "02:00/15", "01..03:00,30", "00/6:00", "*:*:0/10.5",
    "Mon..Fri 09..17:00/30", "2026-03-29 02:30", "2026-11-01 01:30", "*-*-* 01,02:00/20",
    "daily UTC", "*:0/15 UTC", "Mon 09:00 Europe/Berlin", "daily Asia/Kolkata", "*-*-* 02:30 America/New_York",
    "*:0/30 Australia/Lord_Howe", "@1800000000", "*-*-* *:*:*", "Wed..Sat,Tue 12:00", "*-*-1,15 8:5",
]

INVALID = [
    "Mon,Fri..Wed 10:00", "25:00", "*-13-01", "*:60", "Mon.. 10:00", "10:00:00:00", "*-*-32", "*-*~29",
    "blah", "*:0/0", "2300-01-01", "1969-01-01", "Mon 10", "*-*-* 10:00 Mars/Phobos", "daily XYZ",
    "*:*:5..5", "12:00 PM", "*:50/20", "Fri..Mon", "*-*~7..1 08:00", "*-*~1/2", "*-*-* 10:00:00 UTC UTC", "*-*~1-01", "*-*-* 02:00,02:30,03:00",
]


def epoch(text):
    return calendar.timegm(time.strptime(text, "%Y-%m-%dT%H:%M:%S"))


def analyze(zone, base, expressions):
    """systemd's normalized form and elapse times (UTC epoch seconds) for each expression."""
    env = dict(os.environ, TZ=":" + zone, LC_ALL="C")
    out = subprocess.run(["systemd-analyze", "calendar", "--base-time=@%d" % base, "--iterations=%d" % ITERATIONS]
                         + expressions, env=env, capture_output=True, text=True)
    blocks = [b for b in out.stdout.split("\n\n") if b.strip()]
    if len(blocks) != len(expressions):
        sys.exit("expected %d answers from systemd-analyze, got %d" % (len(expressions), len(blocks)))
    results = {}
    for expression, block in zip(expressions, blocks):
        lines = block.splitlines()
        normalized = None
        elapses = []
        for k, line in enumerate(lines):
            m = re.match(r"\s*Normalized form: (.*)$", line)
            if m:
                normalized = m.group(1)
                continue
            m = re.match(r"\s*(Next elapse|Iter\. #\d+): \w+ (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) (\S+)$", line)
            if not m:
                continue
            stamp, zone_name = m.group(2), m.group(3)
            following = lines[k + 1] if k + 1 < len(lines) else ""
            u = re.match(r"\s*\(in UTC\): \w+ (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) UTC$", following)
            if u:
                stamp = u.group(1)
            elif zone_name != "UTC":
                sys.exit("no UTC time for '%s' in %s: %s" % (expression, zone, line))
            elapses.append(epoch(stamp.replace(" ", "T")))
        results[expression] = {"normalized": normalized, "next": elapses}
    return results


def refused(expression):
    out = subprocess.run(["systemd-analyze", "calendar", expression], capture_output=True, text=True,
                         env=dict(os.environ, TZ=":UTC", LC_ALL="C"))
    return out.returncode != 0


def main():
    for e in VALID:
        if refused(e):
            sys.exit("systemd refuses '%s', listed as valid" % e)
    for e in INVALID:
        if not refused(e):
            sys.exit("systemd accepts '%s', listed as invalid" % e)
    cases = []
    for zone in ZONES:
        for base_text in BASES:
            base = epoch(base_text)
            results = analyze(zone, base, VALID)
            for e in VALID:
                r = results.get(e)
                if r is None:
                    sys.exit("no answer for '%s' in %s" % (e, zone))
                cases.append({"zone": zone, "base": base, "expression": e, "normalized": r["normalized"], "next": r["next"]})
    version = subprocess.run(["systemd-analyze", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    fixture = {"generator": "Tests/HeraldCoreTests/Fixtures/make-calendar-fixture.py", "systemd": version,
               "iterations": ITERATIONS, "invalid": INVALID, "cases": cases}
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "calendar-systemd.json")
    with open(path, "w") as f:  # one case per line, so diffs stay readable
        head = {k: v for k, v in fixture.items() if k != "cases"}
        f.write(json.dumps(head, separators=(",", ":"))[:-1] + ',"cases":[\n')
        f.write(",\n".join(json.dumps(c, separators=(",", ":")) for c in cases))
        f.write("\n]}\n")
    print("wrote %d cases from %s to %s" % (len(cases), version, path))


if __name__ == "__main__":
    main()
