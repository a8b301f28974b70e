#!/usr/bin/env python3
"""Measure heraldd against the calendar targets of the issue:

    "A 10,000-item calendar (1,000 recurring) loads in <= 1 s and adds <= 30 MiB to
    heraldd's RSS; an edit is picked up in <= 1 s."

    scripts/bench/calendar-bench.py --bin .build/release [--items 10000] [--recurring 1000] [--markdown]

Why a script of its own: herald-bench (make bench) drives plain jobs; the calendar path is
different (heraldd reads a vdir, plans one job per item and files them through new/), and its
cost grows with the calendar, not the queue. This drives the real heraldd binary as a user
would run it, with nothing but the Python standard library.

What it does:

1. Writes a vdir as khal and vdirsyncer leave one: one collection folder (cal/personal/)
   with --items .ics files, one VEVENT each (SUMMARY, LOCATION, a one-sentence DESCRIPTION,
   DTSTART/DTEND with TZID=Europe/Berlin and the VTIMEZONE khal writes, DTSTAMP, UID,
   SEQUENCE, one VALARM with TRIGGER:-PT15M). One-off events are spread over the next 60
   days; --recurring of them started in 2019 and repeat (FREQ=DAILY,
   WEEKLY;BYDAY=MO,WE,FR, MONTHLY;BYMONTHDAY=15 and YEARLY in turn), so heraldd has
   seven years of occurrences to walk. Alarm times keep clear of "now" and of the 35-day
   planning horizon, so the expected jobs are known exactly: the script expands the same
   rules itself and knows each job's id (FNV-1a of source, file and UID, as
   CalendarPlanner.jobID) and first alarm, i.e. the name of its file in jobs/.
2. Starts heraldd (console notifier) on an empty spool with a config without calendars,
   waits for its "Ready" log line and reads VmRSS from /proc/PID/status: the baseline.
3. Adds the vdir to the config (written atomically) and sends SIGHUP. "load" is SIGHUP to
   heraldd's "Calendar planned" log line (config reload, reading and parsing every file,
   expanding, planning, writing the batch into new/); "filed" is SIGHUP until every expected
   job is in jobs/ (heraldd has taken the batch in, so the alarms will fire). Then VmRSS
   once heraldd has settled (1 s after filing): the delta to the baseline is what the
   calendar costs to hold; VmHWM is the peak on the way.
4. Edit pickup, --edits times with different items: the item's .ics is rewritten as an
   editor does (temporary file, rename) with DTSTART and DTEND an hour later; the time is
   from the rename until jobs/ holds the job under its new name (cal-ID@<first alarm in
   microseconds>.json), polled every 10 ms. Median and max are reported, with how long
   each re-plan took by heraldd's log: heraldd plans the source again 100 ms after the last
   event, re-reading only the files that changed (the others' alarms are kept from before).
5. Stops heraldd with SIGTERM and prints the figures (--markdown: rows in the format of
   BENCHMARKS.md and the machine line).

It also checks what it measured: the jobs heraldd filed are exactly the expected ones (no id
missing, doubled or unexpected, each at its first alarm), new/ and failed/ are empty, no popup
was shown, every plan after an edit changed exactly one job, and heraldd logged no warning or
error. Anything wrong is listed after the table and the exit status is 1 (2: the run could
not finish). The working directory is a fresh ~/.cache/herald-calendar-bench-* (the disk, where
a user's spool and calendars are), removed afterwards unless --keep; heraldd's log is kept
there as heraldd.log.

The calendar files are in the page cache when heraldd reads them (they were just written;
os.sync() is called before each timed phase so their writeback does not land in the
timings): this is a warm load, as after a sync by vdirsyncer.
"""
import argparse
import bisect
import datetime as dt
import os
import platform
import random
import re
import shutil
import signal
import statistics
import string
import subprocess
import sys
import tempfile
import threading
import time
from zoneinfo import ZoneInfo

