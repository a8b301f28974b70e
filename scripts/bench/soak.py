#!/usr/bin/python3
"""A busy user's week compressed into ten minutes: heraldd under load and under faults.

    /usr/bin/python3 scripts/bench/soak.py --bin .build/release [--minutes 10] [--jobs N] [--seed S]
                                     [--output BENCHMARKS.md] [--keep]

(`make soak`. /usr/bin/python3 because it has python3-dbus and GLib; the notification server
below is written with them.)

What it starts, all private to the run and removed afterwards (also on failure or Ctrl-C):

- a dbus-daemon session bus whose configuration has no <standard_session_servicedirs/>, so
  nothing is activated on it;
- a notification server, a separate process (this script with `serve`, dbus-python on a GLib
  main loop), that owns org.freedesktop.Notifications, implements GetCapabilities ("actions",
  "body", ...), GetServerInformation, Notify (ids counting up from 1 in each incarnation, as
  real servers do) and CloseNotification, and appends one JSON line per Notify (wall and
  monotonic time, app name, summary, body, actions, hints, replaces_id, timeout) to a log,
  flushed per call. It acts as the user: a habit popup's Done is pressed (ActionInvoked
  "done") a moment after it appears; most other popups are dismissed (NotificationClosed,
  reason 2) after a second or so, some expire (reason 1), some are left on screen;
- heraldd (--spool, a config file, NOTIFY_SOCKET on a datagram socket read by this script,
  which waits for READY=1 from heraldd's pid; no sleeping and hoping).

Then, over --minutes, the workload (planned from --seed, so the same seed gives the same plan;
the choices made at run time, such as which shown job to snooze, come from the same generator):

- --jobs reminders (default 5,000 a minute: 50,000 in 10 minutes) due between the first and
  the last few percent of the run: most in `herald import` batches of a few thousand (each
  imported 5-30 s before its first job is due), 4 % by `herald remind --at/--in`, 4 % as job
  files written to tmp/ and renamed into new/. Each job's id (j000123) is in its title and text;
- a background queue (--background, default 1,000 a minute) due a week later, imported before
  heraldd first starts: a user's queue of future jobs, pending from start to end;
- `herald cancel` of not-yet-due jobs (2 % of the jobs; these must never show),
  `herald reschedule` of not-yet-due jobs (1 %; never shown before the new time),
  `herald snooze` of shown jobs (1 %; each adds one expected show);
- habits added (`herald habit add ... --every "*:*:0/30"`: due every 30 s), Done pressed by the
  server, `herald habit undo` before the next reminder so that it shows again;
- config reloads: the reminder template changes ("{title} [cN]") and heraldd gets SIGHUP; each
  reminder popup shown after the reload took effect (RELOADING=1 ... READY=1) must carry [cN];
- heraldd killed with SIGKILL every 40-100 s (scaled by minutes/10 in shorter runs) until half
  the run and restarted 0.2-3 s later; the notification server killed every 60-150 s and
  restarted 0.5-5 s later (at least once during the last heraldd's life);
- a quiet window 60 s after the last heraldd starts (35 s long in a full run), once it has
  worked under the run's load for a while: nothing comes due and nothing is done from the shell
  (habits go on), the user clears every popup, and heraldd's memory is measured idle (below).

After the last due time it waits for the queue to drain (no run job left in jobs/, nothing in
new/), clears the popups, measures, removes the habits, stops heraldd with SIGTERM, and checks:

- every job not cancelled was shown at least once (a popup of its own, or a line of a "N
  reminders while you were away" summary, as history.jsonl records it) and at least as often
  as expected (1 + its snoozes); a cancelled job never; a rescheduled one not before its new
  time; no background job; nothing missed or failed in history.jsonl;
- no job shown more often than expected + 1 + the number of heraldd kills (each kill may repeat
  the one popup in flight, README "At least once"; so may a server killed as it takes one);
- nothing left in new/, nothing in failed/;
- heraldd's VmRSS at the end within 10 % of the "before" value. Both are of the last heraldd,
  taken the same way: a 20-job probe import due a second later (heraldd calls malloc_trim after
  filing each batch, so memory it freed earlier does not count), shown; every popup cleared
  (the server closes them, as a user clearing the notification list); then idle (no popup for
  2 s, three samples 0.5 s apart within 0.5 %), with the same jobs pending (the background
  queue and the habits). Before: in the quiet window, with its start-up (catch-up summary,
  intake of what waited, the prune of history.jsonl) and a minute of the run's load behind it.
  After: at the end, some minutes, thousands of popups, hundreds of intake events, a
  notification-server restart and reloads later. Same process, same state, same load behind
  it: what grew is what the rest of its life added. A fresh heraldd is no fair baseline:
  heraldd's RSS rises with the load and the bursts of due popups it has handled (a catch-up
  after a restart, a server outage) and stays near that level, so a fresh one idles several
  MiB lower than one that has worked, leak or no leak (the first heraldd's RSS is reported);
- no file descriptor leaked: the last heraldd's /proc/PID/fd right after its READY=1 (and its
  first WATCHDOG=1) against the end (smallest of three looks 0.1 s apart each time: heraldd opens
  a socket for a moment for each message to the notify socket);
- WATCHDOG=1 (heraldd runs with WATCHDOG_USEC=30 s, as under the unit) never more than 30 s apart;
- no popup ending in history.jsonl that the server did not signal for that job, no popup
  replacing another job's in place, no CloseNotification for a popup of a job nobody acted on
  (stale ids after a server restart would show as these);
- heraldd never exited other than by our SIGKILLs, and exited 0 on the final SIGTERM;
- habits: each shown, Done presses recorded in their logs, none shown while its day was done;
- reloads: the popups carry the template in effect.

Exit status 0 when every check passes, 1 when one fails, 2 when the run could not be carried
out (a set-up error, a timeout), 130 on Ctrl-C. With --output FILE the result row goes into FILE
between `<!-- soak: begin -->` and `<!-- soak: end -->` (a "## Soak" section is added if absent).
The working directory (~/.cache/herald-soak-*: the spool, heraldd's logs, the server's
notify.jsonl and server-events.jsonl, actions.jsonl with every command the run gave) is removed
unless --keep.
"""
import argparse
import collections
import datetime as dt
import heapq
import json
import os
import platform
import random
import re
import select
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

