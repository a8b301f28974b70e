"""Carrying out the plan: each kind of event (an import, a reminder, a cancel, a kill, ...) and
the loop that runs them on time."""
import heapq
import json
import os
import re
import signal
import time

from .common import iso, n, say
from herald_scripts.procfs import fd_snapshot, fd_steady, status as proc_status


class Workload:
    """Part of Soak (harness.py): the workload."""

    def at(self, offset):
        return self.w0 + offset

    def push(self, wall, kind, payload):
        self.seq += 1
        heapq.heappush(self.heap, (wall, self.seq, kind, payload))

    def job_line(self, jid, due, via):
        return json.dumps({"version": 1, "kind": "reminder", "id": jid, "at": iso(due), "title": f"Job {jid}",
                           "text": f"soak {jid} via {via}"}, separators=(",", ":"))

    def do_import(self, p):
        path = os.path.join(self.batches, f"batch-{p['batch']:03d}.jsonl")
        with open(path, "w") as f:
            for jid in p["ids"]:
                f.write(self.job_line(jid, self.jobs[jid]["due"], f"import b{p['batch']}") + "\n")
        code, _, err = self.cli("import", path)
        if code != 0:
            self.problems.append(f"herald import of batch {p['batch']} exited {code}: {err.strip()[:300]}")
            for jid in p["ids"]:
                self.jobs[jid]["lost_at_source"] = True
            return
        now = time.time()
        for jid in p["ids"]:
            self.jobs[jid]["issued"] = now
            self.issued.append(jid)
        self.stats["imports"] += 1
        self.intake_event()

    def not_yet_due(self, job):
        """Now; a job whose time is less than a second away (the plan ran late) is moved 2 s
        ahead, so that it is issued before it is due."""
        now = time.time()
        if job["due"] < now + 1:
            job["due"] = now + 2
            self.stats["late_issues"] += 1
        return now

    def do_remind(self, p):
        jid = p["id"]
        job = self.jobs[jid]
        now = self.not_yet_due(job)
        if p["mode"] == "in":
            ms = int((job["due"] - now) * 1000)
            job["due"] = now + ms / 1000  # herald starts a moment later: its due is at most that much later
            code, _, err = self.cli("remind", "--in", f"{ms}ms", "--id", jid, "--title", f"Job {jid}", f"soak {jid} via remind --in")
        else:
            code, _, err = self.cli("remind", "--at", iso(job["due"]), "--id", jid, "--title", f"Job {jid}",
                                    f"soak {jid} via remind --at")
        if code != 0:
            self.problems.append(f"herald remind for {jid} exited {code}: {err.strip()[:300]}")
            job["lost_at_source"] = True
            return
        job["issued"] = time.time()
        self.issued.append(jid)
        self.stats["reminds"] += 1
        self.intake_event()

    def do_file(self, p):
        jid = p["id"]
        job = self.jobs[jid]
        now = self.not_yet_due(job)
        tmp = os.path.join(self.spool, "tmp", jid + ".json")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(self.job_line(jid, job["due"], "file") + "\n")
            f.flush()
            os.fsync(f.fileno())
        os.rename(tmp, os.path.join(self.spool, "new", jid + ".json"))
        self.act("file", id=jid, due=iso(job["due"]))
        job["issued"] = time.time()
        self.issued.append(jid)
        self.stats["files"] += 1
        self.intake_event()

    def intake_event(self):
        if self.daemon is not None and self.daemons:
            self.daemons[-1]["intake"] += 1

    def pending_candidates(self, count, min_ahead):
        """Up to `count` jobs taken in at least 2 s ago, due at least `min_ahead` s from now,
        not cancelled, not yet shown."""
        now = time.time()
        out = set()
        for _ in range(50 * count):
            if len(out) >= count or not self.issued:
                break
            jid = self.issued[self.rng.randrange(len(self.issued))]
            job = self.jobs[jid]
            if (job.get("cancelled") or jid in self.shown_at or job["issued"] > now - 2
                    or job["due"] < now + min_ahead or job.get("snoozes")):
                continue
            out.add(jid)
        return sorted(out)

    def do_cancel(self, p):
        ids = self.pending_candidates(p["count"], 15 * self.lead)
        if not ids:
            self.stats["cancel_no_candidate"] += 1
            return
        code, out, err = self.cli("cancel", *ids)
        done = set(re.findall(r"^Cancelled (j\d{6})\b", out, re.M))
        for jid in done:
            self.jobs[jid]["cancelled"] = time.time()
        self.stats["cancels"] += len(done)
        self.stats["cancel_commands"] += 1
        if code != 0:
            self.stats["cancel_refused"] += len(ids) - len(done)
            self.notes.append(f"herald cancel {' '.join(ids)} exited {code}: {err.strip()[:200]}")

    def latest(self, now):
        """How late a job may be made due from now: before the quiet window, or the last due time."""
        if now < self.at(self.plan.qs):
            return self.at(self.plan.qs) - 2 * self.lead
        return self.at(self.plan.last_due)

    def do_reschedule(self, p):
        ids = self.pending_candidates(1, 10 * self.lead)
        now = time.time()
        hi = self.latest(now)
        if not ids or now + 5 * self.lead >= hi:
            self.stats["reschedule_no_candidate"] += 1
            return
        jid = ids[0]
        new = self.rng.uniform(now + 5 * self.lead, hi)
        if p["mode"] == "in":
            ms = int((new - now) * 1000)
            new = now + ms / 1000
            code, _, err = self.cli("reschedule", jid, "--in", f"{ms}ms")
        else:
            code, _, err = self.cli("reschedule", jid, "--at", iso(new))
        if code != 0:
            self.stats["reschedule_refused"] += 1
            self.notes.append(f"herald reschedule {jid} exited {code}: {err.strip()[:200]}")
            return
        self.jobs[jid].setdefault("rescheduled", []).append((time.time(), new))
        self.jobs[jid]["due"] = new
        self.stats["reschedules"] += 1

    def do_snooze(self, p):
        now = time.time()
        hi = self.latest(now)
        jid = None
        for _ in range(50):
            if not self.shown_list:
                break
            j = self.shown_list[self.rng.randrange(len(self.shown_list))]
            # Shown at least a second ago, and not waiting for a snoozed show (a second snooze would
            # only put that off, not add a show).
            if (self.shown_at[j] < now - 1 and j in self.jobs and not self.jobs[j].get("cancelled")
                    and self.shown_count[j] >= 1 + self.jobs[j].get("snoozes", 0)):
                jid = j
                break
        if jid is None or now + 3 >= hi:
            self.stats["snooze_no_candidate"] += 1
            return
        span = min(self.rng.uniform(5, 60) * self.lead, hi - now)
        code, out, err = self.cli("snooze", jid, f"{int(span * 1000)}ms")
        if code != 0:
            self.stats["snooze_refused"] += 1
            self.notes.append(f"herald snooze {jid} exited {code}: {err.strip()[:200]}")
            return
        self.jobs[jid]["snoozes"] = self.jobs[jid].get("snoozes", 0) + 1
        self.jobs[jid].setdefault("snooze_times", []).append(now)
        self.stats["snoozes"] += 1

    def do_habit(self, p):
        code, out, err = self.cli("habit", "add", p["name"], "--every", p["every"])
        if code != 0:
            self.problems.append(f"herald habit add {p['name']!r} exited {code}: {err.strip()[:200]}")
            return
        self.habits_added[p["name"]] = time.time()
        self.stats["habits"] += 1
        self.intake_event()

    def schedule_undo(self, name, pressed):
        """After a Done press, `herald habit undo` before the habit's next reminder, so that it shows again."""
        offset = next((o for n_, _, o in self.plan.habits if n_ == name), None)
        if offset is None:
            return
        after = pressed + 1.0  # heraldd records the press first
        nxt = (int(pressed) // 30) * 30 + offset
        while nxt <= pressed:
            nxt += 30
        if nxt - after < 2.5:
            return  # no room before the next reminder: the habit stays done today
        self.push(self.rng.uniform(after, nxt - 1.5), "undo", {"name": name})

    def do_undo(self, p):
        code, out, err = self.cli("habit", "undo", p["name"])
        self.stats["undos" if code == 0 else "undo_refused"] += 1

    def do_reload(self, p):
        k = self.config_version + 1
        self.write_config(k)
        self.stats["reloads"] += 1
        if self.daemon is None:
            return  # heraldd reads it when it starts
        mark = self.notify.mark()
        os.kill(self.daemon.pid, signal.SIGHUP)
        t1 = self.notify.wait(self.daemon.pid, "RELOADING=1", mark, 10, self.daemon)
        t2 = self.notify.wait(self.daemon.pid, "READY=1", mark, 10, self.daemon) if t1 else None
        if t2 is None:
            self.problems.append(f"reload {k}: no RELOADING=1 and READY=1 from heraldd within 10 s of SIGHUP")
            return
        self.config_versions[-1][2] = t2
        self.daemons[-1]["reloads"] += 1

    def do_quiet(self, p):
        """The quiet window: once every run job so far is done, the user clears the popups and
        heraldd idles; its VmRSS then is the "before"."""
        if self.daemon is None:
            self.start_daemon()
        d = self.daemons[-1]
        deadline = self.at(self.plan.qe) - 20 * self.lead
        while not (self.count_jobs("j") == 0 and not os.listdir(os.path.join(self.spool, "new"))):
            if time.time() > deadline:
                self.notes.append(f"the quiet window began with {self.count_jobs('j')} run jobs still in jobs/")
                break
            self.check_children()
            self.poll_server_logs()
            time.sleep(0.1)
        self.quiet = d
        self.rss_before, self.rss_before_untrimmed = self.measure_idle(d, 0)
        self.hwm_before = proc_status(d["pid"], "VmHWM")
        self.fds_quiet = fd_steady(d["pid"])
        self.quiet_at = time.time()
        self.quiet_counts = {"intake": d["intake"], "server_kills": d["server_kills"], "reloads": d["reloads"],
                             "popups": self.popups_seen}
        say(f"quiet window: heraldd (run {d['run']}) idle at VmRSS {self.rss_before / 1024:.1f} MiB, {len(self.fds_quiet)} fds")

    def do_kill_heraldd(self, p):
        if self.daemon is None:
            return
        self.kill_daemon()
        self.stats["heraldd_kills"] += 1
        self.push(time.time() + p["down"], "start-heraldd", {})

    def do_start_heraldd(self, p):
        if self.daemon is None:
            self.start_daemon()

    def do_kill_server(self, p):
        if self.server is None:
            return
        self.kill_server()
        self.stats["server_kills"] += 1
        if self.daemon is not None:
            self.daemons[-1]["server_kills"] += 1
        self.push(time.time() + p["down"], "start-server", {})

    def do_start_server(self, p):
        if self.server is None:
            self.start_server()

    def run_workload(self):
        args = self.args
        self.jobs = self.plan.jobs
        self.issued = []
        self.habits_added = {}
        self.heap, self.seq = [], 0
        self.w0 = time.time()
        for job in self.jobs.values():
            job["due"] += self.w0
        for t, kind, payload in self.plan.events:
            self.push(self.at(t), kind, payload)
        say(f"workload: {n(len(self.jobs))} jobs due over {args.minutes:g} min, {len(self.plan.kills)} heraldd kills "
            f"planned, seed {args.seed}")
        handlers = {"import": self.do_import, "remind": self.do_remind, "file": self.do_file,
                    "cancel": self.do_cancel, "reschedule": self.do_reschedule, "snooze": self.do_snooze,
                    "habit": self.do_habit, "undo": self.do_undo, "reload": self.do_reload,
                    "kill-heraldd": self.do_kill_heraldd, "start-heraldd": self.do_start_heraldd,
                    "kill-server": self.do_kill_server, "start-server": self.do_start_server, "quiet": self.do_quiet}
        end = self.at(self.plan.T)
        next_report = time.time() + 30
        next_sample = time.time()
        max_lag = 0.0
        while True:
            now = time.time()
            self.check_children()
            self.poll_server_logs()
            if self.heap and self.heap[0][0] <= now:
                wall, _, kind, payload = heapq.heappop(self.heap)
                if kind != "undo":
                    max_lag = max(max_lag, now - wall)
                handlers[kind](payload)
                continue
            if now >= end and not any(k in ("start-heraldd", "start-server") for _, _, k, _ in self.heap):
                break
            if now >= next_sample and self.daemon is not None:
                next_sample = now + 5
                self.daemons[-1]["rss_series"].append((now, proc_status(self.daemon.pid, "VmRSS"), self.popups_seen,
                                                       len(fd_snapshot(self.daemon.pid) or {}), self.count_jobs()))
            if now >= next_report:
                next_report = now + 30
                say(f"{now - self.w0:5.0f} s: {n(len(self.shown_at))} jobs shown, {self.stats['heraldd_kills']} heraldd kills, "
                    f"{self.stats['server_kills']} server kills, {self.stats['cancels']} cancels, "
                    f"{self.stats['snoozes']} snoozes, {self.stats['reschedules']} reschedules, "
                    f"{self.stats['done_presses']} Done presses")
            wait = min(0.05, (self.heap[0][0] - now) if self.heap else 0.05, max(0.0, end - now) or 0.05)
            time.sleep(max(0.001, wait))
        self.stats["max_lag_ms"] = int(max_lag * 1000)
        self.heap = []  # undos still waiting are moot now
