"""Soak: the run's state and what it does with it. Its parts are mixed in from the modules beside
this one (one job each); they share this one object's attributes, set in __init__ and by
setup()."""
import collections
import json
import os
import random
import shutil
import signal
import subprocess
import tempfile
import time

from .checks import Checks
from .common import SoakError, iso, n, say
from .memory import Memory
from .plan import Plan
from herald_scripts.notify_socket import NotifySocket
from herald_scripts.procfs import fd_snapshot, fd_steady, status as proc_status
from .processes import Processes
from .report import Report
from .server_log import ServerLog
from .workload import Workload


class Soak(Processes, ServerLog, Workload, Memory, Checks, Report):
    def __init__(self, args):
        self.args = args
        self.rng = random.Random(args.seed)
        self.bin = os.path.realpath(args.bin)
        self.herald = os.path.join(self.bin, "herald")
        self.heraldd = os.path.join(self.bin, "heraldd")
        for b in (self.herald, self.heraldd):
            if not os.access(b, os.X_OK):
                raise SoakError(f"no executable {b} (build first, or pass --bin DIR)")
        base = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
        os.makedirs(base, exist_ok=True)
        self.work = os.path.realpath(tempfile.mkdtemp(prefix="herald-soak-", dir=base))
        os.chmod(self.work, 0o700)
        self.sockets = tempfile.mkdtemp(prefix="herald-soak-", dir="/tmp")
        self.spool = os.path.join(self.work, "spool")
        self.config = os.path.join(self.work, "config.yaml")
        self.batches = os.path.join(self.work, "batches")
        os.mkdir(self.batches)
        # Every herald command the run gives, with its answer (kept with --keep).
        self.actions = open(os.path.join(self.work, "actions.jsonl"), "w", buffering=1)
        self.notify_log = os.path.join(self.work, "notify.jsonl")
        self.events_log = os.path.join(self.work, "server-events.jsonl")
        self.bus = None
        self.bus_address = None
        self.notify = None
        self.server = None
        self.server_pipe = None
        self.server_runs = 0
        self.daemon = None
        self.daemon_log = None
        self.daemon_runs = 0
        self.daemon_expected_exit = False
        self.problems = []
        self.notes = []
        self.stats = collections.Counter()
        self.crashes = []
        self.config_versions = []  # [k, written wall, effective wall or None]
        self.config_version = 0
        self.ready_times = []      # (pid, restart -> READY seconds)
        self.daemons = []          # dict(pid, ready, rss_ready, fds_ready, ...)

    # ------------------------------------------------------------------ environment

    @property
    def env(self):
        return {"PATH": "/usr/bin:/bin", "HOME": self.work, "LANG": "C.UTF-8", "TZ": "UTC", "USER": "soak",
                "LOGNAME": "soak", "XDG_CONFIG_HOME": os.path.join(self.work, "xdg-config"),
                "XDG_STATE_HOME": os.path.join(self.work, "xdg-state"),
                "XDG_RUNTIME_DIR": self.sockets, "DBUS_SESSION_BUS_ADDRESS": self.bus_address or "",
                "HERALD_SPOOL": self.spool, "HERALD_CONFIG": self.config}

    def cli(self, *argv, check=False):
        """Runs `herald ARGV...`; (status, stdout, stderr)."""
        t0 = time.monotonic()
        r = subprocess.run([self.herald] + list(argv), env=self.env, stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, timeout=60)
        self.stats["cli_seconds_x1000"] += int((time.monotonic() - t0) * 1000)
        self.stats["cli_runs"] += 1
        if argv[0] != "import":
            self.actions.write(json.dumps({"t": time.time(), "argv": list(argv), "status": r.returncode,
                                           "out": r.stdout.strip()[:300], "err": r.stderr.strip()[:300]}) + "\n")
        else:
            self.actions.write(json.dumps({"t": time.time(), "argv": list(argv), "status": r.returncode,
                                           "err": r.stderr.strip()[:300]}) + "\n")
        if check and r.returncode != 0:
            raise SoakError(f"herald {' '.join(argv[:3])}... exited {r.returncode}: {r.stderr.strip()}")
        return r.returncode, r.stdout, r.stderr

    def act(self, what, **fields):
        """A line in actions.jsonl for what the run did besides herald commands."""
        self.actions.write(json.dumps(dict(t=time.time(), act=what, **fields)) + "\n")

    def write_config(self, k):
        text = ("# written by scripts/bench/soak\n"
                "templates:\n"
                "  reminder:\n"
                f"    summary: \"{{title}} [c{k}]\"\n"
                "    body: \"{text}\"\n"
                "catchUp:\n"
                "  # longer than any outage of the run: jobs due while heraldd is down show late, not missed\n"
                "  grace: 2h\n"
                "defaults:\n"
                f"  snooze: {10 + k}m\n"
                "log:\n"
                "  level: info\n")
        tmp = self.config + ".tmp"
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, self.config)
        self.config_version = k
        self.config_versions.append([k, time.time(), None])
        if hasattr(self, "actions"):
            self.act("config written", version=k)

    def count_jobs(self, prefix=None):
        names = os.listdir(os.path.join(self.spool, "jobs"))
        return sum(1 for x in names if prefix is None or x.startswith(prefix))

    def wait_for(self, condition, timeout, what):
        deadline = time.monotonic() + timeout
        while not condition():
            if time.monotonic() > deadline:
                raise SoakError(f"{what} not reached within {timeout:g} s")
            self.check_children()
            self.poll_server_logs()
            time.sleep(0.1)

    def setup(self):
        self.notify = NotifySocket(os.path.join(self.sockets, "notify.sock"))
        self.start_bus()
        self.start_server()
        self.write_config(0)
        self.init_tracking()
        # The background queue: a user's future jobs, a week ahead, imported before heraldd starts.
        w = time.time() + 7 * 86400
        path = os.path.join(self.batches, "background.jsonl")
        with open(path, "w") as f:
            for k in range(self.args.background):
                bid = f"bg{k:06d}"
                f.write(json.dumps({"version": 1, "kind": "reminder", "id": bid, "at": iso(w + k),
                                    "title": f"Background {bid}", "text": f"background {bid}"}) + "\n")
        self.cli("import", path, check=True)
        first = self.start_daemon()
        self.wait_for(lambda: not os.listdir(os.path.join(self.spool, "new"))
                      and self.count_jobs("bg") == self.args.background, 120, "the background queue in jobs/")
        self.first = first
        self.rss_first = self.settle_rss(first["pid"], "the first heraldd")
        self.plan = Plan(self.args, self.rng)
        self.lead = self.plan.lead
        say(f"first heraldd: {n(self.args.background)} background jobs pending, VmRSS {self.rss_first / 1024:.1f} MiB, "
            f"{len(fd_snapshot(first['pid']) or {})} fds")

    def drain(self):
        if self.daemon is None:
            self.start_daemon()
        if self.server is None:
            self.start_server()
        say("waiting for the queue to drain")
        self.wait_for(lambda: not os.listdir(os.path.join(self.spool, "new")) and self.count_jobs("j") == 0,
                      120 + self.args.minutes * 12, "an empty queue (no run job in jobs/, nothing in new/)")
        last = self.daemons[-1]
        self.drained_at = time.time()
        self.rss_after, self.rss_after_untrimmed = self.measure_idle(last, 1)
        self.hwm_after = proc_status(last["pid"], "VmHWM")
        self.fds_after = fd_steady(last["pid"])
        self.measured_at = time.time()
        self.popups_end = self.popups_seen
        if last is not getattr(self, "quiet", None):
            self.problems.append("the heraldd measured in the quiet window is not the one at the end "
                                 "(it exited meanwhile), so the memory comparison is across two processes")
        for name in self.habits_added:
            self.cli("habit", "rm", name)
        self.wait_for(lambda: self.count_jobs() == self.args.background, 30, "only the background queue in jobs/")
        self.last = last
        say(f"drained; last heraldd (run {last['run']}): VmRSS {self.rss_after / 1024:.1f} MiB, {len(self.fds_after)} fds")
        # A clean stop.
        self.daemon_expected_exit = True
        os.kill(self.daemon.pid, signal.SIGTERM)
        try:
            code = self.daemon.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.daemon.kill()
            code = self.daemon.wait()
            self.problems.append("heraldd did not stop within 15 s of SIGTERM")
        if code != 0:
            self.problems.append(f"heraldd exited {code} on SIGTERM, not 0; its log:\n{self.tail(self.daemon_runs)}")
        self.final_exit = code
        self.daemon = None
        self.poll_server_logs()

    # ------------------------------------------------------------------ cleanup

    def cleanup(self):
        if self.daemon is not None and self.daemon.poll() is None:
            self.daemon.kill()
            self.daemon.wait()
        if self.server is not None and self.server.poll() is None:
            self.server.kill()
            self.server.wait()
        if self.bus is not None and self.bus.poll() is None:
            self.bus.terminate()
            try:
                self.bus.wait(timeout=3)
            except subprocess.TimeoutExpired:
                self.bus.kill()
                self.bus.wait()
        for p in (self.server, self.bus):
            if p is not None and p.stdout:
                p.stdout.close()
        if self.notify is not None:
            self.notify.close()
        shutil.rmtree(self.sockets, ignore_errors=True)
        if self.args.keep:
            say(f"kept {self.work}")
        else:
            shutil.rmtree(self.work, ignore_errors=True)