ZONE_NAME = "Europe/Berlin"
ZONE = ZoneInfo(ZONE_NAME)
UTC = dt.timezone.utc
HORIZON = 35 * 86400          # CalendarPlanner.horizon
GRACE = 3600                  # catchUp.grace (default): alarms this far back are still planned
TRIGGER = 15 * 60             # TRIGGER:-PT15M
CLEAR = 2 * 3600              # how far every alarm keeps from "now" and from now + HORIZON
RULES = ["FREQ=DAILY", "FREQ=WEEKLY;BYDAY=MO,WE,FR", "FREQ=MONTHLY;BYMONTHDAY=15", "FREQ=YEARLY"]
TARGETS = {"load": 1.0, "rss": 30.0, "edit": 1.0}  # seconds, MiB, seconds


class BenchError(Exception):
    """The run cannot go on (heraldd died, a wait timed out)."""


# ------------------------------------------------------------------------- the calendar

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


def write_atomically(path, content):
    folder, name = os.path.split(path)
    tmp = os.path.join(folder, "." + name + ".tmp")
    with open(tmp, "w", encoding="utf-8", newline="") as f:
        f.write(content)
    os.rename(tmp, path)


# ------------------------------------------------------------------------------ heraldd

class Heraldd:
    """heraldd in the foreground; its stderr (the log) and stdout (console popups) read by threads."""

    def __init__(self, binary, env):
        self.proc = subprocess.Popen([binary, "--notifier", "console"], env=env, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.log = []      # (time.monotonic() when read, line)
        self.popups = []
        self.closed = False
        self.cond = threading.Condition()
        for stream, sink in ((self.proc.stderr, self.log), (self.proc.stdout, self.popups)):
            threading.Thread(target=self._read, args=(stream, sink), daemon=True).start()

    def _read(self, stream, sink):
        for raw in stream:
            t = time.monotonic()
            with self.cond:
                sink.append((t, raw.decode(errors="replace").rstrip("\n")))
                self.cond.notify_all()
        if sink is self.log:
            with self.cond:
                self.closed = True
                self.cond.notify_all()

    @property
    def pid(self):
        return self.proc.pid

    def mark(self):
        with self.cond:
            return len(self.log)

    def wait_log(self, pattern, since, timeout, what, fail=r": (error|critical): "):
        """The first log line from index `since` on that matches: (index, time read, match).
        A line matching `fail` before it ends the run."""
        regex, failure, deadline = re.compile(pattern), re.compile(fail), time.monotonic() + timeout
        with self.cond:
            k = since
            while True:
                for k in range(k, len(self.log)):
                    m = regex.search(self.log[k][1])
                    if m:
                        return k, self.log[k][0], m
                    if failure.search(self.log[k][1]):
                        raise BenchError(f"heraldd logged, while the bench waited for {what}: {self.log[k][1]}")
                k = len(self.log)
                left = deadline - time.monotonic()
                if self.closed:
                    raise BenchError(f"heraldd exited (status {self.proc.wait()}) before {what}; its log:\n"
                                     + "\n".join(line for _, line in self.log[-15:]))
                if left <= 0:
                    raise BenchError(f"no {what} within {timeout:g} s")
                self.cond.wait(left)

    def status(self, key):
        """A /proc/PID/status figure in MiB (VmRSS, VmHWM)."""
        with open(f"/proc/{self.pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) / 1024
        raise BenchError(f"no {key} in /proc/{self.pid}/status")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                return self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                return "killed after SIGTERM was ignored for 15 s"
        return self.proc.returncode


def calendar_jobs(jobs_dir):
    """id -> [occurrence in microseconds, ...] of the cal-* files in jobs/."""
    out = {}
    with os.scandir(jobs_dir) as entries:
        for e in entries:
            name = e.name
            if name.startswith("cal-") and name.endswith(".json") and "@" in name:
                jid, _, micros = name[:-5].partition("@")
                out.setdefault(jid, []).append(int(micros))
    return out


def count_calendar_jobs(jobs_dir):
    with os.scandir(jobs_dir) as entries:
        return sum(1 for e in entries if e.name.startswith("cal-"))


def poll(condition, timeout, interval, what):
    """Calls condition() every `interval` s until it is true; returns time.monotonic() then."""
    deadline = time.monotonic() + timeout
    while True:
        if condition():
            return time.monotonic()
        if time.monotonic() > deadline:
            raise BenchError(f"{what} not seen within {timeout:g} s")
        time.sleep(interval)


def metadata(line):
    return dict(re.findall(r"([\w.]+)=(\S+)", line))


# ------------------------------------------------------------------------------- the run

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


def measure_load(daemon, cal, config, jobs_dir, args, r, problems):
    """Step 3: SIGHUP with the source added -> 'Calendar planned' -> every job in jobs/; RSS."""
    write_atomically(config, f"log:\n  level: info\ncalendars:\n  sources: {cal.source}\n")
    os.sync()
    mark = daemon.mark()
    t0 = time.monotonic()
    os.kill(daemon.pid, signal.SIGHUP)
    _, t_planned, m = daemon.wait_log(r"info: Calendar planned .*", mark, args.timeout, "'Calendar planned'",
                                      fail=r": (warning|error|critical): ")
    planned = metadata(m.group(0))
    r["load_s"], r["load_ms_logged"] = t_planned - t0, int(planned.get("ms", -1))
    r["jobs_new"] = new = int(planned.get("jobs.new", -1))
    if new != len(cal.expected):
        problems.append(f"heraldd planned {new:,} new jobs; {len(cal.expected):,} items have an alarm in the next 35 days")
    if (planned.get("files"), planned.get("items")) != (str(len(cal.items)),) * 2:
        problems.append(f"heraldd read files={planned.get('files')} items={planned.get('items')}, not {len(cal.items):,}")
    want = new if new >= 0 else len(cal.expected)
    t_filed = poll(lambda: count_calendar_jobs(jobs_dir) >= want, args.timeout, 0.01, f"all {want:,} jobs in jobs/")
    r["filed_s"] = t_filed - t0
    time.sleep(1.0)  # heraldd settles (it hands freed memory back after a large batch)
    r["rss_load"], r["hwm_load"] = daemon.status("VmRSS"), daemon.status("VmHWM")
    say(f"loaded: planned after {r['load_s']:.3f} s, {new:,} jobs filed after {r['filed_s']:.3f} s, "
        f"VmRSS {r['rss_base']:.1f} -> {r['rss_load']:.1f} MiB (peak {r['hwm_load']:.1f})")
    check_jobs(jobs_dir, cal, problems, "after the load")


def measure_edits(daemon, cal, jobs_dir, args, r, problems):
    """Step 4: DTSTART + 1 h moves an item's first alarm, so its job's file name, by exactly an
    hour (every alarm keeps CLEAR from now and the horizon: no occurrence enters or leaves the
    planned range). Items are taken as heraldd filed them, whether or not that was right."""
    current = calendar_jobs(jobs_dir)
    candidates = [i for i in cal.items if len(current.get(cal.id(i), [])) == 1]
    cal.rng.shuffle(candidates)
    times, plans = [], []
    for item in candidates:
        if len(times) == args.edits:
            break
        jid, old = cal.id(item), current[cal.id(item)][0]
        at = time.time() * 1_000_000
        if not at + CLEAR * 1_000_000 <= old <= at + (HORIZON - CLEAR - 3600) * 1_000_000:
            continue
        target = os.path.join(jobs_dir, f"{jid}@{old + 3600 * 1_000_000}.json")
        mark = daemon.mark()
        os.sync()
        cal.move(item, hours=1)
        t0 = time.monotonic()
        times.append(poll(lambda: os.path.exists(target), args.timeout, 0.01, f"the edit of {item.uid}") - t0)
        _, _, m = daemon.wait_log(r"info: Calendar planned .*", mark, args.timeout, "'Calendar planned' after an edit")
        plan = metadata(m.group(0))
        plans.append(int(plan.get("ms", -1)))
        if (plan.get("jobs.changed"), plan.get("jobs.new"), plan.get("jobs.removed")) != ("1", "0", "0"):
            problems.append(f"the plan after editing {item.uid} logged changed={plan.get('jobs.changed')} "
                            f"new={plan.get('jobs.new')} removed={plan.get('jobs.removed')}, not 1, 0, 0")
        say(f"edit {len(times)}: {item.rule or 'one-off'} item, picked up after {times[-1]:.3f} s, "
            f"plan {plans[-1]} ms, VmRSS {daemon.status('VmRSS'):.1f} MiB")
        time.sleep(0.2)
    if len(times) < args.edits:
        problems.append(f"only {len(times)} items fit for an edit")
    r["edits"], r["edit_plans_ms"] = times, plans
    time.sleep(0.5)
    check_jobs(jobs_dir, cal, problems, "after the edits")
    r["rss_end"], r["hwm_end"] = daemon.status("VmRSS"), daemon.status("VmHWM")


def run(args, work, problems):
    binary = os.path.join(args.bin, "heraldd")
    if not os.access(binary, os.X_OK):
        raise BenchError(f"no heraldd in {args.bin}")
    spool, config = os.path.join(work, "spool"), os.path.join(work, "config.yaml")
    jobs_dir = os.path.join(spool, "jobs")
    os.mkdir(spool, 0o700)

    cal = Calendar(work, args.items, args.recurring, args.seed)
    r = {"items": len(cal.items), "recurring": args.recurring, "bytes": cal.bytes,
         "expected": len(cal.expected), "work": work, "edits": []}
    say(f"wrote {len(cal.items):,} items ({cal.bytes / 2**20:.1f} MiB) in {cal.seconds:.1f} s; "
        f"{len(cal.expected):,} have an alarm in the next 35 days")

    # Step 2: heraldd without calendars, the baseline.
    write_atomically(config, "log:\n  level: info\n")
    env = {k: v for k, v in os.environ.items() if k not in ("NOTIFY_SOCKET", "HERALD_SPOOL", "HERALD_CONFIG")}
    env.update(HERALD_CONFIG=config, HERALD_SPOOL=spool, TZ=ZONE_NAME)
    os.sync()
    daemon = Heraldd(binary, env)
    try:
        daemon.wait_log(r"info: Ready\b", 0, args.timeout, "'Ready' from heraldd")
        time.sleep(0.5)
        r["rss_base"], r["hwm_base"] = daemon.status("VmRSS"), daemon.status("VmHWM")
        measure_load(daemon, cal, config, jobs_dir, args, r, problems)
        measure_edits(daemon, cal, jobs_dir, args, r, problems)
    finally:
        r["exit"] = daemon.stop()
        with open(os.path.join(work, "heraldd.log"), "w") as f:
            f.writelines(line + "\n" for _, line in daemon.log)

    # What heraldd did besides: nothing else, it is hoped.
    if r["exit"] != 0:
        problems.append(f"heraldd exited with {r['exit']} after SIGTERM")
    bad = [line for _, line in daemon.log if re.search(r": (warning|error|critical): ", line)]
    problems += [f"heraldd logged: {line}" for line in bad[:10]]
    if daemon.popups:
        problems.append(f"{len(daemon.popups)} lines on heraldd's stdout (popups?), first: {daemon.popups[0][1]!r}")
    plans = sum(1 for _, line in daemon.log if "info: Calendar planned " in line)
    if plans != 1 + len(r["edits"]):
        problems.append(f"heraldd planned the calendar {plans} times, not once for the load and once an edit")
    return r


def check_jobs(jobs_dir, cal, problems, when):
    """jobs/ holds one file for each expected id, named at the item's first alarm; new/ and failed/ are empty."""
    found, expected, kinds, spool = calendar_jobs(jobs_dir), cal.expected, cal.kinds, os.path.dirname(jobs_dir)
    doubled = [j for j, v in found.items() if len(v) > 1]
    missing = expected.keys() - found.keys()
    extra = found.keys() - expected.keys()
    wrong = sorted(j for j in expected.keys() & found.keys() if len(found[j]) == 1 and found[j][0] != expected[j])
    for ids, what in ((missing, "expected jobs missing from jobs/"), (extra, "unexpected calendar jobs in jobs/"),
                      (doubled, "job ids with more than one file in jobs/"),
                      (wrong, "jobs not at their item's first alarm")):
        if ids:
            by_kind = {}
            for j in ids:
                by_kind[kinds.get(j, "?")] = by_kind.get(kinds.get(j, "?"), 0) + 1
            problems.append(f"{when}: {len(ids):,} {what} ("
                            + ", ".join(f"{k}: {n:,}" for k, n in sorted(by_kind.items())) + ")")
    if wrong:
        j = wrong[0]
        fmt = "%a %Y-%m-%d %H:%M %Z"
        problems.append(f"{when}: e.g. {j}: jobs/ has its first alarm at "
                        f"{dt.datetime.fromtimestamp(found[j][0] / 1e6, ZONE):{fmt}}, the item's is at "
                        f"{dt.datetime.fromtimestamp(expected[j] / 1e6, ZONE):{fmt}}")
    for sub in ("new", "failed"):
        left = os.listdir(os.path.join(spool, sub))
        if left:
            problems.append(f"{when}: {len(left)} files in {sub}/, e.g. {left[0]}")


# ---------------------------------------------------------------------------- reporting

def machine():
    cpu = "unknown CPU"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    osname = ""
    try:
        with open("/etc/os-release") as f:
            osname = dict(l.rstrip("\n").split("=", 1) for l in f if "=" in l).get("PRETTY_NAME", "").strip('"')
    except OSError:
        pass
    with open("/proc/meminfo") as f:
        ram = int(f.readline().split()[1]) / 2**20
    u = platform.uname()
    parts = [osname, f"Linux {u.release} {u.machine}", cpu, f"{os.cpu_count()} cores", f"{ram:.1f} GiB RAM"]
    return ", ".join(p for p in parts if p)


def filesystem(path):
    best, kind = "", "?"
    with open("/proc/mounts") as f:
        for line in f:
            _, mount, fstype = line.split()[:3]
            if (path == mount or path.startswith(mount.rstrip("/") + "/")) and len(mount) >= len(best):
                best, kind = mount, fstype
    return f"{kind} at {best}"


def version(bindir):
    try:
        out = subprocess.run([os.path.join(bindir, "heraldd"), "--version"], capture_output=True, text=True, timeout=10)
        return out.stdout.strip() or "?"
    except (OSError, subprocess.TimeoutExpired):
        return "?"


def ms(seconds):
    return f"{seconds * 1000:,.0f} ms" if seconds >= 0.1 else f"{seconds * 1000:.1f} ms"


def rows(r):
    """(figure, how, result, target, met) for each target."""
    delta = r["rss_load"] - r["rss_base"]
    edits = r["edits"]
    shape = f"{r['items']:,} items ({r['recurring']:,} recurring), {r['expected']:,} with alarms"
    out = [("calendar load", f"SIGHUP adding a vdir of {shape} → `Calendar planned`",
            f"{ms(r['load_s'])} (heraldd's own: {r['load_ms_logged']:,} ms)", "≤ 1 s",
            r["load_s"] <= TARGETS["load"]),
           ("calendar filed", f"SIGHUP → all {r['jobs_new']:,} jobs in `jobs/`", ms(r["filed_s"]), "—", None),
           ("calendar memory", "heraldd VmRSS after the load − before (empty spool)",
            f"+{delta:.1f} MiB ({r['rss_base']:.1f} → {r['rss_load']:.1f} MiB, peak VmHWM {r['hwm_load']:.1f} MiB, "
            f"after the edits {r['rss_end']:.1f} MiB)", "≤ 30 MiB", delta <= TARGETS["rss"])]
    if edits:
        out.append(("calendar edit", f"an item's `.ics` renamed into place, DTSTART + 1 h → its job renamed in `jobs/`, "
                                     f"{len(edits)} items",
                    f"median {ms(statistics.median(edits))} · max {ms(max(edits))} "
                    f"(plans took {', '.join(str(p) for p in r['edit_plans_ms'])} ms)",
                    "≤ 1 s", max(edits) <= TARGETS["edit"]))
    return out


def report(args, r, problems):
    table = rows(r)
    verdict = {True: "met", False: "NOT met", None: ""}
    if args.markdown:
        print(f"Run on {dt.datetime.now(UTC):%Y-%m-%d %H:%M} Z by `scripts/bench/calendar-bench.py --bin {args.bin}`"
              f" (heraldd {version(args.bin)}).\n")
        print(f"Machine: {machine()}.\n")
        print("| figure | how | result | target | |")
        print("|---|---|---|---|---|")
        for figure, how, result, target, met in table:
            print(f"| {figure} | {how} | {result} | {target} | {verdict[met]} |")
        print(f"\n- Working directory {r['work']} ({filesystem(r['work'])}); the {r['bytes'] / 2**20:.1f} MiB of"
              " calendar files are in the page cache (just written), as after a sync.")
        if problems:
            print("- Problems: " + "; ".join(problems) + ".")
        else:
            print("- Checked: every expected job filed once, at its item's first alarm; each edit changed one job;"
                  " nothing in `new/` or `failed/`, no popup, no warning in heraldd's log.")
    else:
        print(f"heraldd {version(args.bin)} from {args.bin}; {machine()}")
        print(f"work dir {r['work']} ({filesystem(r['work'])}); calendar {r['bytes'] / 2**20:.1f} MiB")
        width = max(len(t[0]) for t in table)
        for figure, how, result, target, met in table:
            print(f"  {figure:<{width}}  {result}")
            print(f"  {'':<{width}}  " + (f"target {target}: {verdict[met]}; " if met is not None else "") + how)
    sys.stdout.flush()
    if problems:
        print("\nProblems:", file=sys.stderr)
        for p in problems:
            print("  - " + p, file=sys.stderr)


BEGIN = "<!-- calendar-bench: begin (written by scripts/bench/calendar-bench.py; edits between these lines are replaced) -->"
END = "<!-- calendar-bench: end -->"


def write_section(path, text):
    """Replaces the text between BEGIN and END in `path` (appended with a heading if absent)."""
    old = open(path, encoding="utf-8").read() if os.path.exists(path) else ""
    block = BEGIN + "\n" + text.rstrip("\n") + "\n" + END
    if BEGIN in old and END in old:
        new = old[:old.index(BEGIN)] + block + old[old.index(END) + len(END):]
    else:
        new = old.rstrip("\n") + "\n\n## Calendars (`make bench`: scripts/bench/calendar-bench.py)\n\n" + block + "\n"
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.write(new)
    os.replace(path + ".tmp", path)


def say(message):
    print(f"calendar-bench: {message}", file=sys.stderr, flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bin", required=True, help="the folder with heraldd (.build/release, .build/debug)")
    p.add_argument("--items", type=int, default=10_000, help="items in the calendar (default 10000)")
    p.add_argument("--recurring", type=int, default=1_000, help="of them, how many repeat (default 1000)")
    p.add_argument("--edits", type=int, default=5, help="items edited one after another (default 5)")
    p.add_argument("--timeout", type=float, default=120, help="seconds any one wait may take (default 120)")
    p.add_argument("--seed", type=int, default=9074, help="seed of the calendar's contents")
    p.add_argument("--markdown", action="store_true", help="print rows for BENCHMARKS.md")
    p.add_argument("--output", help="also write the rows into this file's calendar-bench section (BENCHMARKS.md)")
    p.add_argument("--keep", action="store_true", help="keep the working directory")
    args = p.parse_args()
    if not 0 <= args.recurring <= args.items:
        p.error("--recurring must be between 0 and --items")
    base = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"))
    os.makedirs(base, exist_ok=True)
    work = os.path.realpath(tempfile.mkdtemp(prefix="herald-calendar-bench-", dir=base))
    problems = []
    try:
        r = run(args, work, problems)
    except BenchError as e:
        print(f"calendar-bench: {e}", file=sys.stderr)
        for p_ in problems:
            print("  - " + p_, file=sys.stderr)
        return 2
    finally:
        if args.keep:
            say(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    report(args, r, problems)
    if args.output:
        # The same rows again, into the section of BENCHMARKS.md between the markers.
        import contextlib, io
        args.markdown = True
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            report(args, r, [])  # problems were printed above
        write_section(args.output, buf.getvalue())
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