IFACE = "org.freedesktop.Notifications"
PATH = "/org/freedesktop/Notifications"
KEY = re.compile(r"\b[jm]\d{6}\b")   # j: the run's jobs; m: the probes of the two memory measurements
BG_KEY = re.compile(r"\bbg\d{6}\b")
SUMMARY = re.compile(r"^(\d+) \S+ while you were away")
BEGIN = "<!-- soak: begin -->"
END = "<!-- soak: end -->"
UTC = dt.timezone.utc


# =============================================================================== the server

def serve(argv):
    """The notification server: `soak.py serve --log FILE --events FILE --incarnation K --seed S`."""
    p = argparse.ArgumentParser(prog="soak.py serve")
    p.add_argument("--log", required=True)
    p.add_argument("--events", required=True)
    p.add_argument("--incarnation", type=int, required=True)
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--first-id", type=int, default=1)
    p.add_argument("--on-screen", type=float, default=0.10)
    a = p.parse_args(argv)

    import dbus
    import dbus.mainloop.glib
    import dbus.service
    from gi.repository import GLib

    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()
    rng = random.Random(a.seed * 1000 + a.incarnation)
    log = open(a.log, "a", encoding="utf-8")
    events = open(a.events, "a", encoding="utf-8")

    def plain(v):
        if isinstance(v, dbus.Boolean):
            return bool(v)
        if isinstance(v, int):
            return int(v)
        if isinstance(v, float):
            return float(v)
        if isinstance(v, str):
            return str(v)
        if isinstance(v, (list, tuple)):
            return [plain(x) for x in v] if len(v) <= 64 else f"<{len(v)} items>"
        if isinstance(v, dict):
            return {str(k): plain(x) for k, x in v.items()}
        return repr(v)

    def event(**fields):
        fields.update(t=time.time(), m=time.monotonic(), inc=a.incarnation)
        events.write(json.dumps(fields) + "\n")
        events.flush()

    class Server(dbus.service.Object):
        def __init__(self):
            super().__init__(bus, PATH)
            self.next_id = a.first_id
            self.open = {}  # id -> (generation, category, summary)
            self.generation = 0

        @dbus.service.method(IFACE, in_signature="", out_signature="as")
        def GetCapabilities(self):
            return ["actions", "body", "body-markup", "icon-static", "persistence"]

        @dbus.service.method(IFACE, in_signature="", out_signature="ssss")
        def GetServerInformation(self):
            return ("herald-soak", "Herald", "1.0", "1.2")

        @dbus.service.method(IFACE, in_signature="susssasa{sv}i", out_signature="u")
        def Notify(self, app_name, replaces_id, app_icon, summary, body, actions, hints, expire_timeout):
            t, m = time.time(), time.monotonic()
            replaced = None
            if replaces_id and int(replaces_id) in self.open:
                nid = int(replaces_id)
                replaced = self.open[nid][2]
            else:
                nid = self.next_id
                self.next_id += 1
            hints = plain(hints)
            actions = [str(x) for x in actions]
            category = hints.get("category", "")
            log.write(json.dumps({"t": t, "m": m, "inc": a.incarnation, "id": nid, "app": str(app_name),
                                  "replaces": int(replaces_id), "icon": str(app_icon), "summary": str(summary),
                                  "body": str(body), "actions": actions, "hints": hints,
                                  "timeout": int(expire_timeout), "replaced": replaced}) + "\n")
            log.flush()
            self.generation += 1
            gen = self.generation
            self.open[nid] = (gen, category, str(summary))
            keys = actions[0::2]
            if category == "x-herald.habit" and "done" in keys:
                GLib.timeout_add(int(rng.uniform(200, 1500)), self.press, nid, gen, "done")
            else:
                r = rng.random()
                if r < a.on_screen:
                    pass  # left on screen, as a busy user does
                elif r < a.on_screen + 0.05:
                    GLib.timeout_add(int(rng.uniform(1000, 5000)), self.end, nid, gen, 1)
                else:
                    GLib.timeout_add(int(rng.uniform(200, 3000)), self.end, nid, gen, 2)
            return dbus.UInt32(nid)

        @dbus.service.method(IFACE, in_signature="u", out_signature="")
        def CloseNotification(self, nid):
            nid = int(nid)
            entry = self.open.pop(nid, None)
            event(ev="close-request", id=nid, open=entry is not None, category=entry[1] if entry else None,
                  summary=entry[2] if entry else None)
            if entry is not None:
                self.NotificationClosed(dbus.UInt32(nid), dbus.UInt32(3))

        @dbus.service.signal(IFACE, signature="uu")
        def NotificationClosed(self, nid, reason):
            pass

        @dbus.service.signal(IFACE, signature="us")
        def ActionInvoked(self, nid, key):
            pass

        def press(self, nid, gen, key):
            entry = self.open.get(nid)
            if entry and entry[0] == gen:
                event(ev="action", id=nid, key=key, category=entry[1], summary=entry[2])
                self.ActionInvoked(dbus.UInt32(nid), key)
                # As dunst and xfce4-notifyd do: the popup goes once a button was pressed.
                del self.open[nid]
                self.NotificationClosed(dbus.UInt32(nid), dbus.UInt32(2))
            return False

        def end(self, nid, gen, reason):
            entry = self.open.get(nid)
            if entry and entry[0] == gen:
                event(ev="closed", id=nid, reason=reason, category=entry[1], summary=entry[2])
                del self.open[nid]
                self.NotificationClosed(dbus.UInt32(nid), dbus.UInt32(reason))
            return False

        def clear_all(self):
            """SIGUSR1: the user clears every popup on screen (reason 2, dismissed)."""
            count = len(self.open)
            for nid in sorted(self.open):
                entry = self.open.pop(nid)
                event(ev="closed", id=nid, reason=2, category=entry[1], summary=entry[2], cleared=True)
                self.NotificationClosed(dbus.UInt32(nid), dbus.UInt32(2))
            event(ev="clear-all", count=count)
            return True

    server = Server()
    try:
        name = dbus.service.BusName(IFACE, bus, do_not_queue=True)
    except dbus.exceptions.NameExistsException:
        print("name taken", flush=True)
        return 1
    print(f"ready {os.getpid()}", flush=True)
    loop = GLib.MainLoop()
    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGTERM, loop.quit)
    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGUSR1, server.clear_all)
    loop.run()
    del name, server
    return 0


