#!/usr/bin/env python3
"""What hostile calendar files cost heraldd to plan, against the budget of the issue:

    "No file of 1 MB or less costs more than 1 s of CPU or 64 MiB of memory to plan,
    whatever it holds."

    scripts/bench/hostile-bench.py --bin .build/release [--output BENCHMARKS.md]

For each case a file of about 1 MB is made by repeating one hostile item (distinct UIDs)
beside one good item; heraldd (console notifier) starts on a fresh spool with the file's
folder as its only calendar source, and the script waits for its "Calendar planned" log
line. CPU is heraldd's user + system time from /proc/PID/stat at that point, less what the
same start costs with an empty folder; memory is VmHWM (the peak) less that start's peak.
It checks that heraldd is still running and that the good item's job is in jobs/.
"""
import argparse
import datetime as dt
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from herald_scripts import procfs  # noqa: E402

MB = 1_000_000
UTC = dt.timezone.utc


def ics_time(t):
    return dt.datetime.fromtimestamp(t, UTC).strftime("%Y%m%dT%H%M%SZ")


ALARM = "BEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:x\r\nTRIGGER:-PT5M\r\nEND:VALARM\r\n"


def event(uid, body, start=None):
    start = start or ics_time(time.time() + 3600)
    return f"BEGIN:VEVENT\r\nUID:{uid}\r\nDTSTAMP:20261101T000000Z\r\nDTSTART:{start}\r\nSUMMARY:Bad\r\n{body}END:VEVENT\r\n"


def every(lo, hi):
    return ",".join(str(k) for k in range(lo, hi + 1))


CASES = {
    "TRIGGER -P99999999W": lambda u: event(u, ALARM.replace("-PT5M", "-P99999999W")),
    "REPEAT 2^63-1": lambda u: event(u, ALARM.replace("END:VALARM", "REPEAT:9223372036854775807\r\nDURATION:PT5M\r\nEND:VALARM")),
    "DURATION P99999999W": lambda u: event(u, "DURATION:P99999999W\r\n" + ALARM),
    "MINUTELY, 3 alarms REPEAT:1000": lambda u: event(u, "RRULE:FREQ=MINUTELY\r\n" + 3 * ALARM.replace(
        "END:VALARM", "REPEAT:1000\r\nDURATION:PT1M\r\nEND:VALARM")),
    "YEARLY with every BY-part": lambda u: event(u, f"RRULE:FREQ=YEARLY;BYMONTH={every(1, 12)};BYMONTHDAY={every(1, 31)};"
                                                    f"BYHOUR={every(0, 23)};BYMINUTE={every(0, 59)};BYSECOND={every(0, 59)}\r\n" + ALARM),
    "SECONDLY BYSECOND=60 from year 1": lambda u: event(u, "RRULE:FREQ=SECONDLY;BYSECOND=60;COUNT=1\r\n" + ALARM, start="00010101T000000Z"),
    "RDATE × EXDATE;VALUE=DATE": lambda u: event(u, "RRULE:FREQ=DAILY\r\nRDATE:" + ",".join(ics_time(1_800_000_000 + k * 3600) for k in range(3000))
                                                 + "\r\nEXDATE;VALUE=DATE:" + ",".join(ics_time(1_700_000_000 + k * 86400)[:8] for k in range(3000)) + "\r\n" + ALARM),
}


def vtimezone_case(uid):
    zone = (f"BEGIN:VTIMEZONE\r\nTZID:Mars/{uid}\r\nBEGIN:STANDARD\r\nDTSTART:19000101T000000\r\nTZOFFSETFROM:+0100\r\n"
            "TZOFFSETTO:+0200\r\nRRULE:FREQ=MINUTELY\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\n")
    return zone + event(uid, ALARM).replace("DTSTART:", f"DTSTART;TZID=Mars/{uid}:").replace("Z\r\nSUMMARY", "\r\nSUMMARY")


CASES["VTIMEZONE with a MINUTELY rule"] = vtimezone_case


def good():
    start = ics_time(time.time() + 7200)
    return (f"BEGIN:VEVENT\r\nUID:good\r\nDTSTAMP:20261101T000000Z\r\nDTSTART:{start}\r\nSUMMARY:Good\r\n{ALARM}END:VEVENT\r\n")


def calendar(make):
    parts, size, k = [], 0, 0
    while True:
        item = make(f"bad-{k}")
        if size + len(item) > MB - 2000 and k > 0:
            break
        parts.append(item)
        size += len(item)
        k += 1
    # The good item first: past the file's budget the rest of a file is skipped, by design.
    return "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//hostile-bench//EN\r\n" + good() + "".join(parts) + "END:VCALENDAR\r\n", k


