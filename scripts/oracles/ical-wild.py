#!/usr/bin/env python3
"""Herald's alarms against the oracle's on the wild calendar corpus (issue 39).

The corpus is ../shared/corpora/ical-wild (786 calendars from sixteen projects' test suites,
its SOURCES.md names each); it is read from there, never copied. For every .ics file that holds
BEGIN:VALARM, this runs

    TZ=ZONE HOME=<temp> herald calendar alarms FILE --from A --to B --json
    scripts/oracles/ical-oracle.py --from A --to B --zone ZONE FILE

over a window of the file's own: from its earliest DTSTART/DUE/RECURRENCE-ID/RDATE/absolute
TRIGGER (of a VEVENT or VTODO, never of a VTIMEZONE) minus a year, to its latest plus three
years (2000..2035 when it has none). The two are compared as multisets of (at, uid). Every
file where they differ is written down one by one in ical-wild-disagreements.json: its kind
(the oracle deviating from RFC 5545 or from an extension Herald documents; readers that
disagree with each other; Herald's documented budgets; input no one can read), why, and how
many instants only Herald and only the oracle have, per zone.

  python3 scripts/oracles/ical-wild.py --herald BIN [--corpus DIR] [--zone Z ...] [--check]
                                       [--only SUBSTRING ...] [--json OUT.json] [--write-counts]

--check exits 1 when a file disagrees that the notes do not list, or with other counts, or a
listed one agrees now (the notes are then out of date): make test runs it
(WildCalendarEndToEndTests). --write-counts rewrites the notes' counts from this run (the
reasons stay as written; a new disagreement gets kind "unexplained" until someone writes why).
Needs python3 with recurring-ical-events 3.8.2 (scripts/dev/install-deps.sh test).
"""
import argparse
import concurrent.futures as cf
import datetime as dt
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
ORACLE = os.path.join(HERE, "ical-oracle.py")
NOTES = os.path.join(HERE, "ical-wild-disagreements.json")


def default_corpus():
    """$HERALD_ICAL_WILD, else ../shared/corpora/ical-wild beside the repository, else the
    workplace's shared folder (a clean clone elsewhere)."""
    if os.environ.get("HERALD_ICAL_WILD"):
        return os.environ["HERALD_ICAL_WILD"]
    beside = os.path.normpath(os.path.join(HERE, "..", "..", "..", "shared", "corpora", "ical-wild"))
    return next((d for d in (beside, "/work/shared/corpora/ical-wild") if os.path.isdir(d)), beside)


DATE = re.compile(r"(\d{4})(\d{2})(\d{2})")


def unfolded(text):
    return re.sub(r"\r?\n[ \t]", "", text.replace("\r\n", "\n").replace("\r", "\n")).split("\n")


def window(text):
    """(from, to) as YYYY-MM-DD from the item dates; None when there are none."""
    dates, stack = [], []
    for line in unfolded(text):
        up = line.upper()
        if up.startswith("BEGIN:"):
            stack.append(up[6:].strip())
            continue
        if up.startswith("END:"):
            if stack:
                stack.pop()
            continue
        if "VTIMEZONE" in stack or not any(s in ("VEVENT", "VTODO", "VALARM") for s in stack):
            continue
        name = re.split(r"[;:]", up, 1)[0]
        if name in ("DTSTART", "DUE", "RECURRENCE-ID", "RDATE") or (name == "TRIGGER" and stack[-1] == "VALARM"):
            value = line.split(":", 1)[-1] if ":" in line else ""
            if name == "TRIGGER" and not re.match(r"\d{8}T", value):
                continue
            for m in DATE.finditer(value):
                y, mo, d = map(int, m.groups())
                if 1900 <= y <= 2200 and 1 <= mo <= 12 and 1 <= d <= 31:
                    try:
                        dates.append(dt.date(y, mo, d))
                    except ValueError:
                        pass
    if not dates:
        return None
    lo, hi = min(dates), max(dates)
    return (lo.replace(day=1) - dt.timedelta(days=365)).isoformat(), (hi + dt.timedelta(days=3 * 366)).isoformat()


