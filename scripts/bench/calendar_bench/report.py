"""The figures against the targets: on the terminal, or as rows for BENCHMARKS.md (written
between its calendar-bench markers)."""
import datetime as dt
import os
import statistics
import subprocess
import sys

from .vdir import UTC
import benchmachine as shared  # noqa: E402 (scripts/bench is on sys.path)
from benchmachine import machine  # noqa: E402

TARGETS = {"load": 1.0, "rss": 30.0, "edit": 1.0}  # seconds, MiB, seconds


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
    # Since calendars are read by a child process, memory is the two processes' PSS: their
    # VmRSS summed counts the heraldd binary's shared pages twice.
    delta = r["pss_load"] - r["pss_base"]
    edits = r["edits"]
    shape = f"{r['items']:,} items ({r['recurring']:,} recurring), {r['expected']:,} with alarms"
    out = [("calendar load", f"SIGHUP adding a vdir of {shape} → `Calendar planned`",
            f"{ms(r['load_s'])} (heraldd's own: {r['load_ms_logged']:,} ms)", "≤ 1 s",
            r["load_s"] <= TARGETS["load"]),
           ("calendar filed", f"SIGHUP → all {r['jobs_new']:,} jobs in `jobs/`", ms(r["filed_s"]), "—", None),
           ("calendar memory", "PSS of heraldd and its calendar reader after the load − before (empty spool)",
            f"+{delta:.1f} MiB ({r['pss_base']:.1f} → {r['pss_load']:.1f} MiB, after the edits {r['pss_end']:.1f} MiB; "
            f"VmRSS summed {r['rss_base']:.1f} → {r['rss_load']:.1f} MiB, peak VmHWM {r['hwm_load']:.1f} MiB)",
            "≤ 30 MiB", delta <= TARGETS["rss"])]
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
        print(f"Run on {dt.datetime.now(UTC):%Y-%m-%d %H:%M} Z by `scripts/bench/calendar_bench --bin {args.bin}`"
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


BEGIN = "<!-- calendar-bench: begin (written by scripts/bench/calendar_bench; edits between these lines are replaced) -->"
END = "<!-- calendar-bench: end -->"


def write_section(path, text):
    """Replaces the text between BEGIN and END in `path` (appended with a heading if absent)."""
    shared.write_section(path, text, BEGIN, END, "## Calendars (`make bench`: scripts/bench/calendar_bench)\n")
