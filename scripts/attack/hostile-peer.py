#!/usr/bin/env python3
"""Plays a hostile calendar peer (and hostile local programs) against a build of Herald.

    python3 scripts/attack/hostile-peer.py --bin DIR [--only N,M] [--json] [--keep]

DIR holds `herald` and `heraldd` (e.g. .build/debug, or a copy of it: a rebuild while this
runs would change the binaries under it). Each of the eleven attacks of issue 38 ("A shared
calendar is written by others: nothing in it may switch Herald off") runs in its own scene:
a fresh temp directory with a spool, a config, a private D-Bus session bus (a dbus-daemon
whose config has no <standard_session_servicedirs/>, so nothing of the machine's is started)
and python3-dbusmock's notification_daemon template as the notification server; heraldd is
started there, attacked as the issue describes (scaled down where the issue gives a small
repro), and the script says whether Herald HELD or was BROKEN, with one line of evidence.

    1  a flood over limits.jobs (1,001 items, limit 1,000) switches off new calendar alarms:
       a reminder made with --sync afterwards must be planned and shown, and a re-plan must
       put nothing more into failed/
    2  a peer's item herald-stretch.ics beside a local job `stretch`: show, reschedule and
       cancel must act on the local job (or refuse), never on the peer's file
    3  a forged calendar job in new/ naming "<collection>/../../victim.txt" (and one naming a
       file through a symlinked folder): reschedule and cancel must leave the victim alone
    4  a FIFO (and a symlink to one) in a calendar folder: heraldd must still plan, fire a
       reminder due 2 s later, and end within 2 s of SIGTERM
    5  `--sync --every minutely` (*:0/5, *:0/10): refused, or planned; never accepted and skipped
    6  texts over 64 KiB once escaped: refused by the CLI, never lost in failed/ (and, beyond
       the issue's text, `herald reschedule` of a calendar job must not write an invalid job)
    7  icons from new/ and `herald edit` (a FIFO, /dev/zero) must not reach the server; the CLI
       must refuse a 60,000-character icon name
    8  rounds of 5,000 uniquely named bad files made and deleted: VmRSS must not grow a round
    9  40 idle clients on heraldd.sock: `herald cancel` must never die of SIGPIPE (exit 141)
    10 `v1 snooze tgt 600000000 9999-12-31T23:59:59Z ...` on the socket must be refused
    11 `herald edit` with an editor that leaves a FIFO must end and leave no FIFO; one that
       writes over 64 KiB must be told the size, not "a string is not closed"

Found by the review of the fix (a later round reruns them with the rest):

    12 11 peer items nearer in time than your own synced reminder, one a file (limits.jobs 20,
       share 10): the reminder made with `herald remind --sync` must still be shown
    13 50 files of 10 items every 11 minutes (under 100 KiB): heraldd at most 256 MiB
    14 10 files of 5 items every minute: a re-plan for your own `remind --sync` at most 2 s CPU
    15 an item every minute that began 2 h ago: no re-plan loop with a "late by" popup each
    16 a job whose icon is on a hung mount: the popups after it must still show (needs FUSE)
    17 a calendar source on a hung mount: SIGTERM ends heraldd, and it can start again (FUSE)
    18 a calendar file set aside by the crash-loop breaker stays aside after a clean stop
    19 a calendar file with a newline in its name is set aside after two deaths like any other
    20 `v1 habit-done ID 9999-12-31 1` on the socket must be refused (the CLI refuses future days)
    21 `herald edit` with an editor that leaves a directory: the edit folder must be removed
    22 `herald calendar check` must not call the README's once-a-minute synced reminder skipped
    23 sync.calendar on a hung mount: `herald status` and `doctor` must end (needs FUSE)

Exit status 0 only when every attack run held; 1 when one broke or could not be run.
Every wait has a deadline (several attacks are about hanging), and every scene is torn down
at the end whatever happened: FUSE mounts unmounted first (a process waiting on one ends only
then), heraldd, the server and the bus killed, FIFOs and temp directories removed (kept with
--keep, for a look; processes are killed all the same).
Needs /usr/bin/dbus-daemon and Debian's /usr/bin/python3 with python3-dbusmock (16, 17 and 23
also /dev/fuse, fusermount and python3-fusepy, else they say ERROR); the script itself runs
on any python3.
"""
import argparse
import datetime as dt
import json
import os
import re
import select
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from herald_scripts import bus, procfs  # noqa: E402
from herald_scripts.files import write_atomically  # noqa: E402

UTC = dt.timezone.utc
DBUS_PYTHON = "/usr/bin/python3"  # Debian's: the one with python3-dbus and dbusmock

# Asks the mock server for the Notify calls it has received, as JSON (run by DBUS_PYTHON).
NOTIFY_CALLS = r"""
import dbus, json
bus = dbus.SessionBus()
mock = dbus.Interface(bus.get_object('org.freedesktop.Notifications', '/org/freedesktop/Notifications'),
                      'org.freedesktop.DBus.Mock')
calls = []
for _stamp, method, args in mock.GetCalls():
    if method == 'Notify':
        calls.append({'icon': str(args[2]), 'summary': str(args[3]), 'body': str(args[4]),
                      'hints': {str(k): str(v) for k, v in args[6].items()}})
print(json.dumps(calls))
"""

class SetupError(Exception):
    """The scene could not be built: the attack says nothing about Herald."""


# ---------------------------------------------------------------------------------------------
# Small helpers


def wait_until(predicate, timeout, interval=0.05):
    """Polls `predicate` until it returns something true or `timeout` seconds pass; returns
    its last value. Every wait in this script goes through here or has its own timeout."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value or time.monotonic() >= deadline:
            return value
        time.sleep(interval)


def iso(t):
    """A job file's instant: ISO-8601 UTC."""
    return dt.datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def ics_time(t):
    return dt.datetime.fromtimestamp(t, UTC).strftime("%Y%m%dT%H%M%SZ")


def vcalendar(*components):
    return "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//hostile-peer//EN\r\n" + "".join(components) + "END:VCALENDAR\r\n"


def vevent(uid, start, summary, trigger="-PT5M", rrule=None):
    """An event with one DISPLAY alarm `trigger` before its start (recurring by `rrule`)."""
    return (f"BEGIN:VEVENT\r\nUID:{uid}\r\nDTSTAMP:20261101T000000Z\r\nDTSTART:{ics_time(start)}\r\n"
            + (f"RRULE:{rrule}\r\n" if rrule else "")
            + f"SUMMARY:{summary}\r\nBEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:{summary}\r\n"
            f"TRIGGER:{trigger}\r\nEND:VALARM\r\nEND:VEVENT\r\n")


def vtodo(uid, due, summary):
    """A to-do with an alarm at its DUE, as `herald remind --sync` writes one."""
    return (f"BEGIN:VTODO\r\nUID:{uid}\r\nDTSTAMP:20261101T000000Z\r\nDUE:{ics_time(due)}\r\n"
            f"SUMMARY:{summary}\r\nX-HERALD-KIND:reminder\r\nBEGIN:VALARM\r\nUID:{uid}-alarm\r\n"
            f"ACTION:DISPLAY\r\nDESCRIPTION:{summary}\r\nTRIGGER;RELATED=END:PT0S\r\nEND:VALARM\r\nEND:VTODO\r\n")


def first_line(text, limit=160):
    line = next((l for l in text.splitlines() if l.strip()), "")
    return line if len(line) <= limit else line[:limit] + "…"


def vm_rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


class Result:
    """What a command did: its exit status (None when it was killed at its deadline)."""

    def __init__(self, rc, out, err, seconds):
        self.rc, self.out, self.err, self.seconds = rc, out, err, seconds

    @property
    def timed_out(self):
        return self.rc is None

    @property
    def sigpipe(self):
        return self.rc in (-signal.SIGPIPE, 128 + signal.SIGPIPE)

    def describe(self):
        if self.timed_out:
            return f"still running after {self.seconds:.0f} s (killed)"
        said = first_line(self.err) or first_line(self.out)
        return f"exit {self.rc}" + (f": {said}" if said else "")


# ---------------------------------------------------------------------------------------------
# A scene: temp dir, spool, config, private bus, notification server, heraldd