def xmoz_lastack(text):
    """UID -> the latest X-MOZ-LASTACK of its components (UTC datetime)."""
    out, uid, ack = {}, None, None
    for line in unfolded(text):
        up = line.upper()
        if up.startswith("BEGIN:VEVENT") or up.startswith("BEGIN:VTODO"):
            uid, ack = None, None
        elif up.startswith("UID") and re.match(r"UID[;:]", up):
            uid = line.split(":", 1)[1]
        elif up.startswith("X-MOZ-LASTACK"):
            m = re.search(r"(\d{8}T\d{6})Z", line)
            if m:
                ack = dt.datetime.strptime(m.group(1), "%Y%m%dT%H%M%S")
        elif up.startswith("END:VEVENT") or up.startswith("END:VTODO"):
            if uid is not None and ack is not None:
                out[uid] = max(out.get(uid, ack), ack)
    return out


def pattern(message):
    """A problem message with its values taken out: the group it belongs to."""
    p = re.sub(r"no ':' in the \S+ line", "no ':' in the NAME line", message)
    p = re.sub(r"(?<!no )'[^']*'", "'X'", p)
    p = re.sub(r"BEGIN:VCALENDAR.*is never ended", "BEGIN:VCALENDAR<the whole file: CR-only line ends> is never ended", p, flags=re.S)
    p = re.sub(r"UID \S+", "UID X", p)
    p = re.sub(r"bad parameter in \S+", "bad parameter in NAME", p)
    p = re.sub(r"^\S+ outside BEGIN:VCALENDAR", "NAME outside BEGIN:VCALENDAR", p)
    p = re.sub(r"END:\S+ closes BEGIN:\S+ \(line \d+\)", "END:X closes BEGIN:Y (line N)", p)
    p = re.sub(r"BEGIN:\S* is never ended", "BEGIN:X is never ended", p) if "VCALENDAR<" not in p else p
    return re.sub(r"\d+", "N", p)


