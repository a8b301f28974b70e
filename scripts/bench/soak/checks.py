"""The checks after the run: what the server received, what heraldd recorded, each job's shows,
the habits, the spool, memory and descriptors, the watchdog, crashes and the log."""
import collections
import datetime as dt
import json
import os
import re

from .common import BG_KEY, KEY, SUMMARY, UTC, iso, n, parse_iso
from herald_scripts.procfs import fd_kinds


class Checks:
    """Part of Soak (harness.py): analyse() turns the run's records into problems and figures."""

    def analyse(self):
        r = {}
        problems = self.problems
        jobs = self.jobs
        kills, server_kills = self.stats["heraldd_kills"], self.stats["server_kills"]
        allowed = 1 + kills

        # What the server received.
        direct = collections.Counter()
        direct_times = collections.defaultdict(list)
        summaries, summary_lines, habit_popups, strangers, replaced_other = 0, 0, [], [], []
        template_bad, template_checked = [], 0
        versions = sorted(self.config_versions, key=lambda v: v[1])
        with open(self.notify_log, encoding="utf-8") as f:
            records = [json.loads(line) for line in f if line.strip()]
        for rec in records:
            cat = rec["hints"].get("category", "")
            text = rec["summary"] + "\n" + rec["body"]
            if cat == "x-herald.reminder":
                keys = KEY.findall(text)
                if BG_KEY.search(text):
                    problems.append(f"a background job was shown: {rec['summary']!r}")
                    continue
                if len(set(keys)) != 1:
                    strangers.append(rec)
                    continue
                jid = keys[0]
                direct[jid] += 1
                direct_times[jid].append(rec["t"])
                if jid.startswith("m"):
                    continue
                if rec.get("replaced") and jid not in rec["replaced"]:
                    replaced_other.append((jid, rec["replaced"], iso(rec["t"])))
                # The template in effect: the last version effective 0.3 s before, unless a newer one
                # was written (and not yet in effect) by then.
                t = rec["t"]
                written = [v for v in versions if v[1] <= t]
                if written and written[-1][2] is not None and written[-1][2] <= t - 0.3:
                    template_checked += 1
                    if f"[c{written[-1][0]}]" not in rec["summary"]:
                        template_bad.append((rec["summary"], written[-1][0]))
            elif cat == "x-herald.summary":
                summaries += 1
                m = SUMMARY.match(rec["summary"])
                if m:
                    summary_lines += int(m.group(1))
                else:
                    strangers.append(rec)
            elif cat == "x-herald.habit":
                habit_popups.append(rec)
            else:
                strangers.append(rec)
        probes_missing = [m for m in self.probes if direct[m] == 0]
        if probes_missing:
            problems.append(f"{len(probes_missing)} of the memory probes' {len(self.probes)} jobs not shown, e.g. {probes_missing[:3]}")
        if replaced_other:
            problems.append(f"{len(replaced_other)} popups replaced another job's popup in place (a replaces_id "
                            f"from before a server restart), e.g. {replaced_other[:2]}")

        # What the server was asked to close, and what it closed by itself.
        closes = collections.Counter()       # (job id, reason) -> closings the server signalled
        misdirected = []
        for ev in self.read_all(self.events_log):
            keys = KEY.findall(ev.get("summary") or "")
            if ev["ev"] == "closed" and keys:
                closes[(keys[0], ev["reason"])] += 1
            if ev["ev"] == "close-request" and ev.get("open") and ev.get("category") == "x-herald.reminder" and keys:
                # Herald closes a reminder's popup when the job is snoozed (or cancelled, acknowledged)
                # from the shell; the soak only snoozes shown jobs.
                job = jobs.get(keys[0]) or {}
                if not any(ev["t"] - 10 <= t <= ev["t"] + 1 for t in job.get("snooze_times", [])):
                    misdirected.append((keys[0], ev["id"], ev["inc"], iso(ev["t"])))
        if misdirected:
            problems.append(f"heraldd closed {len(misdirected)} popups of jobs nobody acted on (CloseNotification with an "
                            f"id from before a server restart?), e.g. {misdirected[:2]}")
        if strangers:
            problems.append(f"{len(strangers)} popups not traced to a job, e.g. {strangers[0]['summary']!r} / {strangers[0]['body']!r}")
        if template_bad:
            problems.append(f"{len(template_bad)} of {n(template_checked)} reminder popups after a reload lacked its "
                            f"template, e.g. {template_bad[0][0]!r} (expected [c{template_bad[0][1]}])")

        # What heraldd recorded.
        endings = collections.Counter()
        habit_history = set()  # habits shown, on their own or in a summary
        summarized = collections.Counter()
        recorded = collections.Counter()
        first_record = {}
        outcomes = collections.Counter()
        bad_outcomes = []
        with open(os.path.join(self.spool, "history.jsonl"), encoding="utf-8") as f:
            for line in f:
                try:
                    h = json.loads(line)
                except ValueError:
                    problems.append(f"an unreadable line in history.jsonl: {line[:120]!r}")
                    continue
                outcomes[h["outcome"]] += 1
                if h["outcome"] in ("dismissed", "expired", "done") and KEY.fullmatch(h["id"]):
                    endings[(h["id"], h["outcome"])] += 1
                if h["outcome"] in ("missed", "failed"):
                    bad_outcomes.append(h)
                if h["outcome"] == "shown" and h.get("kind") == "habit":
                    habit_history.add(h["id"])
                if h["outcome"] == "shown" and h["id"] in jobs:
                    t = parse_iso(h["time"])
                    first_record.setdefault(h["id"], t)
                    if h.get("note") == "in a summary":
                        summarized[h["id"]] += 1
                    else:
                        recorded[h["id"]] += 1
        for h in bad_outcomes[:3]:
            problems.append(f"history.jsonl: {h['id']} {h['outcome']} ({h.get('note', '')})")
        if len(bad_outcomes) > 3:
            problems.append(f"history.jsonl: {len(bad_outcomes)} occurrences missed or failed in all")
        # Every ending in the history must be one the server signalled (a dismissal, an expiry; the
        # server presses no button on reminders): else a signal for one popup was taken for another's.
        wrong_endings = [(j, oc, c) for (j, oc), c in endings.items()
                         if c > (closes[(j, 2)] if oc == "dismissed" else closes[(j, 1)] if oc == "expired" else 0)]
        if wrong_endings:
            problems.append(f"{len(wrong_endings)} popup endings in history.jsonl that the server never signalled for "
                            f"that job, e.g. {wrong_endings[:3]}")
        ghost = [j for j in recorded if recorded[j] > direct[j]]
        if ghost:
            problems.append(f"{len(ghost)} jobs recorded as shown more often than the server received them, "
                            f"e.g. {ghost[0]} (recorded {recorded[ghost[0]]}, received {direct[ghost[0]]})")
        if sum(summarized.values()) > summary_lines:
            problems.append(f"history records {sum(summarized.values())} jobs shown in summaries; the summaries "
                            f"the server received list {summary_lines}")

        # Per job.
        lost, missing_snooze, cancelled_shown, too_many, early = [], [], [], [], []
        expected_total = shown_jobs = 0
        max_extra, max_extra_job, extra_jobs, extra_total = 0, None, 0, 0
        for jid, job in jobs.items():
            if job.get("lost_at_source") or "issued" not in job:
                continue
            shows = direct[jid] + summarized[jid]
            if job.get("cancelled"):
                if shows:
                    cancelled_shown.append(jid)
                continue
            expected = 1 + job.get("snoozes", 0)
            expected_total += 1
            if shows:
                shown_jobs += 1
            if shows == 0:
                lost.append(jid)
            elif shows < expected:
                missing_snooze.append((jid, shows, expected))
            extra = shows - expected
            if extra > 0:
                extra_jobs += 1
                extra_total += extra
            if extra > max_extra:
                max_extra, max_extra_job = extra, jid
            if extra > allowed:
                too_many.append((jid, shows, expected))
            if job.get("rescheduled"):
                new_due = job["rescheduled"][-1][1]
                firsts = [t for t in direct_times[jid]] + ([first_record[jid]] if summarized[jid] else [])
                if firsts and min(firsts) < new_due - 0.05:
                    early.append((jid, min(firsts) - new_due))
        for ids, what in ((lost, "jobs never shown (lost)"), (cancelled_shown, "cancelled jobs shown"),
                          (missing_snooze, "jobs shown fewer times than 1 + their snoozes"),
                          (too_many, f"jobs shown more than expected + {allowed} (1 + heraldd kills)"),
                          (early, "rescheduled jobs shown before their new time")):
            if ids:
                problems.append(f"{len(ids)} {what}, e.g. {ids[:3]}")

        # Habits.
        habit_ids = {name: re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") for name in self.habits_added}
        habit_shows = collections.Counter(rec["summary"] for rec in habit_popups)
        for name in self.habits_added:
            if habit_shows[name] == 0 and habit_ids[name] not in habit_history:
                problems.append(f"habit {name!r} was never shown")
        recorded_done, shown_while_done = 0, []
        for name, hid in habit_ids.items():
            entries = []
            removed = os.path.join(self.spool, "habits", "removed")
            for path in [os.path.join(self.spool, "habits", hid + ".jsonl")] + sorted(
                    os.path.join(removed, x) for x in (os.listdir(removed) if os.path.isdir(removed) else [])
                    if x.startswith(hid + ".") and x.endswith(".jsonl")):
                if os.path.exists(path):
                    with open(path) as f:
                        for line in f:
                            try:
                                e = json.loads(line)
                            except ValueError:
                                continue
                            if "done" in e and "at" in e:
                                entries.append((parse_iso(e["at"]), e["date"], e["done"], e.get("by")))
                    break
            entries.sort()
            recorded_done += sum(1 for e in entries if e[2] and e[3] == "popup")
            for rec in habit_popups:
                if rec["summary"] != name:
                    continue
                day = dt.datetime.fromtimestamp(rec["t"], UTC).date().isoformat()
                before = [e for e in entries if e[1] == day and e[0] <= rec["t"] - 1.0]
                near = [e for e in entries if e[1] == day and rec["t"] - 1.0 < e[0] <= rec["t"]]
                if before and before[-1][2] and not near:
                    shown_while_done.append((name, iso(rec["t"])))
        if shown_while_done:
            problems.append(f"{len(shown_while_done)} habit popups while the day was done, e.g. {shown_while_done[:2]}")
        if self.stats["done_presses"] and recorded_done == 0:
            problems.append("no Done press was recorded in any habit log")

        # The spool.
        new_left = os.listdir(os.path.join(self.spool, "new"))
        failed = os.listdir(os.path.join(self.spool, "failed"))
        if new_left:
            problems.append(f"{len(new_left)} files left in new/, e.g. {new_left[:3]}")
        if failed:
            problems.append(f"{len(failed)} files in failed/, e.g. {failed[:3]}")

        # Memory and descriptors.
        rss_growth = (self.rss_after - self.rss_before) / self.rss_before
        if abs(rss_growth) > 0.10:
            problems.append(f"heraldd VmRSS {self.rss_before / 1024:.1f} MiB before, {self.rss_after / 1024:.1f} MiB "
                            f"after: {rss_growth:+.1%}, beyond 10 %")
        last = self.last
        fds_ready, fds_after = last["fds_ready"], self.fds_after
        if len(fds_after) > len(fds_ready):
            extra = fd_kinds(fds_after) - fd_kinds(fds_ready)
            problems.append(f"the last heraldd held {len(fds_ready)} fds after READY=1 and {len(fds_after)} at the end: "
                            + ", ".join(f"+{c} {k}" for k, c in extra.items()))
        if last["server_kills"] == 0:
            problems.append("the last heraldd lived through no notification-server restart (the fd check is weaker)")

        # The watchdog: systemd restarts heraldd when WATCHDOG=1 stops for WatchdogSec (30 s).
        pings = collections.defaultdict(list)
        with self.notify.cond:
            for t, pid, text in self.notify.messages:
                if "WATCHDOG=1" in text.split("\n"):
                    pings[pid].append(t)
        watchdog_gap = 0.0
        for d in self.daemons:
            times = pings.get(d["pid"], [])
            if d is self.last:
                times = times + [self.measured_at]
            gaps = [b - a for a, b in zip(times, times[1:])]
            watchdog_gap = max([watchdog_gap] + gaps)
        if watchdog_gap > 30:
            problems.append(f"heraldd went {watchdog_gap:.1f} s without WATCHDOG=1 (WatchdogSec=30s: systemd would restart it)")

        # Crashes and the log.
        for run, status, tail in self.crashes:
            problems.append(f"heraldd (run {run}) exited with status {status}, not by our SIGKILL; its log ended:\n{tail}")
        levels = collections.Counter()
        serious = []
        for k in range(1, self.daemon_runs + 1):
            try:
                with open(os.path.join(self.work, f"heraldd-{k}.log"), errors="replace") as f:
                    for line in f:
                        m = re.search(r": (warning|error|critical): ", line)
                        if m:
                            levels[m.group(1)] += 1
                            if m.group(1) != "warning" and len(serious) < 5:
                                serious.append(f"run {k}: {line.strip()}")
            except OSError:
                pass
        for line in serious:
            problems.append(f"heraldd logged {line}")

        r.update(expected=expected_total, shown_jobs=shown_jobs, popups=len(records), direct=sum(direct.values()),
                 summaries=summaries, summarized=sum(summarized.values()), habit_popups=len(habit_popups),
                 max_extra=max_extra, max_extra_job=max_extra_job, allowed=allowed, extra_jobs=extra_jobs,
                 extra_total=extra_total, new_left=len(new_left), failed=len(failed), rss_growth=rss_growth,
                 recorded_done=recorded_done, outcomes=outcomes, levels=levels, template_checked=template_checked,
                 cancelled=sum(1 for j in jobs.values() if j.get("cancelled")),
                 lost=len(lost), fds_ready=len(fds_ready), fds_after=len(fds_after), watchdog_gap=watchdog_gap)
        return r