class Scene:
    def __init__(self, bindir, label, keep=False):
        self.bindir, self.keep = bindir, keep
        self.dir = tempfile.mkdtemp(prefix=f"herald-attack-{label}-")
        self.spool = os.path.join(self.dir, "spool")
        self.config_path = os.path.join(self.dir, "config.yaml")
        self.tmpdir = os.path.join(self.dir, "tmp")
        self.log_path = os.path.join(self.dir, "heraldd.log")
        self.fifos = []
        # Hanging FUSE mounts (unmounted first at close: a process waiting on one cannot end
        # before), other processes started in the scene, and variables heraldd is given.
        self.mounts, self.children, self.extra_env = [], [], {}
        self._log, self._log_read = "", 0
        self._plans, self._plans_scanned = [], 0
        self.bus = self.server = self.daemon = None
        self.bus_address = None
        os.makedirs(self.tmpdir)
        self.write_config("{}\n")
        try:
            self._start_bus()
            self._start_server()
        except BaseException:
            self.close()
            raise

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # --- set-up

    def _start_bus(self):
        conf = os.path.join(self.dir, "bus.conf")
        bus.write_config(conf, self.dir)
        out = os.path.join(self.dir, "dbus-daemon.out")
        with open(out, "w") as f:
            self.bus = subprocess.Popen(["/usr/bin/dbus-daemon", f"--config-file={conf}", "--nofork", "--print-address=1"],
                                        stdout=f, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                        env={"PATH": "/usr/bin:/bin"})

        def address():
            with open(out) as f:
                line = f.readline().strip()
            return line if line.startswith("unix:") else None
        self.bus_address = wait_until(address, 10)
        if not self.bus_address:
            raise SetupError("dbus-daemon did not start: " + open(out).read())

    def _start_server(self):
        out = open(os.path.join(self.dir, "notifyd.out"), "w")
        self.server = subprocess.Popen([DBUS_PYTHON, "-m", "dbusmock", "--template", "notification_daemon",
                                        "-p", '{"capabilities": "body body-markup actions icon-static"}'],
                                       stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                       env={"DBUS_SESSION_BUS_ADDRESS": self.bus_address, "PATH": "/usr/bin:/bin"})
        out.close()
        if wait_until(lambda: self.notifications() is not None, 15, interval=0.2) is None:
            raise SetupError("the dbusmock notification server did not come up on the private bus")

    @property
    def env(self):
        """Everything points into the scene: no real config, spool, bus or tmp is touched."""
        return {"PATH": "/usr/bin:/bin", "HOME": self.dir, "LANG": "C.UTF-8", "TZ": "Europe/Berlin",
                "HERALD_SPOOL": self.spool, "HERALD_CONFIG": self.config_path, "TMPDIR": self.tmpdir,
                "XDG_CONFIG_HOME": os.path.join(self.dir, ".config"), "XDG_STATE_HOME": os.path.join(self.dir, ".state"),
                "XDG_DATA_HOME": os.path.join(self.dir, ".local/share"), "DBUS_SESSION_BUS_ADDRESS": self.bus_address or ""}

    def write_config(self, yaml):
        with open(self.config_path, "w") as f:
            f.write(yaml)

    def folder(self, relative):
        path = os.path.join(self.dir, relative)
        os.makedirs(path, exist_ok=True)
        return path

    def mkfifo(self, path):
        os.mkfifo(path)
        self.fifos.append(path)
        return path

    # --- heraldd

    def start_daemon(self, timeout=60):
        """Starts heraldd (libnotify on the private bus) and waits for its "Ready"."""
        with open(self.log_path, "a") as log:
            self.daemon = subprocess.Popen([os.path.join(self.bindir, "heraldd")], env={**self.env, **self.extra_env}, stdin=subprocess.DEVNULL,
                                           stdout=subprocess.DEVNULL, stderr=log)
        if not wait_until(lambda: "info: Ready" in self.log() or self.daemon.poll() is not None, timeout):
            raise SetupError(f"heraldd did not log Ready within {timeout} s")
        if self.daemon.poll() is not None:
            raise SetupError(f"heraldd exited {self.daemon.returncode} at start: {first_line(self.log()[-2000:])}")

    def log(self):
        """heraldd's stderr so far, read on from where the last call stopped (the log of a
        flood of bad files runs to megabytes, and it is polled)."""
        try:
            with open(self.log_path, "rb") as f:
                f.seek(self._log_read)
                more = f.read()
        except FileNotFoundError:
            return ""
        # Only whole lines: the rest is read again next time.
        whole = more[:more.rfind(b"\n") + 1]
        self._log_read += len(whole)
        self._log += whole.decode(errors="replace")
        return self._log

    def plans(self):
        """heraldd's "Calendar planned" lines so far: the number of files each plan read."""
        text = self.log()
        self._plans += [int(n) for n in re.findall(r"Calendar planned\b[^\n]*?\bfiles=(\d+)", text[self._plans_scanned:])]
        self._plans_scanned = len(text)
        return list(self._plans)

    def wait_for_plan(self, after, timeout, files=None):
        """Waits for a plan past the first `after` ones (reading `files` files, if given)."""
        return wait_until(lambda: any(files is None or n == files for n in self.plans()[after:]), timeout)

    def wait_intake_idle(self, timeout=20):
        """Waits until heraldd has taken in everything in new/ (hidden claims aside)."""
        return wait_until(lambda: not [n for n in self.list("new") if not n.startswith(".")], timeout)

    # --- the spool

    def list(self, sub):
        try:
            return sorted(os.listdir(os.path.join(self.spool, sub)))
        except FileNotFoundError:
            return []

    def where(self, job_id):
        """Which spool directory holds job `job_id` (jobs, done, cancelled, failed, new), and its name."""
        for sub in ("jobs", "new", "done", "cancelled", "failed"):
            for name in self.list(sub):
                if name.startswith(job_id + "@") or name in (job_id + ".json", job_id):
                    return sub, name
        return None, None

    def submit(self, document, name):
        """Puts a job file into new/ the maildir way, as any program may."""
        tmp = os.path.join(self.spool, "tmp", name)
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(json.dumps(document) if isinstance(document, dict) else document)
            f.flush()
            os.fsync(f.fileno())
        os.rename(tmp, os.path.join(self.spool, "new", name))

    def calendar_job(self, uid, subs=("jobs", "done")):
        """The name of the calendar job planned from item `uid` (pending or fired), else None."""
        for sub in subs:
            for name in self.list(sub):
                if not name.startswith("cal-") or not name.endswith(".json"):
                    continue
                try:
                    with open(os.path.join(self.spool, sub, name)) as f:
                        if json.load(f).get("calendar", {}).get("uid") == uid:
                            return f"{sub}/{name}"
                except (OSError, ValueError):
                    continue
        return None

    def failed_reason(self, name):
        try:
            with open(os.path.join(self.spool, "failed", name + ".reason"), errors="replace") as f:
                return first_line(f.read())
        except OSError:
            return "?"

    # --- herald and the server

    def herald(self, *args, timeout=30, env=None):
        """Runs the CLI to completion or its deadline (then SIGKILL); output goes to files so
        that an editor or other child left holding a pipe cannot hang the wait."""
        out_path, err_path = os.path.join(self.dir, "cli.out"), os.path.join(self.dir, "cli.err")
        started = time.monotonic()
        with open(out_path, "w") as out, open(err_path, "w") as err:
            p = subprocess.Popen([os.path.join(self.bindir, "herald"), *args], env=env or self.env,
                                 stdin=subprocess.DEVNULL, stdout=out, stderr=err)
            try:
                rc = p.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(timeout=10)
                rc = None
        with open(out_path, errors="replace") as o, open(err_path, errors="replace") as e:
            return Result(rc, o.read(), e.read(), time.monotonic() - started)

    def notifications(self):
        """The Notify calls the server received (None: the server did not answer)."""
        try:
            r = subprocess.run([DBUS_PYTHON, "-c", NOTIFY_CALLS], capture_output=True, text=True, timeout=10,
                               env={"DBUS_SESSION_BUS_ADDRESS": self.bus_address, "PATH": "/usr/bin:/bin"})
        except subprocess.TimeoutExpired:
            return None
        return json.loads(r.stdout) if r.returncode == 0 else None

    def popup(self, text, timeout):
        """The first popup whose summary or body holds `text`, waited for up to `timeout` s."""
        def find():
            return next((n for n in self.notifications() or [] if text in n["summary"] or text in n["body"]), None)
        return wait_until(find, timeout, interval=0.25)

    # --- tear-down

    def close(self):
        for mount in self.mounts:
            mount.close()
        for p in (*self.children, self.daemon, self.server, self.bus):
            if p is not None and p.poll() is None:
                p.kill()  # SIGKILL: a heraldd stuck on a FIFO ignores anything kinder
                try:
                    p.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    pass
        for path in self.fifos:
            try:
                os.unlink(path)
            except FileNotFoundError:
                pass
        if not self.keep:
            shutil.rmtree(self.dir, ignore_errors=True)


def reminder(job_id, at, title, **extra):
    return {"version": 1, "kind": "reminder", "id": job_id, "at": iso(at), "title": title, **extra}


# ---------------------------------------------------------------------------------------------
# The attacks. Each returns (held, evidence).