def run_herald(args, path, lo, hi, home, zone):
    env = dict(os.environ, TZ=zone, HOME=home, XDG_CONFIG_HOME=os.path.join(home, ".config"),
               XDG_STATE_HOME=os.path.join(home, ".state"))
    try:
        r = subprocess.run([args.herald, "calendar", "alarms", path, "--from", lo + "T00:00:00Z", "--to", hi + "T00:00:00Z", "--json"],
                           capture_output=True, env=env, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return None, ["TIMEOUT"], "timeout"
    problems = []
    for line in r.stderr.decode("utf-8", "replace").splitlines():
        m = re.match(r"herald: (?:.*?\.ics):(\d+): (.*)$", line, re.S)
        problems.append((int(m.group(1)), m.group(2)) if m else (0, line))
    if r.returncode < 0:
        return None, problems, f"signal {-r.returncode}"
    try:
        rows = json.loads(r.stdout.decode("utf-8")) if r.stdout.strip() else []
    except ValueError as e:
        return None, problems, f"bad JSON: {e}"
    return rows, problems, r.returncode


def run_oracle(args, path, lo, hi, split=True, zone=None):
    """The oracle's rows, its error (None when it read the file) and its warnings. A file of
    several VCALENDARs (an RFC 5545 icalstream, which icalendar.Calendar.from_ical refuses) is
    given to it one VCALENDAR at a time."""
    try:
        r = subprocess.run([sys.executable, args.oracle, "--from", lo + "T00:00:00Z", "--to", hi + "T00:00:00Z",
                            "--zone", zone, path], capture_output=True, timeout=args.oracle_timeout)
    except subprocess.TimeoutExpired:
        return None, "timeout", []
    err = r.stderr.decode("utf-8", "replace")
    notes = [l for l in err.splitlines() if l.startswith("warning:") or "Guessed" in l]
    if r.returncode != 0:
        last = [l for l in err.strip().splitlines() if l.strip()]
        error = (last[-1] if last else f"exit {r.returncode}")[:200]
        if split and "Found multiple components where only one is allowed" in error:
            with open(path, "rb") as f:
                raw = f.read()
            parts = re.findall(rb"(?ims)^BEGIN:VCALENDAR\s*$.*?^END:VCALENDAR\s*$", raw)
            if len(parts) > 1:
                rows, errors = [], []
                with tempfile.TemporaryDirectory() as d:
                    for i, part in enumerate(parts):
                        sub = os.path.join(d, f"part{i}.ics")
                        with open(sub, "wb") as f:
                            f.write(part)
                        pr, pe, pn = run_oracle(args, sub, lo, hi, split=False, zone=zone)
                        notes += pn
                        if pe:
                            errors.append(f"VCALENDAR {i + 1}: {pe}")
                        else:
                            rows += pr
                notes.append(f"note: {len(parts)} VCALENDARs, given to the oracle one by one")
                if errors:  # the parts it read still count; the file is marked partial
                    return rows, f"partial: {len(errors)} of {len(parts)} VCALENDARs unreadable: " + "; ".join(errors)[:160], notes
                return rows, None, notes
        return None, error, notes
    return json.loads(r.stdout.decode("utf-8")), None, notes


def key(row):
    return (row["at"], row["uid"])


def compare(args, path, home, zone):
    with open(path, "rb") as f:
        raw = f.read()
    text = raw.decode("utf-8", "replace")
    w = window(text) or ("2000-01-01", "2035-01-01")
    lo, hi = w
    rows, problems, hstatus = run_herald(args, path, lo, hi, home, zone)
    orows, oerror, onotes = run_oracle(args, path, lo, hi, zone=zone)
    res = {"file": os.path.relpath(path, args.corpus), "zone": zone, "from": lo, "to": hi, "herald_status": hstatus,
           "herald_problems": problems, "oracle_error": oerror, "oracle_notes": onotes}
    h = Counter(key(r) for r in rows) if rows is not None else Counter()
    o = Counter(key(r) for r in orows) if orows is not None else Counter()
    res.update(herald=sum(h.values()), oracle=sum(o.values()), both=sum((h & o).values()),
               only_herald=sorted((h - o).elements()), only_oracle=sorted((o - h).elements()))
    # Automatic causes.
    causes = []
    if isinstance(hstatus, str):
        causes.append(f"herald {hstatus}")
    if oerror:
        causes.append("the oracle reads only part of the file" if orows is not None else "oracle cannot read the file")
    if problems:
        causes.append("herald reports: " + "; ".join(sorted({pattern(m) for _, m in problems})))
    acks = xmoz_lastack(text)
    if res["only_oracle"] and acks:
        def acked(k):
            at = dt.datetime.strptime(k[0], "%Y-%m-%dT%H:%M:%SZ")
            return k[1] in acks and at <= acks[k[1]]
        n = sum(acked(k) for k in res["only_oracle"])
        if n:
            causes.append(f"{n} only-oracle instant(s) at or before the item's X-MOZ-LASTACK (Herald honours it; the oracle does not)")
    # Durations with a time part of 24 hours or more are exact (RFC 5545 3.3.6: PT24H is not P1D);
    # python's timedelta folds them into days, which ical-oracle.py then applies on the wall clock.
    if re.search(r"(?im)^(?:TRIGGER|DURATION)[^:\n]*:[-+]?P[^\n]*T(?:\d*?(?:2[4-9]|[3-9]\d|\d{3,})H|\d{4,}M)", "\n".join(unfolded(text))) \
            and res["only_herald"] and len(res["only_herald"]) == len(res["only_oracle"]):
        def sec(k):
            return dt.datetime.strptime(k[0], "%Y-%m-%dT%H:%M:%SZ")
        pairs = zip(sorted(res["only_herald"], key=lambda k: (k[1], k[0])), sorted(res["only_oracle"], key=lambda k: (k[1], k[0])))
        if all(a[1] == b[1] and abs((sec(a) - sec(b)).total_seconds()) == 3600 for a, b in pairs):
            causes.append("a TRIGGER/DURATION of 24 hours or more across a DST change: exact in Herald (RFC 5545 3.3.6), "
                          "a nominal day in the oracle (timedelta folds PT24H into 1 day)")
    res["causes"] = causes
    res["valarms_without_action"] = sum(
        1 for m in re.finditer(r"(?ims)^BEGIN:VALARM\s*$(.*?)^END:VALARM", "\n".join(unfolded(text)))
        if not re.search(r"(?im)^ACTION[;:]", m.group(1)))
    res["note"] = args.notes.get(res["file"])
    res["agree"] = not res["only_herald"] and not res["only_oracle"] and not oerror and rows is not None
    res["oracle_partial"] = bool(oerror and orows is not None)
    return res


def check(results, notes):
    """What differs from the notes: (file, zone, what) for each."""
    out = []
    for r in results:
        note = notes.get(r["file"])
        counts = [len(r["only_herald"]), len(r["only_oracle"])]
        if r["agree"]:
            if note and r["zone"] in note.get("counts", {}):
                out.append((r["file"], r["zone"], f"agrees now; the notes say {note['counts'][r['zone']]} (remove the note or its zone)"))
            continue
        if not note:
            out.append((r["file"], r["zone"], f"disagrees ({counts[0]} only Herald, {counts[1]} only the oracle) and no note says why"))
        elif note.get("counts", {}).get(r["zone"]) != counts:
            out.append((r["file"], r["zone"], f"only Herald / only the oracle {counts}, the notes say {note.get('counts', {}).get(r['zone'])}"))
        elif note.get("kind") == "unexplained":
            out.append((r["file"], r["zone"], "disagrees and its note does not say why yet"))
    return out


def report(args, results):
    agree = [r for r in results if r["agree"]]
    differ = [r for r in results if not r["agree"]]
    tot = lambda k: sum(r[k] for r in results)
    print(f"# Herald vs oracle: {len({r['file'] for r in results})} files with BEGIN:VALARM under {args.corpus}, zones {', '.join(args.zone)}")
    print(f"# herald {args.herald}, oracle {args.oracle}, per-file windows")
    print()
    print(f"file runs agreeing:        {len(agree)}  (of which {sum(1 for r in agree if r['herald'])} with alarms, "
          f"{sum(1 for r in agree if not r['herald'])} with none on either side)")
    print(f"file runs disagreeing:     {len(differ)}  (each written down in {os.path.relpath(NOTES)})")
    print(f"alarm instants: herald {tot('herald')}, oracle {tot('oracle')}, equal {tot('both')}, "
          f"only herald {sum(len(r['only_herald']) for r in results)}, only oracle {sum(len(r['only_oracle']) for r in results)}")
    print()
    print("## Disagreements by kind (file runs; instants only Herald has / only the oracle has)")
    bykind = defaultdict(list)
    for r in differ:
        bykind[(r["note"] or {}).get("kind", "(no note)")].append(r)
    for kind, rs in sorted(bykind.items(), key=lambda kv: -len(kv[1])):
        print(f"  {kind:18s} {len(rs):3d}  only-herald {sum(len(r['only_herald']) for r in rs):6d}  "
              f"only-oracle {sum(len(r['only_oracle']) for r in rs):7d}")
    print()
    print("## Disagreeing files")
    for r in sorted(differ, key=lambda r: (r["file"], r["zone"])):
        print(f"- {r['file']} ({r['zone']})  [{r['from']} .. {r['to']}]  herald {r['herald']} (exit {r['herald_status']}), "
              f"oracle {r['oracle'] if not r['oracle_error'] else ('ERROR' if not r['oracle_partial'] else str(r['oracle']) + ' (partial)')}, equal {r['both']}, "
              f"only-herald {len(r['only_herald'])}, only-oracle {len(r['only_oracle'])}")
        for ln, m in r["herald_problems"][:3]:
            print(f"    herald: line {ln}: {m[:160]}")
        if r["oracle_error"]:
            print(f"    oracle: {r['oracle_error']}")
        for c in r["causes"]:
            print(f"    cause (auto): {c}")
        if r["note"]:
            print(f"    {r['note']['kind'].upper()}: {r['note']['why']}")
        for k in r["only_herald"][:3]:
            print(f"    only herald: {k[0]} {k[1][:60]}")
        for k in r["only_oracle"][:3]:
            print(f"    only oracle: {k[0]} {k[1][:60]}")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--corpus", default=default_corpus())
    p.add_argument("--herald", required=True, help="the herald binary")
    p.add_argument("--oracle", default=ORACLE)
    p.add_argument("--zone", action="append", help="a zone to run in (repeatable; default Europe/Berlin and America/New_York)")
    p.add_argument("-j", "--jobs", type=int, default=2)
    p.add_argument("--timeout", type=float, default=60, help="seconds for herald per file")
    p.add_argument("--oracle-timeout", type=float, default=300)
    p.add_argument("--only", nargs="*", default=[], help="only files whose path contains one of these")
    p.add_argument("--json", help="also write every file's result here")
    p.add_argument("--check", action="store_true", help="exit 1 when a result differs from the notes")
    p.add_argument("--write-counts", action="store_true", help="rewrite the notes' counts from this run")
    args = p.parse_args()
    args.zone = args.zone or ["Europe/Berlin", "America/New_York"]
    if not os.path.isdir(args.corpus):
        sys.exit(f"ical-wild.py: no corpus at {args.corpus} (set HERALD_ICAL_WILD to the ical-wild folder)")
    with open(NOTES, encoding="utf-8") as f:
        args.notes = json.load(f)
    paths = []
    for d, _, fs in os.walk(args.corpus):
        for f in fs:
            if f.endswith(".ics"):
                full = os.path.join(d, f)
                if args.only and not any(s in full for s in args.only):
                    continue
                with open(full, "rb") as fh:
                    if b"BEGIN:VALARM" in fh.read().upper():
                        paths.append(full)
    paths.sort()
    with tempfile.TemporaryDirectory(prefix="herald-ical-wild-") as home:
        with cf.ThreadPoolExecutor(args.jobs) as ex:
            results = list(ex.map(lambda pz: compare(args, pz[0], home, pz[1]), [(q, z) for z in args.zone for q in paths]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1, default=str)
    report(args, results)
    if args.write_counts:
        notes = args.notes
        for r in results:
            if r["agree"]:
                if r["file"] in notes:
                    notes[r["file"]].get("counts", {}).pop(r["zone"], None)
                continue
            note = notes.setdefault(r["file"], {"kind": "unexplained", "why": "(not written yet)"})
            note.setdefault("counts", {})[r["zone"]] = [len(r["only_herald"]), len(r["only_oracle"])]
        notes = {k: v for k, v in sorted(notes.items()) if v.get("counts")}
        with open(NOTES, "w", encoding="utf-8") as f:
            json.dump(notes, f, indent=1, ensure_ascii=False)
            f.write("\n")
        print(f"\nwrote {os.path.relpath(NOTES)}: {len(notes)} files")
    if args.check:
        problems = check(results, args.notes)
        print()
        for file, zone, what in problems:
            print(f"NOT AS WRITTEN: {file} ({zone}): {what}")
        print(f"check: {len(problems)} result(s) differ from {os.path.relpath(NOTES)}" if problems else
              f"check: every disagreement is the one written down ({len([r for r in results if not r['agree']])} file runs)")
        sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