# ============================================================================ the harness

class SoakError(Exception):
    """The run cannot go on (a set-up error, a timeout)."""


def say(message):
    print(f"soak: {message}", file=sys.stderr, flush=True)


def iso(t):
    return dt.datetime.fromtimestamp(t, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def parse_iso(s):
    return dt.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()


def spawn(argv, env, out, stdout=None):
    """A child in a session of its own (Ctrl-C reaches only us; we stop it), killed by the kernel
    if this script dies (setpriv --pdeathsig)."""
    if shutil.which("setpriv"):
        argv = ["setpriv", "--pdeathsig", "KILL", "--"] + argv
    return subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=stdout if stdout is not None else out,
                            stderr=out, start_new_session=True, close_fds=True)


def read_line(pipe, timeout, what, proc):
    """One line from a child's pipe within `timeout` s."""
    deadline = time.monotonic() + timeout
    buf = b""
    fd = pipe.fileno()
    while b"\n" not in buf:
        left = deadline - time.monotonic()
        if left <= 0:
            raise SoakError(f"no {what} within {timeout:g} s")
        ready, _, _ = select.select([fd], [], [], min(left, 0.2))
        if ready:
            chunk = os.read(fd, 4096)
            if not chunk:
                raise SoakError(f"{what}: the process ended (status {proc.wait()})")
            buf += chunk
    return buf.split(b"\n", 1)[0].decode(errors="replace")


class NotifySocket:
    """Stands in for systemd's notify socket: every datagram, with its sender's pid
    (SCM_CREDENTIALS) and the wall time it arrived."""

    def __init__(self, path):
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
        self.sock.bind(path)
        self.messages = []  # (wall time, pid, text)
        self.cond = threading.Condition()
        self.thread = threading.Thread(target=self._run, name="notify-socket", daemon=True)
        self.thread.start()

    def _run(self):
        space = socket.CMSG_SPACE(struct.calcsize("iII"))
        while True:
            try:
                data, ancillary, _, _ = self.sock.recvmsg(8192, space)
            except OSError:
                return
            t = time.time()
            if not data:
                return
            pid = None
            for level, kind, cdata in ancillary:
                if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS:
                    pid = struct.unpack("iII", cdata[:struct.calcsize("iII")])[0]
            with self.cond:
                self.messages.append((t, pid, data.decode(errors="replace")))
                self.cond.notify_all()

    def mark(self):
        with self.cond:
            return len(self.messages)

    def wait(self, pid, line, since, timeout, proc=None):
        """The wall time of the first message from `pid` after index `since` holding `line`."""
        deadline = time.monotonic() + timeout
        k = since
        with self.cond:
            while True:
                for k in range(k, len(self.messages)):
                    t, sender, text = self.messages[k]
                    if sender == pid and line in text.split("\n"):
                        return t
                k = len(self.messages)
                if proc is not None and proc.poll() is not None:
                    return None
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self.cond.wait(min(left, 0.1))

    def close(self):
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()


def proc_status(pid, key):
    """A /proc/PID/status figure in KiB."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def fd_snapshot(pid):
    """What each of the process's file descriptors is (socket, pipe, anon_inode:inotify, a path)."""
    out = {}
    base = f"/proc/{pid}/fd"
    try:
        for name in os.listdir(base):
            try:
                target = os.readlink(os.path.join(base, name))
            except OSError:
                continue
            out[int(name)] = re.sub(r"\[\d+\]$", "", target) if target.startswith(("socket:", "pipe:")) else target
    except OSError:
        return None
    return out


def fd_steady(pid, samples=3):
    """The smallest of a few snapshots 0.1 s apart: heraldd opens a socket for a moment for each
    message to the notify socket, which is no leak."""
    best = None
    for k in range(samples):
        snap = fd_snapshot(pid)
        if snap is not None and (best is None or len(snap) < len(best)):
            best = snap
        if k + 1 < samples:
            time.sleep(0.1)
    return best


def fd_kinds(snapshot):
    return collections.Counter(snapshot.values())


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
    return ", ".join(p for p in [osname, f"Linux {u.release} {u.machine}", cpu, f"{os.cpu_count()} cores",
                                 f"{ram:.1f} GiB RAM"] if p)