def attack_flood(scene):
    """1. limits.jobs: 1000 and 1,001 one-item files in the synced collection; then a real
    reminder made with --sync must still be planned and shown, and a re-plan must not write
    another refused batch into failed/."""
    collection = scene.folder("cal/shared")
    scene.write_config(f"sync:\n  calendar: {collection}\nlimits:\n  jobs: 1000\n")
    now = time.time()
    for k in range(1001):
        # All later than the real reminder: a fix that keeps the nearest items keeps it.
        write_atomically(os.path.join(collection, f"flood-{k}.ics"),
                         vcalendar(vevent(f"flood-{k}@peer", now + 7200 + 60 * k, f"Flood {k}")))
    scene.start_daemon()
    if not scene.wait_for_plan(0, 180):
        return False, "heraldd did not plan the 1,001 files within 180 s"
    scene.wait_intake_idle()
    r = scene.herald("remind", "--sync", "--id", "real", "--in", "20s", "Real after flood")
    if r.rc != 0:
        return False, f"herald remind --sync refused the real reminder: {r.describe()}"
    due = time.monotonic() + 20
    job = wait_until(lambda: scene.calendar_job("herald-real"), 30, interval=0.5)
    shown = job and scene.popup("Real after flood", max(5, due - time.monotonic() + 15))
    failed_before = [n for n in scene.list("failed") if not n.endswith(".reason")]
    plans = len(scene.plans())
    write_atomically(os.path.join(collection, "replan.ics"), vcalendar(vevent("replan@peer", now + 86400, "Replan")))
    scene.wait_for_plan(plans, 60)
    scene.wait_intake_idle()
    time.sleep(0.5)  # a refused batch is moved to failed/ just after the intake takes it
    failed_after = [n for n in scene.list("failed") if not n.endswith(".reason")]
    added = [n for n in failed_after if n not in failed_before]
    reason = scene.failed_reason(failed_after[-1]) if failed_after else ""
    # Evidence only, not the verdict: the issue also wants the user told, in herald status.
    told = [l for l in scene.herald("status").out.splitlines() if "skipped" in l or "planned" in l]
    held = bool(job and shown and not added)
    parts = [f"synced reminder {'planned as ' + job if job else 'never got a job (30 s)'}",
             "shown" if shown else "no popup", f"failed/ {len(failed_before)} file(s), +{len(added)} after a re-plan",
             f"herald status: '{first_line(told[0], 140)}'" if told else "herald status says nothing of the items left out"]
    if reason and not held:
        parts.append(f"reason: {reason}")
    return held, "; ".join(parts)


def attack_shadow(scene):
    """2. A peer's item with UID herald-stretch (file herald-stretch.ics, as vdirsyncer names
    it) beside a local job `stretch`: `herald show`, `reschedule` and `cancel stretch` must act
    on the local job (or refuse, naming both), never read, rewrite or delete the peer's file."""
    collection = scene.folder("cal/shared")
    scene.write_config(f"sync:\n  calendar: {collection}\n")
    scene.start_daemon()
    r = scene.herald("remind", "--id", "stretch", "--in", "1h", "Stretch (local)")
    if r.rc != 0 or not wait_until(lambda: scene.where("stretch")[0] == "jobs", 10):
        raise SetupError(f"the local job 'stretch' was not made: {r.describe()}")
    peer_file = os.path.join(collection, "herald-stretch.ics")
    write_atomically(peer_file, vcalendar(vtodo("herald-stretch", time.time() + 7200, "The other party's item")))
    if not wait_until(lambda: scene.calendar_job("herald-stretch", subs=("jobs",)), 15):
        raise SetupError("heraldd did not plan the peer's item")
    with open(peer_file, "rb") as f:
        peer_bytes = f.read()
    # show: the local job (or a refusal naming both), never the peer's item alone.
    r = scene.herald("show", "stretch")
    show_ok = r.rc != 0 or "Stretch (local)" in r.out
    show = "show: " + ("the local job" if r.rc == 0 and show_ok else "refused" if r.rc else "the PEER's item")
    # reschedule: moves the local job (or refuses), never rewrites the peer's file.
    before = scene.where("stretch")[1]
    r = scene.herald("reschedule", "stretch", "--in", "2h")
    rewritten = not os.path.exists(peer_file) or open(peer_file, "rb").read() != peer_bytes
    moved = scene.where("stretch")[1] != before
    reschedule_ok = not rewritten and (moved or r.rc != 0)
    reschedule = (f"reschedule: exit {r.rc}, local job {'moved' if moved else 'not moved'}, "
                  f"peer's file {'REWRITTEN' if rewritten else 'unchanged'}")
    r = scene.herald("cancel", "stretch")
    peer_kept = os.path.exists(peer_file)
    local = scene.where("stretch")[0]
    cancel_ok = peer_kept and (local == "cancelled" or r.rc not in (0, None))
    cancel = (f"cancel: {r.describe() if r.rc else 'exit 0: ' + first_line(r.out)}; "
              f"peer's herald-stretch.ics {'kept' if peer_kept else 'DELETED'}; local job in {local}/")
    return show_ok and reschedule_ok and cancel_ok, "; ".join([show, reschedule, cancel])


def attack_escape(scene):
    """3. Forged calendar jobs in new/ naming a file outside the synced collection: `herald
    reschedule` and `cancel` on them must neither rewrite nor delete it. As the issue has it ("<collection>/../../victim.txt"),
    and through a symbolic link to a folder outside, planted in the collection by a local
    program (no `..` in the string: only the file system can contain that one)."""
    collection = scene.folder("cal/shared")
    scene.write_config(f"sync:\n  calendar: {collection}\n")
    outside = scene.folder("outside")
    os.symlink(outside, os.path.join(collection, "evil"))
    scene.start_daemon()
    # After the first plan: a plan that saw a forged job (its source is the collection, which
    # does not hold its item) would remove it, and the attack would prove nothing.
    scene.wait_for_plan(0, 30)
    probes = [("/../../victim.txt", os.path.join(scene.dir, "victim.txt")), ("/evil/victim.ics", os.path.join(outside, "victim.ics"))]
    verdicts, held = [], True
    for k, (tail, victim) in enumerate(probes):
        said = []
        # A forged job each: a reschedule that rewrites the job could spoil it for the cancel.
        for n, command in enumerate(["reschedule", "cancel"]):
            kept, what = forge_and_run(scene, f"cal-0123456789abcd{k}{n}", collection + tail, victim, command)
            held = held and kept
            said.append(what)
        verdicts.append(f"'<collection>{tail}': " + ", ".join(said))
    return held, "; ".join(verdicts)


def forge_and_run(scene, job_id, file, victim, command):
    """Writes `victim` (a calendar item of the forged UID, so that a rewrite would work too),
    forges a calendar job whose item is `file`, and runs `herald reschedule` or `cancel` on
    it: (victim kept unchanged, evidence)."""
    now = time.time()
    original = vcalendar(vtodo("forged@peer", now + 3600, "Victim"))
    with open(victim, "w", newline="") as f:
        f.write(original)
    collection = os.path.join(scene.dir, "cal/shared")
    scene.submit({"version": 1, "kind": "calendar", "id": job_id, "title": "Forged",
                  "calendar": {"file": file, "uid": "forged@peer", "source": collection, "writeBack": True},
                  "alarms": [{"at": iso(now + 3600), "start": iso(now + 3900)}]}, job_id + ".json")
    if not wait_until(lambda: scene.where(job_id)[0] in ("jobs", "failed"), 15):
        raise SetupError(f"heraldd neither took in nor refused the forged job {job_id}")
    sub, name = scene.where(job_id)
    if sub == "failed":
        said = f"forged job refused by the intake ({scene.failed_reason(name)})"
    else:
        said = f"{command} exit {scene.herald(command, job_id, *(['--in', '3h'] if command == 'reschedule' else [])).rc}"
    if not os.path.exists(victim):
        state = "DELETED"
    else:
        with open(victim, newline="") as f:
            state = "kept" if f.read() == original else "REWRITTEN"
    return state == "kept", f"{said}, victim {state}"


def blocked_on_fifo(pid):
    """A thread of `pid` asleep opening a FIFO (the kernel's wait for a writer), if any."""
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/wchan") as f:
                where = f.read()
            if "fifo" in where or "partner" in where:
                return f"thread {tid} in {where}"
    except OSError:
        pass
    return None


def attack_fifo(scene):
    """4. mkfifo <vdir>/fifo.ics, and link.ics a symlink to a FIFO elsewhere: heraldd must
    still plan a good item added after them, fire a reminder due 2 s later, and end within
    2 s of SIGTERM."""
    vdir = scene.folder("cal/shared")
    scene.write_config(f"calendars:\n  sources: {vdir}\n")
    scene.start_daemon()
    scene.wait_for_plan(0, 30)
    scene.mkfifo(os.path.join(vdir, "fifo.ics"))
    # The other form: a symlink in the calendar to a FIFO outside it.
    os.symlink(scene.mkfifo(os.path.join(scene.folder("elsewhere"), "fifo")), os.path.join(vdir, "link.ics"))
    stuck = wait_until(lambda: blocked_on_fifo(scene.daemon.pid), 3)
    write_atomically(os.path.join(vdir, "good.ics"), vcalendar(vevent("good@peer", time.time() + 3600, "Good")))
    planned = wait_until(lambda: scene.calendar_job("good@peer", subs=("jobs",)), 10)
    r = scene.herald("remind", "--in", "2s", "Due two seconds later")
    shown = r.rc == 0 and scene.popup("Due two seconds later", 12)
    scene.daemon.send_signal(signal.SIGTERM)
    started = time.monotonic()
    try:
        scene.daemon.wait(timeout=2.5)
        ended = f"SIGTERM ended heraldd in {time.monotonic() - started:.1f} s"
    except subprocess.TimeoutExpired:
        ended = "heraldd still running 2.5 s after SIGTERM"
    exited = scene.daemon.poll() is not None
    held = bool(planned and shown and exited)
    return held, "; ".join([stuck or "no thread seen blocked on fifo.ics or link.ics → FIFO",
                            "a good item added after it was planned" if planned else "a good item added after it was NOT planned (10 s)",
                            "reminder due 2 s later shown" if shown else "reminder due 2 s later NOT shown (12 s)", ended])