def nested():
    n = MB // 16
    # Refused whole (no tree that deep is built): the good item is in a file beside it.
    return "BEGIN:VCALENDAR\r\nVERSION:2.0\r\n" + "BEGIN:X\r\n" * n + "END:X\r\n" * n + "END:VCALENDAR\r\n", 1


def stat(pid):
    """CPU seconds and peak memory (MiB) of heraldd with its calendar readers."""
    return procfs.cpu_seconds(pid), procfs.family_status(pid, "VmHWM") / 1024


def run(bindir, text, timeout=120):
    work = tempfile.mkdtemp(prefix="herald-hostile-bench-")
    try:
        cal = os.path.join(work, "cal")
        os.makedirs(cal)
        if text is not None:
            with open(os.path.join(cal, "hostile.ics"), "w", encoding="utf-8", newline="") as f:
                f.write(text)
            if "UID:good" not in text:
                with open(os.path.join(cal, "good.ics"), "w", encoding="utf-8", newline="") as f:
                    f.write("BEGIN:VCALENDAR\r\nVERSION:2.0\r\n" + good() + "END:VCALENDAR\r\n")
        with open(os.path.join(work, "config.yaml"), "w") as f:
            f.write(f"calendars:\n  sources: {cal}\n")
        env = {"PATH": "/usr/bin:/bin", "HOME": work, "HERALD_SPOOL": os.path.join(work, "spool"),
               "HERALD_CONFIG": os.path.join(work, "config.yaml"), "TZ": "Europe/Berlin", "LANG": "C.UTF-8"}
        log = open(os.path.join(work, "heraldd.log"), "w+")
        p = subprocess.Popen([os.path.join(bindir, "heraldd"), "--notifier", "console"], env=env, stdout=subprocess.DEVNULL, stderr=log)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            log.seek(0)
            if "Calendar planned" in log.read():
                break
            if p.poll() is not None:
                return None
            time.sleep(0.005)
        cpu, hwm = stat(p.pid)
        alive = p.poll() is None
        jobs = os.listdir(os.path.join(work, "spool", "jobs")) + os.listdir(os.path.join(work, "spool", "new"))
        log.seek(0)
        text = log.read()
        skipped = text.count("Calendar file skipped")  # ten problems a file, then one line with the count
        p.send_signal(signal.SIGTERM)
        p.wait(timeout=10)
        return cpu, hwm, alive, len(jobs), skipped
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--output", help="write the table into this file's hostile-bench section (BENCHMARKS.md)")
    args = ap.parse_args()
    base = run(args.bin, None)
    rows, bad = [], False
    cases = [(name, *calendar(make)) for name, make in CASES.items()] + [("200,000 nested components", *nested())]
    for name, text, items in cases:
        r = run(args.bin, text)
        if r is None:
            rows.append(f"| {name} | {len(text.encode()) / MB:.2f} MB, {items} items | heraldd stopped | | NOT met |")
            bad = True
            continue
        cpu, hwm, alive, jobs, skipped = r
        cpu_d, mem_d = max(0.0, cpu - base[0]), max(0.0, hwm - base[1])
        met = alive and cpu_d <= 1.0 and mem_d <= 64 and jobs >= 1
        bad |= not met
        rows.append(f"| {name} | {len(text.encode()) / MB:.2f} MB, {items:,} items | {cpu_d:.2f} s | +{mem_d:.1f} MiB | "
                    f"{'met' if met else 'NOT met'} ({'running' if alive else 'STOPPED'}, good item planned: {'yes' if jobs else 'NO'}, "
                    f"{skipped} report{'s' if skipped != 1 else ''}) |")
    with open("/proc/cpuinfo") as f:
        cpu_name = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), "?")
    text = (f"Run on {dt.datetime.now(UTC):%Y-%m-%d %H:%M} Z by `scripts/bench/hostile-bench.py --bin {args.bin}` "
            f"({os.cpu_count()} cores, {cpu_name}). Baseline (an empty calendar folder): {base[0]:.2f} s CPU, "
            f"VmHWM {base[1]:.1f} MiB; the figures are above it. Target per file: ≤ 1 s CPU, ≤ 64 MiB.\n\n"
            "| file | size | CPU to plan | memory (peak) | |\n|---|---|---|---|---|\n" + "\n".join(rows) + "\n")
    print(text)
    if args.output:
        begin, end = "<!-- hostile-bench: begin (written by scripts/bench/hostile-bench.py) -->", "<!-- hostile-bench: end -->"
        old = open(args.output, encoding="utf-8").read()
        block = begin + "\n" + text + end
        new = (old[:old.index(begin)] + block + old[old.index(end) + len(end):]) if begin in old else (
            old.rstrip("\n") + "\n\n## Hostile calendars (`make bench`: scripts/bench/hostile-bench.py)\n\n" + block + "\n")
        with open(args.output + ".tmp", "w", encoding="utf-8") as f:
            f.write(new)
        os.replace(args.output + ".tmp", args.output)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
