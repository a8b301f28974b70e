"""heraldd in the foreground, as the bench drives it: its log lines and console popups read by
threads, its memory from /proc, and the calendar jobs it filed in jobs/."""
import os
import re
import signal
import subprocess
import threading
import time

from herald_scripts import procfs

from .common import BenchError


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
        """A /proc/PID/status figure in MiB (VmRSS, VmHWM), of heraldd and its calendar readers."""
        if not os.path.exists(f"/proc/{self.pid}/status"):
            raise BenchError(f"no /proc/{self.pid}/status")
        return procfs.family_status(self.pid, key) / 1024

    def pss(self):
        """heraldd's and its calendar readers' proportional set size in MiB (shared pages once)."""
        return procfs.family_pss(self.pid) / 1024

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