def attack_minutely(scene):
    """5. `herald remind --sync --every minutely` (and *:0/5, *:0/10): refused by the CLI, or
    planned by heraldd; never accepted and then skipped."""
    collection = scene.folder("cal/shared")
    scene.write_config(f"sync:\n  calendar: {collection}\n")
    scene.start_daemon()
    scene.wait_for_plan(0, 30)
    verdicts, held = [], True
    for k, expression in enumerate(["minutely", "*:0/5", "*:0/10"]):
        job_id = f"every{k}"
        plans = len(scene.plans())
        r = scene.herald("remind", "--sync", "--id", job_id, "--every", expression, f"Every {expression}")
        if r.rc != 0:
            verdicts.append(f"'{expression}' refused ({r.describe()})")
            continue
        scene.wait_for_plan(plans, 30)
        job = wait_until(lambda: scene.calendar_job("herald-" + job_id), 10)
        if job:
            verdicts.append(f"'{expression}' accepted and planned ({job})")
        else:
            held = False
            skipped = [l for l in scene.log().splitlines() if "skipped" in l and f"herald-{job_id}" in l]
            why = re.sub(r"^.*problem=", "", skipped[-1]) if skipped else "no job, no log line"
            verdicts.append(f"'{expression}' accepted ({first_line(r.out, 60)}) but never planned: {first_line(why, 120)}")
    return held, "; ".join(verdicts)


def attack_oversize(scene):
    """6. Texts that pass the CLI but whose job file is over 64 KiB once escaped: the CLI must
    refuse them, or heraldd take them; never exit 0 and then lose them in failed/. One probe
    beyond the issue's text, of the same kind: `herald reschedule` of a calendar job must
    refuse, or write a job that `herald validate` (the intake's rules) passes."""
    vdir = scene.folder("cal/mine")
    scene.write_config(f"calendars:\n  sources: {vdir}\n")
    write_atomically(os.path.join(vdir, "dentist.ics"), vcalendar(vevent("dentist@me", time.time() + 7200, "Dentist")))
    scene.start_daemon()
    verdicts, held = [], True
    cases = [("12,000 \\x01", "\x01" * 12000), ('40,000 "', '"' * 40000), ("70,000 letters", "a" * 70000)]
    for k, (label, text) in enumerate(cases):
        job_id = f"big{k}"
        r = scene.herald("remind", "--id", job_id, "--in", "1h", text)
        if r.rc != 0:
            verdicts.append(f"{label}: refused ({first_line(r.err, 90)})")
            continue
        sub = wait_until(lambda: scene.where(job_id)[0] in ("jobs", "failed") and scene.where(job_id)[0], 10)
        if sub == "jobs":
            verdicts.append(f"{label}: accepted and pending")
        else:
            held = False
            name = scene.where(job_id)[1]
            verdicts.append(f"{label}: exit 0, then " + (f"failed/ ({scene.failed_reason(name)})" if sub == "failed" else "not in jobs/"))
    ok, said = reschedule_calendar_job(scene, "dentist@me")
    return held and ok, "; ".join(verdicts + [said])


def reschedule_calendar_job(scene, uid):
    """`herald reschedule` of the calendar job of item `uid`: (held, evidence)."""
    job = wait_until(lambda: scene.calendar_job(uid, subs=("jobs",)), 15)
    if not job:
        raise SetupError(f"heraldd did not plan the calendar item {uid}")
    job_id = os.path.basename(job).split("@")[0]
    r = scene.herald("reschedule", job_id, "--in", "3h")
    if r.rc != 0:
        return True, f"beyond the issue: reschedule of a calendar job refused ({first_line(r.err, 90)})"
    sub, name = scene.where(job_id)
    if sub != "jobs":
        return False, f"beyond the issue: reschedule of a calendar job: exit 0, then the job is in {sub}/"
    v = scene.herald("validate", os.path.join(scene.spool, "jobs", name))
    if v.rc != 0:
        return False, f"beyond the issue: reschedule of a calendar job: exit 0, but herald validate refuses what it wrote ({first_line(v.out + v.err, 110)})"
    return True, "beyond the issue: reschedule of a calendar job: exit 0, and the job it wrote validates"


def attack_icon(scene):
    """7. Icons from job files (a FIFO, /dev/zero) must not reach the server as file paths,
    and the CLI must not take a 60,000-character icon name."""
    scene.start_daemon()
    fifo = scene.mkfifo(os.path.join(scene.folder("icons"), "fifo.png"))
    verdicts, held = [], True
    for k, icon in enumerate([fifo, "/dev/zero"]):
        title = f"Icon probe {k}"
        job_id = f"icon{k}"
        scene.submit(reminder(job_id, time.time() + 2, title, icon=icon), job_id + ".json")
        shown = scene.popup(title, 15)
        sub, name = scene.where(job_id)
        if shown:
            sent = [v for v in [shown["icon"], *shown["hints"].values()] if icon in v]
            if sent:
                held = False
                verdicts.append(f"{icon}: sent to the server as {sent[0]!r}")
            else:
                verdicts.append(f"{icon}: shown without it (icon {shown['icon']!r})")
        elif sub == "failed":
            verdicts.append(f"{icon}: job refused ({scene.failed_reason(name)})")
        else:
            held = False
            verdicts.append(f"{icon}: no popup within 15 s (job in {sub}/)")
    r = scene.herald("remind", "--in", "1h", "--icon", "i" * 60000, "Long icon")
    if r.rc == 0:
        held = False
        verdicts.append("the CLI took a 60,000-character icon name (exit 0)")
    else:
        verdicts.append(f"60,000-character icon refused ({first_line(r.err, 80)})")
    ok, said = edit_icon_in(scene, fifo)
    held = held and ok
    verdicts.append(said)
    return held, "; ".join(verdicts)


def edit_icon_in(scene, icon):
    """`herald edit` with an editor that sets a job's icon to `icon` (the job due in 6 s):
    refused, or the popup shown without it."""
    r = scene.herald("remind", "--id", "iconedit", "--in", "6s", "Icon edit probe")
    if r.rc != 0 or not wait_until(lambda: scene.where("iconedit")[0] == "jobs", 5):
        raise SetupError(f"the job 'iconedit' was not made: {r.describe()}")
    editor = write_editor(scene, "icon-editor", f"#!{sys.executable}\nimport json, sys\n"
                          "job = json.load(open(sys.argv[1]))\n"
                          f"job['icon'] = {icon!r}\nopen(sys.argv[1], 'w').write(json.dumps(job))\n")
    r = scene.herald("edit", "iconedit", timeout=5, env={**scene.env, "EDITOR": editor, "VISUAL": ""})
    if r.rc != 0:
        return True, f"herald edit of the icon to the FIFO refused ({r.describe()})"
    shown = scene.popup("Icon edit probe", 15)
    if not shown:
        return False, "herald edit took the FIFO as icon, and no popup came within 15 s"
    sent = [v for v in [shown["icon"], *shown["hints"].values()] if icon in v]
    if sent:
        return False, f"herald edit took the FIFO as icon, sent to the server as {sent[0]!r}"
    return True, f"herald edit took the FIFO as icon (exit 0), shown without it (icon {shown['icon']!r})"


def bad_file(k):
    """A bad calendar file of five bad items (each a problem heraldd reports and remembers)."""
    return vcalendar(*(f"BEGIN:VEVENT\r\nUID:bad-{k}-{i}\r\nDTSTART:not-a-date-{i}\r\nSUMMARY:Bad\r\n"
                       "BEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER:-PT5M\r\nEND:VALARM\r\nEND:VEVENT\r\n" for i in range(5)))