def n(x):
    return f"{x:,}"


# ============================================================================== the plan

class Plan:
    """Everything the run will do, with times in seconds from the workload's start, from the seed.

    The kills of heraldd come first (until half the run), so the last heraldd's life is known.
    Shortly after it starts comes a quiet window, as in a user's day: nothing comes due and
    nothing is done from the shell, so that it can be measured idle, holding the same jobs as at
    the end (the background queue and the habits), once its start-up is behind it."""

    def __init__(self, args, rng):
        T = args.minutes * 60.0
        s = min(1.0, args.minutes / 10.0)           # interval scale for shorter runs
        lead = max(s, 0.2)
        self.T, self.scale, self.lead = T, s, lead
        self.first_due = max(5.0, 0.03 * T)
        self.last_due = T - max(5.0, 0.03 * T)
        self.events = []  # (t, kind, payload)
        self.jobs = {}    # id -> dict(due, via)

        # heraldd killed every 40-100 s until half the run, down 0.2-3 s each time.
        self.kills = []
        t = rng.uniform(40, 100) * s
        while t <= 0.5 * T:
            self.kills.append((t, rng.uniform(0.2, 3.0)))
            t += rng.uniform(40, 100) * s
        last_restart = (self.kills[-1][0] + self.kills[-1][1]) if self.kills else 0.0
        for t, down in self.kills:
            self.events.append((t, "kill-heraldd", {"down": down}))

        # The quiet window [qs, qe]: 60 s after the last restart (scaled), once that heraldd has
        # worked under the run's load for a while (its RSS has reached the level that load keeps it
        # at), 35 s long; no job due from qs until 10 s after qe; whatever would be issued in it
        # waits until qe.
        self.qs = max(self.first_due, last_restart + 60 * lead)
        self.qe = self.qs + 35 * lead
        gap = (self.qe + 10 * lead) - self.qs
        self.events.append((self.qs, "quiet", {}))

        def place(u):
            """A due time from the compressed range [first_due, last_due - gap] around the window."""
            return u if u < self.qs else u + gap

        def issue(when, kind, payload, margin=0.0):
            if self.qs - margin <= when < self.qe:
                when = self.qe + rng.uniform(0, 2 * lead)
            self.events.append((max(0.0, when), kind, payload))

        N = args.jobs
        n_remind, n_file = round(0.04 * N), round(0.04 * N)
        n_import = N - n_remind - n_file
        ids = [f"j{k:06d}" for k in range(N)]
        rng.shuffle(ids)
        it = iter(ids)
        lo, hi = self.first_due, self.last_due - gap

        # Batches of a few thousand (4-8 % of the imported jobs each), each covering a slice of
        # the due range in proportion to its size (cut at the window), imported 5-30 s before
        # the slice begins.
        sizes, left = [], n_import
        while left > 0:
            k = min(left, max(1, int(rng.uniform(0.04, 0.08) * n_import)))
            sizes.append(k)
            left -= k
        slices, a = [], lo
        for size in sizes:
            width = (hi - lo) * size / n_import
            if a < self.qs < a + width:
                cut = round(size * (self.qs - a) / width)
                slices += [(a, self.qs, cut), (self.qs, a + width, size - cut)]
            else:
                slices.append((a, a + width, size))
            a += width
        for b, (a, z, size) in enumerate(x for x in slices if x[2] > 0):
            lines = []
            for _ in range(size):
                jid = next(it)
                self.jobs[jid] = {"due": place(rng.uniform(a, z)), "via": "import"}
                lines.append(jid)
            issue(place(a) - rng.uniform(5, 30) * lead, "import", {"batch": b, "ids": lines})
        for via, count in (("remind", n_remind), ("file", n_file)):
            for _ in range(count):
                jid = next(it)
                due = place(rng.uniform(lo, hi))
                when = due - rng.uniform(3, 40) * lead
                if self.qs <= when < self.qe:
                    when = self.qe + rng.uniform(0, 2 * lead)
                when = max(0.0, when)
                if due - when < 2:
                    due = when + 2
                self.jobs[jid] = {"due": due, "via": via}
                mode = "in" if via == "remind" and rng.random() < 0.5 else "at"
                self.events.append((when, via, {"id": jid, "mode": mode}))

        # Cancels (2 % of the jobs, 1-5 a command), reschedules and snoozes (1 % each).
        end_ops = self.last_due - 10 * lead
        cancelled = 0
        while cancelled < round(0.02 * N):
            k = rng.randint(1, 5)
            issue(rng.uniform(2, end_ops), "cancel", {"count": k})
            cancelled += k
        for _ in range(round(0.01 * N)):
            issue(rng.uniform(2, end_ops), "reschedule", {"mode": "in" if rng.random() < 0.3 else "at"})
        for _ in range(round(0.01 * N)):
            issue(rng.uniform(self.first_due + 3, end_ops), "snooze", {})

        # Habits: due every 30 s (half of them at :00/:30, half at :15/:45), added in the first half.
        self.habits = []
        for h in range(max(2, round(args.minutes))):
            name = f"Soak habit {h + 1}"
            every = "*:*:0/30" if h % 2 == 0 else "*:*:15/30"
            self.habits.append((name, every, 0 if h % 2 == 0 else 15))
            issue(rng.uniform(0, 0.5 * T), "habit", {"name": name, "every": every})

        # Reloads every 45-90 s.
        t = rng.uniform(45, 90) * s
        while t < T - 5 * lead:
            issue(t, "reload", {})
            t += rng.uniform(45, 90) * s

        # The notification server killed every 60-150 s until 92 % of the run, down 0.5-5 s;
        # at least once after the quiet window (while the last heraldd runs).
        server_kills = []
        t = rng.uniform(60, 150) * s
        while t <= 0.92 * T:
            if not self.qs - 10 * lead <= t < self.qe:
                server_kills.append(t)
            t += rng.uniform(60, 150) * s
        after = self.qe + 5 * lead
        if not any(after < k < 0.92 * T for k in server_kills):
            server_kills.append(rng.uniform(after, max(after + 1, 0.85 * T)))
        for t in server_kills:
            self.events.append((t, "kill-server", {"down": rng.uniform(0.5, 5.0)}))
        self.events.sort(key=lambda e: e[0])


