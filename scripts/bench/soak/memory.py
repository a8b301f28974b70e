"""heraldd's memory, measured idle and the same way at both points of the run (the quiet
window and the end)."""
import json
import os
import signal
import time

from .common import SoakError, iso
from herald_scripts.procfs import status as proc_status


class Memory:
    """Part of Soak (harness.py): the memory measurements."""

    def measure_idle(self, d, point, probes=20):
        """heraldd's VmRSS, idle, the same way at both points: a small import (`probes` jobs due a
        second later: heraldd files it and, as after every batch, hands freed memory back with
        malloc_trim), shown; then every popup cleared; then idle. Returns (that, the VmRSS found on
        arrival, before the import)."""
        arrival = self.settle_rss(d["pid"], "arrival")
        now = time.time()
        path = os.path.join(self.batches, f"probe-{point}.jsonl")
        ids = [f"m{point * 1000 + k:06d}" for k in range(probes)]
        with open(path, "w") as f:
            for k, mid in enumerate(ids):
                self.probes[mid] = now + 1 + k * 0.01
                f.write(json.dumps({"version": 1, "kind": "reminder", "id": mid, "at": iso(now + 1 + k * 0.01),
                                    "title": f"Probe {mid}", "text": f"soak {mid} (memory probe)"}) + "\n")
        self.cli("import", path, check=True)
        self.wait_for(lambda: all(self.shown_count[m] for m in ids) and self.count_jobs("m") == 0
                      and not os.listdir(os.path.join(self.spool, "new")), 30, "the memory probe's popups")
        self.clear_popups()
        return self.settle_rss(d["pid"], f"measurement {point}"), arrival

    def clear_popups(self):
        """The user clears every popup on screen (the server closes them, reason 2)."""
        if self.server is None:  # still down after a kill: it comes back now
            self.start_server()
        before = self.clears_seen
        os.kill(self.server.pid, signal.SIGUSR1)
        self.wait_for(lambda: self.clears_seen > before, 10, "the server's clear-all")

    def settle_rss(self, pid, what):
        """VmRSS once heraldd is idle: nothing in new/, no popup for 2 s, then samples 0.5 s apart
        until three agree within 0.5 % (at most 15 s)."""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            self.poll_server_logs()
            if not os.listdir(os.path.join(self.spool, "new")) and time.time() - self.last_notify >= 2:
                break
            time.sleep(0.1)
        samples = []
        end = time.monotonic() + 15
        while time.monotonic() < end:
            samples.append(proc_status(pid, "VmRSS"))
            last = samples[-3:]
            if len(last) == 3 and None not in last and max(last) - min(last) <= 0.005 * max(last):
                break
            time.sleep(0.5)
        if samples[-1] is None:
            raise SoakError(f"heraldd gone while measuring {what}")
        return samples[-1]