def attack_leak(scene, rounds=4, files=5000, slack_kib_per_round=4096):
    """8. Rounds of uniquely named bad files, made and deleted: heraldd's memory must not grow
    round after round (nor stay grown after SIGHUP). Each round is a new collection folder
    renamed into the vdir, then out of it, so that each is one plan of `files` files.

    The slack is for the allocator: VmRSS after a round moves by a MiB or two either way
    with nothing kept. What the issue found keeps every problem reported (25,000 a round
    here, with their paths): over 10 MiB a round."""
    vdir = scene.folder("cal/shared")
    staging = scene.folder("staging")
    scene.write_config(f"calendars:\n  sources: {vdir}\n")
    scene.start_daemon()
    scene.wait_for_plan(0, 30)
    pid = scene.daemon.pid
    samples = []
    for rnd in range(rounds):
        # Long, unique names: a path a peer chooses costs what it costs, once per file version.
        name = f"round-{rnd}-" + "x" * 40
        folder = os.path.join(staging, name)
        os.makedirs(folder)
        for k in range(files):
            with open(os.path.join(folder, f"bad-{rnd}-{k}-{'y' * 120}.ics"), "w", newline="") as f:
                f.write(bad_file(k))
        plans = len(scene.plans())
        os.rename(folder, os.path.join(vdir, name))
        if not scene.wait_for_plan(plans, 120, files=files):
            return False, f"round {rnd + 1}: heraldd did not plan the {files} bad files within 120 s"
        plans = len(scene.plans())
        gone = os.path.join(staging, name + ".gone")
        os.rename(os.path.join(vdir, name), gone)
        shutil.rmtree(gone)
        if not scene.wait_for_plan(plans, 60, files=0):
            return False, f"round {rnd + 1}: heraldd did not plan the emptied vdir within 60 s"
        time.sleep(1.5)  # let the allocator hand back what the plan freed
        samples.append(vm_rss_kib(pid))
    plans = len(scene.plans())
    scene.daemon.send_signal(signal.SIGHUP)
    scene.wait_for_plan(plans, 30)
    time.sleep(1.5)
    after_hup = vm_rss_kib(pid)
    # The first round pays for what heraldd allocates once (caches, thread stacks, the
    # allocator's arenas); rounds after it, bad files that are gone must cost nothing.
    growth = samples[-1] - samples[0]
    per_round = growth / max(1, rounds - 1)
    held = per_round <= slack_kib_per_round and after_hup - samples[0] <= slack_kib_per_round * 2
    trail = " → ".join(f"{s / 1024:.1f}" for s in samples)
    return held, (f"VmRSS after each round of {files:,} bad files made and deleted: {trail} MiB "
                  f"({per_round / 1024:+.2f} MiB a round, {per_round * 1024 / files:+.0f} bytes a file; slack "
                  f"{slack_kib_per_round // 1024} MiB), {after_hup / 1024:.1f} MiB after SIGHUP")


class SocketCrowd:
    """Keeps `count` idle clients connected to heraldd.sock, connecting again each one that
    heraldd cuts off (it drops a client after its exchange deadline), so that the socket is
    always full while herald runs."""

    def __init__(self, path, count):
        self.path, self.count = path, count
        self.sockets = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _connect(self):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(1)
        try:
            s.connect(self.path)
            s.setblocking(False)
            return s
        except OSError:
            s.close()
            return None

    def _run(self):
        while not self.stop.is_set():
            self.sockets = [s for s in self.sockets if s is not None]
            while len(self.sockets) < self.count and not self.stop.is_set():
                s = self._connect()
                if s is None:
                    break
                self.sockets.append(s)
            readable, _, _ = select.select(self.sockets, [], [], 0.05) if self.sockets else ([], [], [])
            for s in readable:  # an answer or EOF: heraldd is done with it, take its place again
                try:
                    s.recv(4096)
                except OSError:
                    pass
                s.close()
                self.sockets.remove(s)

    def close(self):
        self.stop.set()
        self.thread.join(timeout=5)
        for s in self.sockets:
            s.close()


def attack_sigpipe(scene, clients=40, tries=5):
    """9. 40 idle clients on heraldd.sock, then `herald cancel X` 5 times: herald must never
    die of SIGPIPE (exit 141) without a word."""
    scene.start_daemon()
    for k in range(tries):
        r = scene.herald("remind", "--id", f"x{k}", "--in", "1h", f"Cancel me {k}")
        if r.rc != 0:
            raise SetupError(f"could not make job x{k}: {r.describe()}")
    if not wait_until(lambda: all(scene.where(f"x{k}")[0] == "jobs" for k in range(tries)), 10):
        raise SetupError("the jobs to cancel did not reach jobs/")
    crowd = SocketCrowd(os.path.join(scene.spool, "heraldd.sock"), clients)
    try:
        wait_until(lambda: len(crowd.sockets) >= clients, 5)
        results = [scene.herald("cancel", f"x{k}", timeout=30) for k in range(tries)]
    finally:
        crowd.close()
    cancelled = sum(scene.where(f"x{k}")[0] == "cancelled" for k in range(tries))
    deaths = sum(r.sigpipe for r in results)
    silent = sum(r.rc not in (0, None) and not r.err.strip() for r in results)
    outcomes = ", ".join("SIGPIPE" if r.sigpipe else "timeout" if r.timed_out else f"exit {r.rc}" for r in results)
    said = next((first_line(r.err, 90) for r in results if r.err.strip()), "")
    held = deaths == 0 and silent == 0 and not any(r.timed_out for r in results)
    # The verdict is about dying silently; the issue also wants the refusal to say "busy".
    unclear = [r for r in results if r.rc not in (0, None) and r.err.strip() and "busy" not in r.err]
    return held, (f"{clients} idle clients; herald cancel ×{tries}: {outcomes}" + (f" ({said})" if said else "")
                  + f"; {cancelled} of {tries} jobs cancelled"
                  + (f"; note: {len(unclear)} refusal(s) do not say heraldd is busy" if unclear else ""))


def attack_snooze(scene):
    """10. The raw request `v1 snooze tgt 600000000 9999-12-31T23:59:59Z 0000-01-01T00:00:00Z
    tgt@1.json` on heraldd.sock: the job must not be snoozed to the year 9999."""
    scene.start_daemon()
    r = scene.herald("remind", "--id", "tgt", "--in", "1h", "Target")
    if r.rc != 0 or not wait_until(lambda: scene.where("tgt")[0] == "jobs", 10):
        raise SetupError(f"the job 'tgt' was not made: {r.describe()}")
    line = b"v1 snooze tgt 600000000 9999-12-31T23:59:59Z 0000-01-01T00:00:00Z tgt@1.json\n"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(10)
        s.connect(os.path.join(scene.spool, "heraldd.sock"))
        s.sendall(line)
        s.shutdown(socket.SHUT_WR)
        answer = b""
        try:
            while len(answer) < 4096:
                chunk = s.recv(4096)
                if not chunk:
                    break
                answer += chunk
        except socket.timeout:
            pass
    time.sleep(0.3)
    sub, name = scene.where("tgt")
    fields = (name or "").removesuffix(".json").split("@")
    until = ""
    if len(fields) == 3:
        try:
            until = dt.datetime.fromtimestamp(int(fields[2]) / 1e6, UTC).strftime("%Y-%m-%d")
        except (ValueError, OverflowError, OSError):
            until = fields[2]
    far = bool(until) and until[:4].isdigit() and int(until[:4]) > dt.datetime.now(UTC).year + 1
    held = not far and not answer.startswith(b"v1 ok")
    said = answer.decode(errors="replace").strip() or "(no answer)"
    return held, f"heraldd answered '{first_line(said, 100)}'; tgt is {sub}/{name}" + (f" (snoozed until {until})" if until else "")


def write_editor(scene, name, body):
    path = os.path.join(scene.dir, name)
    with open(path, "w") as f:
        f.write(body)
    os.chmod(path, 0o755)
    return path


def fifos_under(folder):
    found = []
    for name in os.listdir(folder):
        path = os.path.join(folder, name)
        if stat.S_ISFIFO(os.lstat(path).st_mode):
            found.append(path)
    return found


def attack_edit(scene):
    """11. `herald edit` with an editor that replaces the file with a FIFO must end (and leave
    no FIFO in $TMPDIR); with one that writes over 64 KiB it must say so, not "a string is
    not closed"."""
    scene.start_daemon()
    r = scene.herald("remind", "--id", "ed", "--in", "1h", "Edit me")
    if r.rc != 0 or not wait_until(lambda: scene.where("ed")[0] == "jobs", 10):
        raise SetupError(f"the job 'ed' was not made: {r.describe()}")
    verdicts, held = [], True
    fifo_editor = write_editor(scene, "fifo-editor", '#!/bin/sh\nrm -f "$1" && mkfifo "$1"\n')
    r = scene.herald("edit", "ed", timeout=10, env={**scene.env, "EDITOR": fifo_editor, "VISUAL": ""})
    left = fifos_under(scene.tmpdir)
    scene.fifos += left
    if r.timed_out or left:
        held = False
        verdicts.append(f"FIFO editor: herald edit {r.describe()}" + (f", FIFO left: {os.path.basename(left[0])}" if left else ""))
    else:
        verdicts.append(f"FIFO editor: {r.describe()}, no FIFO left")
    big_editor = write_editor(scene, "big-editor", f"#!{sys.executable}\nimport json, sys\n"
                              "job = json.load(open(sys.argv[1]))\njob['text'] = 'a' * 70000\n"
                              "open(sys.argv[1], 'w').write(json.dumps(job))\n")
    r = scene.herald("edit", "ed", timeout=10, env={**scene.env, "EDITOR": big_editor, "VISUAL": ""})
    message = r.err + r.out
    sized = re.search(r"KiB|bytes|too (large|long|big)|larger", message) and "not closed" not in message
    if r.rc in (0, None) or not sized:
        held = False
    verdicts.append(f"70,000-character edit: {r.describe()}")
    return held, "; ".join(verdicts)


