"""The run's processes: the private bus, the notification server (server.py) and heraldd;
started, killed, and watched for exits nobody asked for."""
import os
import select
import shutil
import signal
import subprocess
import time

from herald_scripts import bus

from .common import SoakError, say
from herald_scripts.procfs import fd_steady, status as proc_status

# The server runs as this package again (`python3 scripts/bench/soak serve ...`).
PACKAGE = os.path.dirname(os.path.realpath(__file__))


def spawn(argv, env, out, stdout=None):
    """A child in a session of its own (Ctrl-C reaches only us; we stop it), killed by the kernel
    if the soak dies (setpriv --pdeathsig)."""
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


class Processes:
    """Part of Soak (harness.py): the bus, the server and heraldd."""

    # ------------------------------------------------------------------ bus and server

    def start_bus(self):
        conf = os.path.join(self.sockets, "bus.conf")
        bus.write_config(conf, self.sockets)
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
        argv = ["/usr/bin/python3", PACKAGE, "serve", "--log", self.notify_log,
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