# =============================================================================== the run

class Soak:
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
        text = ("# written by scripts/bench/soak.py\n"
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

    # ------------------------------------------------------------------ bus and server

    def start_bus(self):
        conf = os.path.join(self.sockets, "bus.conf")
        with open(conf, "w") as f:
            f.write(f"""<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:dir={self.sockets}</listen>
  <auth>EXTERNAL</auth>
  <limit name="max_incoming_bytes">1000000000</limit>
  <limit name="max_outgoing_bytes">1000000000</limit>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow receive_sender="*"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
""")
        out = open(os.path.join(self.work, "dbus-daemon.log"), "wb")
        self.bus = spawn(["/usr/bin/dbus-daemon", "--config-file=" + conf, "--nofork", "--print-address=1"],
                         {"PATH": "/usr/bin:/bin"}, out, stdout=subprocess.PIPE)
        out.close()
        line = read_line(self.bus.stdout, 10, "address from dbus-daemon", self.bus)
        if not line.startswith("unix:"):
            raise SoakError(f"dbus-daemon said {line!r}")
        self.bus_address = line

    def start_server(self):
        self.server_runs += 1
        k = self.server_runs
        out = open(os.path.join(self.work, f"server-{k}.log"), "wb")
        argv = ["/usr/bin/python3", os.path.realpath(__file__), "serve", "--log", self.notify_log,
                "--events", self.events_log, "--incarnation", str(k), "--seed", str(self.args.seed)]
        argv += ["--on-screen", str(self.args.on_screen)]
        if self.args.server_ids == "continue":
            argv += ["--first-id", str(k * 10_000_000 + 1)]
        env = {"PATH": "/usr/bin:/bin", "DBUS_SESSION_BUS_ADDRESS": self.bus_address, "LANG": "C.UTF-8"}
        self.server = spawn(argv, env, out, stdout=subprocess.PIPE)
        out.close()
        line = read_line(self.server.stdout, 15, "'ready' from the notification server", self.server)
        if not line.startswith("ready"):
            raise SoakError(f"the notification server said {line!r}")
        self.act("server ready", run=k)
        self.server_started = time.time()

    def kill_server(self):
        if self.server is None:
            return
        if self.server.poll() is not None:
            self.problems.append(f"the notification server (run {self.server_runs}) had exited by itself "
                                 f"(status {self.server.returncode}); see server-{self.server_runs}.log")
        else:
            self.server.kill()
            self.server.wait()
            self.act("server killed", run=self.server_runs)
        self.server.stdout.close()
        self.server = None

    # ------------------------------------------------------------------ heraldd

    def start_daemon(self):
        self.daemon_runs += 1
        k = self.daemon_runs
        out = open(os.path.join(self.work, f"heraldd-{k}.log"), "wb")
        env = dict(self.env, NOTIFY_SOCKET=self.notify.path)
        mark = self.notify.mark()
        t0 = time.monotonic()
        # As systemd runs it (WatchdogSec=30s): WATCHDOG_USEC, and WATCHDOG_PID, which must be
        # heraldd's own pid: set by a shell that then execs heraldd.
        env["WATCHDOG_USEC"] = "30000000"
        self.daemon = spawn(["/bin/sh", "-c", 'WATCHDOG_PID=$$ exec "$0" "$@"', self.heraldd,
                             "--spool", self.spool, "--config", self.config], env, out)
        out.close()
        self.daemon_expected_exit = False
        ready = self.notify.wait(self.daemon.pid, "READY=1", mark, 30, self.daemon)
        # "Right after READY": heraldd starts its watchdog as it sends READY=1 and pings at once.
        if ready is not None and self.notify.wait(self.daemon.pid, "WATCHDOG=1", mark, 5, self.daemon) is None:
            self.problems.append(f"heraldd (run {k}) sent no WATCHDOG=1 after READY=1")
        if ready is None:
            status = self.daemon.poll()
            raise SoakError(f"heraldd (run {k}) sent no READY=1 within 30 s"
                            + (f"; it exited with {status}" if status is not None else "")
                            + "; its log:\n" + self.tail(k))
        self.act("heraldd ready", run=k, pid=self.daemon.pid)
        info = {"run": k, "pid": self.daemon.pid, "ready": ready, "ready_s": time.monotonic() - t0,
                "rss_ready": proc_status(self.daemon.pid, "VmRSS"), "fds_ready": fd_steady(self.daemon.pid),
                "server_kills": 0, "intake": 0, "reloads": 0, "popups_at_ready": self.popups_seen,
                "rss_series": [], "mark": mark}
        self.daemons.append(info)
        # The config in effect from now on is the last one written.
        for v in self.config_versions:
            if v[0] == self.config_version and v[2] is None:
                v[2] = ready
        return info

    def tail(self, k, lines=15):
        try:
            with open(os.path.join(self.work, f"heraldd-{k}.log"), errors="replace") as f:
                return "".join(f.readlines()[-lines:])
        except OSError:
            return ""

    def kill_daemon(self):
        if self.daemon is None:
            return
        if self.daemon.poll() is None:
            self.daemon_expected_exit = True
            os.kill(self.daemon.pid, signal.SIGKILL)
            self.daemon.wait()
            self.act("heraldd killed", run=self.daemon_runs)
        if self.daemon.returncode != -signal.SIGKILL:
            self.crashes.append((self.daemon_runs, self.daemon.returncode, self.tail(self.daemon_runs)))
        self.daemon = None

    def check_children(self):
        """heraldd or the server gone without our signal: a crash (heraldd) or a broken harness."""
        if self.daemon is not None and self.daemon.poll() is not None and not self.daemon_expected_exit:
            k = self.daemon_runs
            self.crashes.append((k, self.daemon.returncode, self.tail(k)))
            say(f"heraldd (run {k}) exited by itself with status {self.daemon.returncode}; restarting it")
            self.daemon = None
            self.start_daemon()
        if self.server is not None and self.server.poll() is not None:
            self.problems.append(f"the notification server (run {self.server_runs}) exited by itself "
                                 f"(status {self.server.returncode}); see server-{self.server_runs}.log")
            self.server.stdout.close()
            self.server = None
            self.start_server()

    # ------------------------------------------------------------------ the server's log

    def init_tracking(self):
        self.log_offset = 0
        self.log_rest = b""
        self.events_offset = 0
        self.events_rest = b""
        self.shown_at = {}          # job id -> wall time of its first own popup
        self.shown_list = []        # the same ids, in the order they were first shown
        self.last_notify = time.time()
        self.popups_seen = 0
        self.clears_seen = 0
        self.shown_count = collections.Counter()
        self.probes = {}            # the memory probes' ids -> due

    def read_new(self, path, offset_attr, rest_attr):
        try:
            with open(path, "rb") as f:
                f.seek(getattr(self, offset_attr))
                data = f.read()
        except FileNotFoundError:
            return []
        setattr(self, offset_attr, getattr(self, offset_attr) + len(data))
        data = getattr(self, rest_attr) + data
        lines = data.split(b"\n")
        setattr(self, rest_attr, lines[-1])
        out = []
        for line in lines[:-1]:
            try:
                out.append(json.loads(line))
            except ValueError:
                pass
        return out

    def poll_server_logs(self):
        for rec in self.read_new(self.notify_log, "log_offset", "log_rest"):
            self.last_notify = rec["t"]
            self.popups_seen += 1
            if rec["hints"].get("category") == "x-herald.reminder":
                for key in set(KEY.findall(rec["summary"] + "\n" + rec["body"])):
                    self.shown_count[key] += 1
                    if key.startswith("m"):
                        continue
                    if key not in self.shown_at:
                        self.shown_at[key] = rec["t"]
                        self.shown_list.append(key)
        for ev in self.read_new(self.events_log, "events_offset", "events_rest"):
            if ev.get("ev") == "clear-all":
                self.clears_seen += 1
            if ev.get("ev") == "action" and ev.get("key") == "done" and ev.get("category") == "x-herald.habit":
                self.stats["done_presses"] += 1
                self.schedule_undo(ev["summary"], ev["t"])

    # ------------------------------------------------------------------ the workload

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

    def do_remind(self, p):
        jid = p["id"]
        job = self.jobs[jid]
        now = time.time()
        if job["due"] < now + 1:
            job["due"] = now + 2
            self.stats["late_issues"] += 1
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
        now = time.time()
        if job["due"] < now + 1:
            job["due"] = now + 2
            self.stats["late_issues"] += 1
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

    # ------------------------------------------------------------------ phases

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

    # ================================================================== the checks

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

    # ================================================================== the report

    def report(self, r, wall):
        st, last = self.stats, self.last
        verdict = "pass" if not self.problems else "FAIL"
        lines = [
            f"heraldd {self.version()} from {self.bin}; {machine()}",
            f"work dir {self.work}; seed {self.args.seed}; {self.args.minutes:g} min of workload, {wall / 60:.1f} min in all",
            f"jobs due           {n(len(self.jobs))} ({n(st['imports'])} imports, {n(st['reminds'])} herald remind, "
            f"{n(st['files'])} files into new/), background queue {n(self.args.background)}",
            f"shown              {n(r['shown_jobs'])} of {n(r['expected'])} jobs not cancelled "
            f"({n(r['direct'])} popups of their own, {n(r['summarized'])} lines in {n(r['summaries'])} summaries; "
            f"{n(r['popups'])} Notify calls in all, {n(r['habit_popups'])} of them habits)",
            f"faults             {st['heraldd_kills']} heraldd SIGKILLs, {st['server_kills']} notification-server SIGKILLs "
            f"({self.server_runs} server runs), heraldd restart to READY=1 at most "
            f"{max(d['ready_s'] for d in self.daemons[1:]) if len(self.daemons) > 1 else 0:.2f} s",
            f"changes            {n(st['cancels'])} jobs cancelled ({st['cancel_commands']} commands), "
            f"{n(st['reschedules'])} reschedules, {n(st['snoozes'])} snoozes, {st['reloads']} reloads "
            f"({n(r['template_checked'])} popups checked for the template)",
            f"habits             {st['habits']} added, {st['done_presses']} Done presses, {r['recorded_done']} recorded "
            f"in their logs, {st['undos']} undone",
            f"extra shows        at most {r['max_extra']} for one job (allowed {r['allowed']}: 1 + heraldd kills); "
            f"{r['extra_jobs']} jobs shown more than expected, {r['extra_total']} extra shows in all",
            f"spool              {r['new_left']} in new/, {r['failed']} in failed/; history: "
            + ", ".join(f"{k} {n(v)}" for k, v in sorted(r['outcomes'].items())),
            f"memory             last heraldd (run {last['run']}) idle, popups cleared, holding the background queue "
            f"and the habits: VmRSS {self.rss_before / 1024:.1f} MiB in the quiet window, {self.rss_after / 1024:.1f} MiB "
            f"at the end: {r['rss_growth']:+.1%} (limit ±10 %), after {self.since_quiet()}; peak (VmHWM) "
            f"{self.hwm_before / 1024:.1f} → {self.hwm_after / 1024:.1f} MiB; idle on arrival, before the probe import "
            f"(whose filing ends with malloc_trim): {self.rss_before_untrimmed / 1024:.1f} and {self.rss_after_untrimmed / 1024:.1f} MiB; "
            f"at its READY=1 {last['rss_ready'] / 1024:.1f} MiB; the first heraldd idle with the background queue "
            f"{self.rss_first / 1024:.1f} MiB",
            f"descriptors        last heraldd: {r['fds_ready']} after READY=1, {r['fds_after']} at the end, having lived "
            f"{self.drained_at - last['ready']:.0f} s through {last['server_kills']} server restarts, "
            f"{n(last['intake'])} intake events, {last['reloads']} reloads",
            f"RSS over its life  " + ", ".join(f"+{t - last['ready']:.0f} s {rss / 1024:.1f} MiB ({n(pops - last['popups_at_ready'])} "
                                               f"popups, {n(pend)} pending, {fds} fds)"
                                               for t, rss, pops, fds, pend in self.series(last)),
            f"watchdog           WATCHDOG=1 at most {r['watchdog_gap']:.1f} s apart (WatchdogSec=30s)",
            f"heraldd log        " + (", ".join(f"{v} {k}" for k, v in sorted(r['levels'].items())) or "no warnings")
            + f"; final SIGTERM exit {self.final_exit}",
            f"harness            {n(st['cli_runs'])} herald commands ({st['cli_seconds_x1000'] / 1000:.0f} s), "
            f"the workload ran at most {st['max_lag_ms']} ms behind plan",
            f"verdict            {verdict}",
        ]
        print("\n".join(lines))
        if self.problems:
            print("\nProblems:")
            for p in self.problems:
                print("  - " + p)
        if self.notes:
            print(f"\nNotes ({len(self.notes)}; refusals that are expected, e.g. a job that fired meanwhile):")
            for note in self.notes[:10]:
                print("  - " + note)
        sys.stdout.flush()
        return verdict

    def since_quiet(self):
        """What the last heraldd went through between the two memory measurements."""
        last, q = self.last, self.quiet_counts
        return (f"{self.measured_at - self.quiet_at:.0f} s, {n(self.popups_end - q['popups'])} popups, "
                f"{n(last['intake'] - q['intake'])} intake events, {last['server_kills'] - q['server_kills']} "
                f"notification-server restart(s), {last['reloads'] - q['reloads']} reload(s)")

    def series(self, d, points=8):
        s = [x for x in d["rss_series"] if x[1] is not None]
        if len(s) <= points:
            return s
        return [s[round(k * (len(s) - 1) / (points - 1))] for k in range(points)]

    @staticmethod
    def read_all(path):
        out = []
        with open(path, encoding="utf-8") as f:
            for line in f:
                try:
                    out.append(json.loads(line))
                except ValueError:
                    pass
        return out

    def version(self):
        try:
            return subprocess.run([self.heraldd, "--version"], capture_output=True, text=True, timeout=10).stdout.strip()
        except (OSError, subprocess.TimeoutExpired):
            return "?"

    def markdown(self, r, verdict, wall):
        st, last = self.stats, self.last
        cpu = machine()
        row = ("| " + " | ".join([
            dt.datetime.now(UTC).strftime("%Y-%m-%d %H:%M Z"),
            f"{os.cpu_count()} cores, {cpu.split(', ')[2] if len(cpu.split(', ')) > 2 else cpu}",
            f"{self.args.minutes:g}",
            n(len(self.jobs)),
            f"{n(r['shown_jobs'])} of {n(r['expected'])}",
            str(st["heraldd_kills"]),
            str(st["server_kills"]),
            n(st["snoozes"]),
            n(st["cancels"]),
            n(st["reschedules"]),
            n(st["done_presses"]),
            str(st["reloads"]),
            f"{r['max_extra']} (allowed {r['allowed']})",
            str(r["new_left"]),
            f"{self.rss_before / 1024:.1f} → {self.rss_after / 1024:.1f} MiB ({r['rss_growth']:+.1%})",
            f"{r['fds_ready']} → {r['fds_after']}",
            verdict]) + " |")
        q = self.quiet_counts
        out = [f"`scripts/bench/soak.py --minutes {self.args.minutes:g} --jobs {self.args.jobs} --seed {self.args.seed}` "
               f"(`make soak` runs 10 minutes), "
               f"heraldd {self.version()}, on {cpu}.", "",
               "| date | machine | minutes | jobs due | shown | heraldd kills | server restarts | snoozes | cancels | "
               "reschedules | habit Done presses | reloads | max extra shows per job | new/ left | RSS before → after | "
               "fds before → after | verdict |",
               "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|", row, "",
               f"- Shown: {n(r['direct'])} popups of their own and {n(r['summarized'])} lines of {n(r['summaries'])} "
               f"\"while you were away\" summaries (after restarts); {r['extra_jobs']} jobs were shown more than expected, "
               f"{r['extra_total']} extra shows in all (allowed per job: 1 + heraldd kills; a kill, or a server killed "
               f"as it took a popup, may repeat the popup in flight).",
               f"- RSS: the last heraldd, measured twice the same way, idle with its popups cleared and the same jobs "
               f"pending (the {n(self.args.background)}-job background queue and the habits), each time just after a "
               f"20-job probe import (heraldd hands freed memory back with malloc_trim after filing a batch): before, in "
               f"a quiet window {self.quiet_at - last['ready']:.0f} s after its start; after, at the end, "
               f"{self.since_quiet()} later. Same process, same state: what grew is what its life added. (A fresh "
               f"heraldd is no fair baseline: its RSS rises with its largest burst of due popups and stays there; "
               f"the first heraldd idled at {self.rss_first / 1024:.1f} MiB. Idle before the probe imports: "
               f"{self.rss_before_untrimmed / 1024:.1f} and {self.rss_after_untrimmed / 1024:.1f} MiB.) fds: the last "
               f"heraldd right after READY=1 and at the end.",
               f"- heraldd log: " + (", ".join(f"{v} {k}" for k, v in sorted(r['levels'].items())) or "no warnings")
               + f"; {wall / 60:.1f} min in all."]
        if self.problems:
            out.append("- Problems: " + "; ".join(p.split("\n")[0] for p in self.problems[:8]) + ".")
        return "\n".join(out)


DESCRIPTION = """## Soak

`make soak` (`scripts/bench/soak.py`, about 12 minutes) is a busy user's week compressed into ten
minutes, against the release binaries on a private session bus: 50,000 reminders come due
over the run (most from `herald import` batches of a few thousand, some from `herald remind
--at/--in`, some as files renamed into `new/`) on top of a 10,000-job queue due a week later;
meanwhile jobs are cancelled, rescheduled and snoozed from the shell, habits are added and
their Done pressed by the notification server (a Python process of the script's own that
acts as the user: it dismisses most popups), the configuration is reloaded with a changed
template, `heraldd` is killed with SIGKILL every 40–100 s (until half the run) and the
notification server every 60–150 s. Afterwards it checks that every job not cancelled was
shown at least 1 + its snoozes times and at most 1 + the number of `heraldd` kills more, that
no cancelled job was shown and no rescheduled one before its new time, that nothing is left
in `new/` or `failed/`, that `heraldd` never crashed, and that the last `heraldd`'s memory and
file descriptors did not grow (memory measured twice in its life, idle, with the same jobs
pending). It is not part of `make test`.
"""


def write_section(path, text):
    old = open(path, encoding="utf-8").read() if os.path.exists(path) else ""
    block = BEGIN + "\n" + text.rstrip("\n") + "\n" + END
    if BEGIN in old and END in old:
        new = old[:old.index(BEGIN)] + block + old[old.index(END) + len(END):]
    else:
        new = old.rstrip("\n") + "\n\n" + DESCRIPTION + "\n" + block + "\n"
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.write(new)
    os.replace(path + ".tmp", path)


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "serve":
        return serve(sys.argv[2:])
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                epilog="See the top of scripts/bench/soak.py for what the run does and checks.")
    p.add_argument("--bin", required=True, help="the folder with herald and heraldd (.build/release)")
    p.add_argument("--minutes", type=float, default=10, help="length of the workload (default 10)")
    p.add_argument("--jobs", type=int, help="jobs due over the run (default 50,000 for 10 minutes, scaled by --minutes)")
    p.add_argument("--background", type=int, help="jobs due a week later, pending throughout (default 1,000 a minute)")
    p.add_argument("--seed", type=int, default=20261124, help="seed of the workload (default 20261124)")
    p.add_argument("--server-ids", choices=("restart", "continue"), default="restart",
                   help="whether each server run numbers its popups from 1, as real servers do (default), or continues")
    p.add_argument("--on-screen", type=float, default=0.10,
                   help="the share of reminder popups the server leaves on screen (default 0.10; the rest are "
                        "dismissed or expire)")
    p.add_argument("--output", help="write the result row into this Markdown file (BENCHMARKS.md)")
    p.add_argument("--keep", action="store_true", help="keep the working directory (spool, logs, the server's log)")
    args = p.parse_args()
    if args.minutes <= 0:
        p.error("--minutes must be above 0")
    if args.jobs is None:
        args.jobs = int(round(5000 * args.minutes))
    if args.background is None:
        args.background = int(round(1000 * args.minutes))
    if args.jobs < 50:
        p.error("--jobs must be at least 50")

    def interrupted(signum, frame):
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, interrupted)
    signal.signal(signal.SIGINT, interrupted)  # also when started with SIGINT ignored (a shell's background job)
    started = time.time()
    soak = None
    try:
        soak = Soak(args)
        soak.setup()
        soak.run_workload()
        soak.drain()
        r = soak.analyse()
    except KeyboardInterrupt:
        say("interrupted; cleaning up")
        if soak:
            soak.cleanup()
        return 130
    except SoakError as e:
        say(f"the run could not be completed: {e}")
        if soak:
            for problem in soak.problems:
                say("  - " + problem.split("\n")[0])
            soak.cleanup()
        return 2
    except BaseException:
        if soak:
            soak.cleanup()
        raise
    soak.cleanup()
    wall = time.time() - started
    verdict = soak.report(r, wall)
    if args.output:
        write_section(args.output, soak.markdown(r, verdict, wall))
        say(f"wrote the result into {args.output}")
    return 0 if verdict == "pass" else 1


if __name__ == "__main__":
    sys.exit(main())