# ---------------------------------------------------------------------------------------------
# Found by the review of the fix (attacks 12 to 23)


def thread_states(pid):
    """(name, state, wchan) of each thread of `pid` (a thread in state D waits in the kernel)."""
    out = []
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                name = f.read().strip()
            with open(f"/proc/{pid}/task/{tid}/wchan") as f:
                out.append((name, state, f.read()))
        except OSError:
            continue
    return out


# A FUSE file system (run by DBUS_PYTHON, which has fusepy) that behaves like a network mount
# whose server went away: `stuck.ics` (a calendar) and `icon.png` answer or hang as told by
# HANG_GETATTR / HANG_READ (names) and HANG_READDIR (1: listing hangs).
HANGFS = r"""
import errno, os, stat, sys, threading
from fusepy import FUSE, Operations
ICS = (b"BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:x\r\nBEGIN:VEVENT\r\nUID:stuck@hung\r\nDTSTAMP:20261101T000000Z\r\n"
       b"DTSTART:20991231T000000Z\r\nSUMMARY:Stuck\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n")
PNG = bytes.fromhex("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8ffff3f0005fe02fea7d605f20000000049454e44ae426082")
FILES = {"stuck.ics": ICS, "icon.png": PNG}
def names(key): return set(filter(None, os.environ.get(key, "").split(",")))
GETATTR, READ = names("HANG_GETATTR"), names("HANG_READ")
def never(): threading.Event().wait()
class Hanging(Operations):
    def getattr(self, path, fh=None):
        if path == "/":
            return dict(st_mode=stat.S_IFDIR | 0o700, st_nlink=2, st_uid=os.getuid())
        if path[1:] not in FILES:
            raise OSError(errno.ENOENT, "")
        if path[1:] in GETATTR:
            never()
        return dict(st_mode=stat.S_IFREG | 0o600, st_nlink=1, st_size=len(FILES[path[1:]]), st_uid=os.getuid(), st_mtime=1)
    def readdir(self, path, fh):
        if os.environ.get("HANG_READDIR"):
            never()
        return [".", ".."] + list(FILES)
    def open(self, path, flags):
        return 0
    def read(self, path, size, offset, fh):
        if path[1:] in READ:
            never()
        return FILES[path[1:]][offset:offset + size]
FUSE(Hanging(), sys.argv[1], foreground=True, nothreads=False, direct_io=True, attr_timeout=0, entry_timeout=0)
"""


