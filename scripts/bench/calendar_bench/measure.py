"""The run (steps 2-4 of the bench): heraldd's baseline, the calendar's load, the edits, and the
checks of what heraldd filed."""
import datetime as dt
import os
import re
import signal
import time

from .common import BenchError, say
from .heraldd import Heraldd, calendar_jobs, count_calendar_jobs, metadata, poll
from .vdir import CLEAR, HORIZON, ZONE, ZONE_NAME, Calendar, write_atomically


def measure_load(daemon, cal, config, jobs_dir, args, r, problems):
    """Step 3: SIGHUP with the source added -> 'Calendar planned' -> every job in jobs/; RSS."""
    # The calendar's own share (calendars.limit, default 5,000) raised above its items: the
    # bench measures planning all of them, not the cut at the share (the attack tool does).
    write_atomically(config, f"log:\n  level: info\ncalendars:\n  sources: {cal.source}\n"
                             f"  limit: {max(5000, 2 * len(cal.items))}\n")
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
    r["rss_load"], r["hwm_load"], r["pss_load"] = daemon.status("VmRSS"), daemon.status("VmHWM"), daemon.pss()
    say(f"loaded: planned after {r['load_s']:.3f} s, {new:,} jobs filed after {r['filed_s']:.3f} s, "
        f"PSS {r['pss_base']:.1f} -> {r['pss_load']:.1f} MiB, VmRSS {r['rss_base']:.1f} -> {r['rss_load']:.1f} MiB (peak {r['hwm_load']:.1f})")
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
    r["rss_end"], r["hwm_end"], r["pss_end"] = daemon.status("VmRSS"), daemon.status("VmHWM"), daemon.pss()


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
        r["rss_base"], r["hwm_base"], r["pss_base"] = daemon.status("VmRSS"), daemon.status("VmHWM"), daemon.pss()
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