class HangingMount:
    """HANGFS mounted at `path` in the scene; unmounted (lazily: whoever waits on it then gets
    an error and can end) and its process killed when the scene closes."""

    def __init__(self, scene, name, **hang):
        for needed in ("/dev/fuse", "/usr/bin/fusermount"):
            if not os.path.exists(needed):
                raise SetupError(f"{needed} is missing (FUSE is needed for this attack)")
        if subprocess.run([DBUS_PYTHON, "-c", "import fusepy"], capture_output=True, timeout=30).returncode != 0:
            raise SetupError(f"{DBUS_PYTHON} has no fusepy (python3-fusepy)")
        self.path = scene.folder(name)
        script = os.path.join(scene.dir, "hangfs.py")
        with open(script, "w") as f:
            f.write(HANGFS)
        env = {"PATH": "/usr/bin:/bin", **{k.upper(): ",".join(v) if isinstance(v, (list, tuple)) else str(v) for k, v in hang.items()}}
        self.process = subprocess.Popen([DBUS_PYTHON, script, self.path], env=env, stdin=subprocess.DEVNULL,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        scene.mounts.append(self)
        if not wait_until(lambda: os.path.ismount(self.path) or self.process.poll() is not None, 15):
            raise SetupError("the FUSE mount did not come up within 15 s")
        if self.process.poll() is not None:
            raise SetupError(f"the FUSE file system exited {self.process.returncode} (no FUSE in this container?)")

    def close(self):
        try:
            subprocess.run(["/usr/bin/fusermount", "-u", "-z", self.path], capture_output=True, timeout=10)
        except subprocess.TimeoutExpired:
            pass
        if self.process.poll() is None:
            self.process.kill()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass


def attack_near_flood(scene):
    """12. 11 items of a peer, one a file as vdirsyncer stores them, each recurring every minute
    (so always nearer in time than anything further out), in the synced collection with
    limits.jobs: 20 (its share: 10): the reminder made with `herald remind --sync --in 75s`
    afterwards is yours, and must still be planned and shown."""
    collection = scene.folder("cal/shared")
    scene.write_config(f"sync:\n  calendar: {collection}\nlimits:\n  jobs: 20\n")
    now = time.time()
    for k in range(11):
        write_atomically(os.path.join(collection, f"near-{k}.ics"),
                         vcalendar(vevent(f"near-{k}@peer", now + 5 + 5 * k, f"Near {k}", trigger="PT0S", rrule="FREQ=MINUTELY")))
    scene.start_daemon()
    if not scene.wait_for_plan(0, 120):
        raise SetupError("heraldd did not plan the peer's items within 120 s")
    scene.wait_intake_idle()
    plans = len(scene.plans())
    r = scene.herald("remind", "--sync", "--id", "mine", "--in", "75s", "My own synced reminder")
    if r.rc != 0:
        return False, f"herald remind --sync refused it: {r.describe()}"
    due = time.monotonic() + 75
    scene.wait_for_plan(plans, 60)
    planned = wait_until(lambda: scene.calendar_job("herald-mine"), 5)
    shown = scene.popup("My own synced reminder", max(5, due - time.monotonic() + 30))
    told = [l for l in scene.herald("status").out.splitlines() if "calendar" in l]
    return bool(shown), "; ".join([f"herald remind --sync: exit 0 ({first_line(r.out, 70)})",
                                   f"planned as {planned}" if planned else "no job after the re-plan",
                                   "shown" if shown else "NOT shown by 30 s after it was due",
                                   f"herald status: '{first_line(told[0], 150)}'" if told else "herald status says nothing"])


def recurring_event(uid, start, minutes):
    return vevent(uid, start, "R", rrule=f"FREQ=MINUTELY;INTERVAL={minutes}")


def attack_recurring_memory(scene, files=50, per_file=10, limit_mib=256):
    """13. 50 files of 10 items recurring every 11 minutes (under 100 KiB in all; each item
    within its budget of 5,000 alarms, each file within its 50,000): heraldd keeps every alarm
    of the window of every item, and must not grow past 256 MiB for them."""
    vdir = scene.folder("cal/team")
    scene.write_config(f"calendars:\n  sources: {vdir}\n")
    now, size = time.time(), 0
    for f in range(files):
        text = vcalendar(*(recurring_event(f"r-{f}-{i}", now + 600 + i, 11) for i in range(per_file)))
        size += len(text)
        write_atomically(os.path.join(vdir, f"r{f}.ics"), text)
    scene.start_daemon()
    if not scene.wait_for_plan(0, 600):
        raise SetupError("heraldd did not plan within 600 s")
    time.sleep(1)
    pid = scene.daemon.pid
    hwm, rss, cpu = procfs.family_status(pid, "VmHWM") / 1024, procfs.family_status(pid, "VmRSS") / 1024, procfs.cpu_seconds(pid)
    return hwm <= limit_mib, (f"{files} files, {size / 1024:.0f} KiB: heraldd peaked at {hwm:.0f} MiB and holds {rss:.0f} MiB after "
                              f"the plan ({cpu:.0f} s of CPU so far; limit {limit_mib} MiB, the unit's MemoryMax is 1 GiB)")


def attack_dense_replan(scene, files=10, per_file=5, limit_cpu=2.0):
    """14. 10 files of 5 items every minute (each read a day at a time): a re-plan for a change
    elsewhere in the collection (your own `herald remind --sync`) must not read them all again,
    at most 2 s of CPU."""
    collection = scene.folder("cal/shared")
    scene.write_config(f"sync:\n  calendar: {collection}\n")
    now = time.time()
    for f in range(files):
        write_atomically(os.path.join(collection, f"d{f}.ics"),
                         vcalendar(*(recurring_event(f"d-{f}-{i}", now + 6 * 3600 + i, 1) for i in range(per_file))))
    scene.start_daemon()
    if not scene.wait_for_plan(0, 600):
        raise SetupError("heraldd did not plan within 600 s")
    scene.wait_intake_idle()
    time.sleep(1)
    pid, plans = scene.daemon.pid, len(scene.plans())
    before, started = procfs.cpu_seconds(pid), time.monotonic()
    r = scene.herald("remind", "--sync", "--id", "mine", "--in", "2h", "Mine")
    if r.rc != 0:
        raise SetupError(f"herald remind --sync: {r.describe()}")
    if not scene.wait_for_plan(plans, 600):
        return False, "no re-plan within 600 s of herald remind --sync"
    spent, took = procfs.cpu_seconds(pid) - before, time.monotonic() - started
    return spent <= limit_cpu, (f"{files * per_file} items every minute in {files} files: the re-plan for one new synced "
                                f"reminder took {took:.1f} s and {spent:.1f} s of CPU (limit {limit_cpu} s)")


def attack_catchup_loop(scene, seconds=20):
    """15. An item every minute that began two hours ago (a peer's, or your own synced from a
    machine that was off): heraldd must plan it and show at most one late popup, not plan it
    again every second with a "late by N min" popup each time."""
    vdir = scene.folder("cal/team")
    scene.write_config(f"calendars:\n  sources: {vdir}\n")
    write_atomically(os.path.join(vdir, "minutely.ics"),
                     vcalendar(vevent("minutely@peer", time.time() - 7200, "Every minute", trigger="PT0S", rrule="FREQ=MINUTELY")))
    scene.start_daemon()
    if not scene.wait_for_plan(0, 60):
        raise SetupError("heraldd did not plan within 60 s")
    time.sleep(seconds)
    plans = len(scene.plans())
    late = [n for n in scene.notifications() or [] if "Every minute" in n["summary"] + n["body"]]
    held = plans <= 3 and len(late) <= 2
    sample = ", ".join(f"'{first_line(n['summary'] + ' ' + n['body'], 40)}'" for n in late[:3])
    return held, f"in {seconds} s: {plans} plans of one file, {len(late)} popups of the item" + (f" ({sample}, …)" if late else "")


def attack_icon_hung(scene):
    """16. A job in new/ whose icon is a file on a mount that hangs (its stat never returns, as
    on an NFS or SSHFS mount whose server went away), then a plain reminder due 3 s after it:
    the plain one must still show, and SIGTERM must end heraldd."""
    mount = HangingMount(scene, "net", hang_getattr=["icon.png"])
    scene.start_daemon()
    now = time.time()
    scene.submit(reminder("hungicon", now + 1, "Icon on a hung mount", icon=os.path.join(mount.path, "icon.png")), "hungicon.json")
    scene.submit(reminder("plain", now + 4, "Plain reminder after it"), "plain.json")
    shown = scene.popup("Plain reminder after it", 15)
    stuck = [f"{name} in {wchan}" for name, state, wchan in thread_states(scene.daemon.pid) if "fuse" in wchan or "request_wait" in wchan]
    scene.daemon.send_signal(signal.SIGTERM)
    try:
        scene.daemon.wait(timeout=3)
        ended = "SIGTERM ended heraldd"
    except subprocess.TimeoutExpired:
        ended = "heraldd NOT gone 3 s after SIGTERM"
    return bool(shown), "; ".join(["the plain reminder was shown" if shown else "the plain reminder was NOT shown (15 s): no popup shows any more",
                                   f"threads waiting on the mount: {', '.join(stuck)}" if stuck else "no thread waits on the mount", ended])


def attack_hung_restart(scene):
    """17. A calendar source on a mount that hangs (its file's read never returns) beside a
    good one: heraldd notices it does not answer; after SIGTERM it must be gone within the
    README's second, and a heraldd started again (as systemd does) must run."""
    mount = HangingMount(scene, "hung", hang_read=["stuck.ics"])
    vdir = scene.folder("cal/team")
    scene.write_config(f"calendars:\n  sources: {mount.path}, {vdir}\n")
    scene.extra_env["HERALD_CALENDAR_READ_DEADLINE_MS"] = "1500"
    scene.start_daemon()
    noticed = wait_until(lambda: "does not answer" in scene.log(), 15)
    pid = scene.daemon.pid
    scene.daemon.send_signal(signal.SIGTERM)
    started = time.monotonic()
    try:
        scene.daemon.wait(timeout=3)
        gone = time.monotonic() - started
    except subprocess.TimeoutExpired:
        gone = None
    stuck = [f"{name} {state} in {wchan}" for name, state, wchan in thread_states(pid) if state == "D"]
    second_log = os.path.join(scene.dir, "heraldd-2.log")
    with open(second_log, "w") as log:
        second = subprocess.Popen([os.path.join(scene.bindir, "heraldd")], env={**scene.env, **scene.extra_env},
                                  stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log)
    scene.children.append(second)
    wait_until(lambda: second.poll() is not None or "info: Ready" in open(second_log, errors="replace").read(), 15)
    said = first_line(open(second_log, errors="replace").read(), 130)
    runs = second.poll() is None
    held = gone is not None and gone <= 1.5 and runs
    return held, "; ".join(["the source was reported as not answering" if noticed else "the source was NOT reported as not answering (15 s)",
                            f"SIGTERM: gone in {gone:.1f} s" if gone is not None else
                            "SIGTERM: heraldd NOT gone after 3 s" + (f" ({'; '.join(stuck)}; SIGKILL cannot end it either)" if stuck else ""),
                            "a heraldd started again runs" if runs else f"a heraldd started again exited {second.returncode}: {said}"])


def slow_calendar():
    """A small calendar file that takes seconds to plan (each item is expanded over three
    windows before it is skipped): time to kill heraldd while it plans it."""
    seconds = ",".join(str(k) for k in range(0, 60, 2))
    return vcalendar(*(f"BEGIN:VEVENT\r\nUID:slow-{i}\r\nDTSTAMP:20261101T000000Z\r\nDTSTART:20261101T000000Z\r\n"
                       f"RRULE:FREQ=MINUTELY;BYSECOND={seconds}\r\nSUMMARY:Slow\r\nBEGIN:VALARM\r\nACTION:DISPLAY\r\n"
                       "TRIGGER:PT0S\r\nEND:VALARM\r\nEND:VEVENT\r\n" for i in range(3)))


def planning_note(scene):
    """The path and stat of the source's crash-loop note (`.planning-<hash>`), if there is one."""
    for name in scene.list("."):
        if name.startswith(".planning-") and name != ".planning-aside":
            path = os.path.join(scene.spool, name)
            return path, os.stat(path)
    return None, None


def die_while_planning(scene, timeout=60):
    """Starts heraldd and SIGKILLs it (as the OOM killer would) while its crash-loop note names
    the file it is planning; the note must be one this run wrote (a change since the start)."""
    path, before = planning_note(scene)
    stamp = before.st_mtime_ns if before else None
    with open(scene.log_path, "a") as log:
        scene.daemon = subprocess.Popen([os.path.join(scene.bindir, "heraldd")], env={**scene.env, **scene.extra_env},
                                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log)

    def planning():
        _, st = planning_note(scene)
        return st is not None and st.st_size > 0 and st.st_mtime_ns != stamp
    caught = wait_until(lambda: planning() or scene.daemon.poll() is not None, timeout, interval=0.01)
    scene.daemon.kill()
    scene.daemon.wait(timeout=10)
    if not caught or scene.daemon.returncode != -signal.SIGKILL:
        raise SetupError("heraldd was not caught planning the slow file")


def set_aside_after_two_deaths(scene, name):
    """Kills heraldd twice while it plans `name`, starts it again: whether the file is set
    aside now (the log says so, and .planning-aside names it)."""
    vdir = scene.folder("cal/team")
    scene.write_config(f"calendars:\n  sources: {vdir}\n")
    with open(os.path.join(vdir, name), "w", newline="") as f:
        f.write(slow_calendar())
    for _ in range(2):
        die_while_planning(scene)
    scene.start_daemon()
    if not scene.wait_for_plan(0, 120):
        raise SetupError("heraldd did not plan within 120 s after the two deaths")
    aside = os.path.join(scene.spool, ".planning-aside")
    listed = os.path.exists(aside) and os.path.join(vdir, name) in open(aside, errors="replace").read()
    return listed and "stopped while reading this" in scene.log()


def attack_aside_forgotten(scene):
    """18. A calendar file heraldd died on twice (killed while planning it) is set aside; a
    clean stop (SIGTERM, as at every logout) must not forget that: the next start must not
    plan it (and risk dying on it twice more)."""
    if not set_aside_after_two_deaths(scene, "poison.ics"):
        raise SetupError("the crash-loop breaker did not set poison.ics aside after two deaths")
    aside = os.path.join(scene.spool, ".planning-aside")
    scene.daemon.send_signal(signal.SIGTERM)
    scene.daemon.wait(timeout=10)
    kept = open(aside, errors="replace").read()
    held = "poison.ics" in kept
    return held, ("set aside after two deaths; after a clean stop .planning-aside " +
                  ("still names it" if held else f"is {'empty' if not kept else 'without it'} (the next start plans it again)"))


def attack_newline_breaker(scene):
    """19. The crash-loop breaker with a calendar file whose name holds a newline (a name any
    sync tool other than vdirsyncer, or a local program, may write): killed twice while
    planning it, the next start must set it aside like any other file."""
    try:
        held = set_aside_after_two_deaths(scene, "poi\nson.ics")
    except SetupError as e:
        # Herald leaves a name with a control character unread (it is no item file): nothing to break.
        if "was not caught planning" in str(e):
            return True, "a name with a newline is not read at all (no item file: SourceFolder.isPlainName), so it cannot loop"
        raise
    again = scene.log().count("planning it once more")
    return held, ("set aside after two deaths" if held else
                  f"NOT set aside after two deaths: each start says 'planning it once more' ({again} times): its note is read to the newline")


def attack_habit_date(scene):
    """20. `v1 habit-done water 9999-12-31 1` on heraldd.sock: the CLI refuses a day in the
    future, and the socket, which bounds every value against now, must too."""
    scene.start_daemon()
    r = scene.herald("habit", "add", "--target", "8", "--unit", "glasses", "Water")
    if r.rc != 0 or not wait_until(lambda: scene.where("water")[0] == "jobs", 10):
        raise SetupError(f"the habit was not made: {r.describe()}")
    cli = scene.herald("habit", "done", "--date", "9999-12-31", "Water")
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(10)
        s.connect(os.path.join(scene.spool, "heraldd.sock"))
        s.sendall(b"v1 habit-done water 9999-12-31 1\n")
        s.shutdown(socket.SHUT_WR)
        answer = b""
        try:
            while len(answer) < 4096:
                chunk = s.recv(4096)
                if not chunk:
                    break
                answer += chunk
        except socket.timeout:
            pass
    said = answer.decode(errors="replace").strip() or "(no answer)"
    return not said.startswith("v1 ok"), f"the CLI: {cli.describe()[:90]}; the socket: '{first_line(said, 80)}'"


def attack_edit_folder(scene):
    """21. `herald edit` with an editor that leaves a directory where the file was: the edit
    ends, and its folder in $TMPDIR is removed (README: whatever the editor left in it)."""
    scene.start_daemon()
    r = scene.herald("remind", "--id", "ed", "--in", "1h", "Edit me")
    if r.rc != 0 or not wait_until(lambda: scene.where("ed")[0] == "jobs", 10):
        raise SetupError(f"the job 'ed' was not made: {r.describe()}")
    editor = write_editor(scene, "dir-editor", '#!/bin/sh\nrm -f "$1" && mkdir "$1" && touch "$1/x"\n')
    r = scene.herald("edit", "ed", timeout=10, env={**scene.env, "EDITOR": editor, "VISUAL": ""})
    left = [n for n in os.listdir(scene.tmpdir) if n.startswith("herald-edit-")]
    return not left and not r.timed_out, f"herald edit: {r.describe()[:110]}; " + (f"left in $TMPDIR: {left[0]}/" if left else "nothing left")


def attack_check_minutely(scene):
    """22. `herald remind --sync --every minutely` (planned by heraldd a day at a time), then
    `herald calendar check` of the collection: it must not call that item skipped (exit 65)."""
    collection = scene.folder("cal/shared")
    scene.write_config(f"sync:\n  calendar: {collection}\n")
    r = scene.herald("remind", "--sync", "--id", "blink", "--every", "minutely", "Blink")
    if r.rc != 0:
        raise SetupError(f"herald remind --sync --every minutely: {r.describe()}")
    c = scene.herald("calendar", "check", collection)
    return c.rc == 0, f"herald calendar check: {c.describe()[:200]}"


def attack_cli_hung_sync(scene):
    """23. sync.calendar on a mount that hangs (listing it never returns): heraldd reports the
    source as not answering and says `herald status` and `doctor` will tell; those must
    end within 5 s, not wait for ever (nor be beyond SIGKILL) on the folder."""
    mount = HangingMount(scene, "hung", hang_readdir=1)
    scene.write_config(f"sync:\n  calendar: {mount.path}\n")
    scene.start_daemon()
    verdicts, held = [], True
    for command in ("status", "doctor"):
        p = subprocess.Popen([os.path.join(scene.bindir, "herald"), command], env=scene.env, stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        scene.children.append(p)
        try:
            p.wait(timeout=5)
            verdicts.append(f"herald {command}: exit {p.returncode}")
        except subprocess.TimeoutExpired:
            held = False
            p.kill()
            state = [s for _, s, _ in thread_states(p.pid)]
            verdicts.append(f"herald {command}: still running after 5 s" + (" (in D state: SIGKILL does not end it)" if "D" in state else ""))
    return held, "; ".join(verdicts)


ATTACKS = {
    1: ("a flood over limits.jobs switches off new calendar alarms", attack_flood),
    2: ("a synced item named herald-<local id> takes over its commands", attack_shadow),
    3: ("herald cancel deletes a file outside the collection", attack_escape),
    4: ("a FIFO in a calendar folder stops heraldd", attack_fifo),
    5: ("synced --every minutely accepted, never planned", attack_minutely),
    6: ("the CLI accepts what heraldd refuses (64 KiB)", attack_oversize),
    7: ("icon paths from job files are not checked", attack_icon),
    8: ("remembered problems of bad files leak", attack_leak),
    9: ("herald cancel dies of SIGPIPE on a full socket", attack_sigpipe),
    10: ("the socket trusts a client's snooze", attack_snooze),
    11: ("herald edit: an editor's FIFO, an edit over 64 KiB", attack_edit),
    12: ("a peer's nearer items push your own synced reminder out", attack_near_flood),
    13: ("100 KiB of recurring items hold hundreds of MiB", attack_recurring_memory),
    14: ("items every minute are read again at every re-plan", attack_dense_replan),
    15: ("an item every minute that began 2 h ago: a re-plan loop", attack_catchup_loop),
    16: ("an icon on a hung mount stops every popup", attack_icon_hung),
    17: ("a source on a hung mount: SIGTERM, and starting again", attack_hung_restart),
    18: ("a clean stop forgets the calendar files set aside", attack_aside_forgotten),
    19: ("a newline in a file name defeats the crash-loop breaker", attack_newline_breaker),
    20: ("the socket takes a habit-done for the year 9999", attack_habit_date),
    21: ("herald edit leaves its folder behind", attack_edit_folder),
    22: ("herald calendar check calls a minutely synced item skipped", attack_check_minutely),
    23: ("herald status and doctor hang on a hung sync.calendar", attack_cli_hung_sync),
}


def run_attack(number, bindir, keep):
    title, attack = ATTACKS[number]
    started = time.monotonic()
    try:
        with Scene(bindir, str(number), keep=keep) as scene:
            held, evidence = attack(scene)
            verdict = "HELD" if held else "BROKEN"
            if keep:
                evidence += f" [scene kept in {scene.dir}]"
    except SetupError as e:
        verdict, evidence = "ERROR", f"could not set the attack up: {e}"
    except Exception as e:  # one attack's surprise must not stop the others (its scene is torn down)
        verdict, evidence = "ERROR", f"the attack itself failed: {type(e).__name__}: {e}"
    return {"attack": number, "title": title, "result": verdict, "evidence": evidence,
            "seconds": round(time.monotonic() - started, 1)}


def parse_only(text):
    numbers = sorted({int(n) for n in text.split(",") if n.strip()})
    unknown = [n for n in numbers if n not in ATTACKS]
    if unknown:
        raise argparse.ArgumentTypeError(f"no attack {unknown[0]} (1 to {len(ATTACKS)})")
    return numbers


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("--bin", required=True, help="the folder holding herald and heraldd")
    ap.add_argument("--only", type=parse_only, default=sorted(ATTACKS), help="attacks to run, e.g. 4,9 (default: all)")
    ap.add_argument("--json", action="store_true", help="print the results as a JSON list")
    ap.add_argument("--keep", action="store_true", help="keep each scene's temp directory (processes are killed anyway)")
    args = ap.parse_args()
    bindir = os.path.abspath(args.bin)
    for tool in ("herald", "heraldd"):
        if not os.access(os.path.join(bindir, tool), os.X_OK):
            ap.error(f"{bindir}/{tool} is missing")
    for needed in ("/usr/bin/dbus-daemon", DBUS_PYTHON):
        if not os.access(needed, os.X_OK):
            ap.error(f"{needed} is missing")
    results = []
    for number in args.only:
        print(f"[{number}] {ATTACKS[number][0]} ...", file=sys.stderr, flush=True)
        result = run_attack(number, bindir, args.keep)
        results.append(result)
        if not args.json:
            print(f"{number:>2} {result['result']:<6} {result['title']}: {result['evidence']} ({result['seconds']} s)", flush=True)
    if args.json:
        print(json.dumps(results, indent=2, ensure_ascii=False))
    else:
        held = sum(r["result"] == "HELD" for r in results)
        print(f"{held} of {len(results)} held")
    return 0 if all(r["result"] == "HELD" for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
