#!/usr/bin/python3
"""A real, throw-away desktop session for Herald's notification tests.

Starts Xvfb, a private D-Bus session bus, the AT-SPI bus and ONE real notification
server, then lets tests look at (and click on) the popups that server draws.

    python3 desktop.py serve --server xfce4-notifyd --env-file /tmp/env
    env $(cat /tmp/env) python3 desktop.py click Snooze --timeout 10

or, from Python:

    with Session("dunst") as s:
        subprocess.run(["notify-send", "hi"], env={**os.environ, **s.env})
        s.wait_popups(1)

Must run under /usr/bin/python3 (python3-dbus and python3-pyatspi live there).
See FINDINGS.md next to this file for what each server really does.
"""

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from herald_scripts import bus as private_bus  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON = "/usr/bin/python3"
BUS_NAME = "org.freedesktop.Notifications"
BUS_PATH = "/org/freedesktop/Notifications"
SCREEN = (1280, 800)

# name -> kind and command line. "gtk" servers are inspected through AT-SPI; dunst and
# mako draw with cairo only (nothing accessible), so their own control tools are used.
SERVERS = {
    "xfce4-notifyd": {"kind": "gtk", "argv": ["/usr/lib/x86_64-linux-gnu/xfce4/notifyd/xfce4-notifyd"]},
    "notification-daemon": {"kind": "gtk", "argv": ["/usr/lib/notification-daemon/notification-daemon"]},
    "mate-notification-daemon": {"kind": "gtk",
                                 "argv": ["/usr/lib/mate-notification-daemon/mate-notification-daemon"]},
    "dunst": {"kind": "dunst", "argv": ["dunst"]},
    "mako": {"kind": "mako", "argv": ["mako"]},
    # Servers that live in a module of their own beside this file (gnome.py, plasma.py,
    # swaync.py): it has start(session) and an Inspector(env) class.
    "gnome-shell": {"kind": "module", "module": "gnome", "xvfb": ["+extension", "GLX", "-noreset"]},
    # The same shell as a headless Wayland compositor (gnome.py reads HERALD_GNOME_BACKEND).
    "gnome-shell-wayland": {"kind": "module", "module": "gnome", "env": {"HERALD_GNOME_BACKEND": "wayland"}},
    "plasma": {"kind": "module", "module": "plasma", "xvfb": ["-noreset"]},
    "swaync": {"kind": "module", "module": "swaync"},
}


def server_module(server):
    """The module that starts and inspects a "module" server."""
    import importlib
    sys.dont_write_bytecode = True
    if HERE not in sys.path:
        sys.path.insert(0, HERE)
    return importlib.import_module(SERVERS[server]["module"])
XFCONFD = "/usr/lib/x86_64-linux-gnu/xfce4/xfconf/xfconfd"
ATSPI_LAUNCHER = "/usr/libexec/at-spi-bus-launcher"
# sway refuses to start as uid 0 (it checks it cannot regain root), so it runs as nobody.
SWAY_UID = 65534


class DesktopError(Exception):
    """Something did not come up or did not happen in time; the message says what."""


def wait_for(what, predicate, timeout, interval=0.05):
    """Poll predicate() until it returns something truthy; raise naming `what` on timeout."""
    deadline = time.monotonic() + timeout
    last_error = None
    while True:
        try:
            value = predicate()
            if value:
                return value
        except DesktopError:
            raise
        except Exception as e:  # a not-yet-ready peer often shows up as an exception
            last_error = e
        if time.monotonic() >= deadline:
            detail = f" (last error: {last_error})" if last_error else ""
            raise DesktopError(f"timed out after {timeout:g}s waiting for {what}{detail}")
        time.sleep(interval)


def _run(argv, env, timeout=10, check=True):
    p = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=timeout)
    if check and p.returncode != 0:
        raise DesktopError(f"{' '.join(argv)} failed ({p.returncode}): {p.stderr.strip()}")
    return p.stdout


def _bus(env):
    import dbus
    return dbus.bus.BusConnection(env["DBUS_SESSION_BUS_ADDRESS"])


def _name_owner_pid(env, name):
    """PID of the process owning `name` on the session bus, or None."""
    import dbus
    bus = _bus(env)
    try:
        dbus_iface = dbus.Interface(bus.get_object("org.freedesktop.DBus", "/org/freedesktop/DBus"),
                                    "org.freedesktop.DBus")
        if not dbus_iface.NameHasOwner(name):
            return None
        return int(dbus_iface.GetConnectionUnixProcessID(name))
    finally:
        bus.close()


# --------------------------------------------------------------------------- session


def bus_config(bus_type, listen, note):
    """A private dbus-daemon's configuration (scripts/lib/herald_scripts/bus.py): anyone may own
    or call anything; `note` says what the bus is for."""
    return private_bus.config(f"unix:path={listen}", bus_type, note)

# dunst: client expire_timeout is honoured (ignore_dbustimeout off); these are only the
# defaults for expire_timeout=-1. Actions are listed through the context menu, whose
# "dmenu" is our picker script (dunst draws no buttons).
DUNSTRC = """[global]
    width = 400
    origin = top-right
    offset = 20x20
    font = DejaVu Sans 11
    markup = full
    format = "<b>%s</b>\\n%b"
    show_indicators = yes
    ignore_dbusclose = false
    idle_threshold = 0
    dmenu = {dir}/dunst-pick.sh
    mouse_left_click = close_current
    mouse_middle_click = do_action, close_current
[urgency_low]
    timeout = 10
[urgency_normal]
    timeout = 10
[urgency_critical]
    timeout = 0
[herald_log]
    # Log every notification as dunst sees it: dunst 1.9 cannot list displayed ones.
    summary = "*"
    script = {dir}/dunst-log.sh
"""

# dunst's "dmenu": records the menu it is offered and answers with the action whose label
# is in dunst-want (parsed exactly like buttons() does, by importing this file).
DUNST_PICK = """#!/usr/bin/python3
import os, sys
sys.dont_write_bytecode = True  # keep __pycache__ out of the source tree
sys.path.insert(0, {here!r})
import desktop
sys.exit(desktop.dunst_pick({dir!r}, sys.stdin.read()))
"""

DUNST_LOG = """#!/usr/bin/python3
import json, os
keys = ("DUNST_ID", "DUNST_APP_NAME", "DUNST_SUMMARY", "DUNST_BODY", "DUNST_URGENCY", "DUNST_TIMEOUT")
with open("{dir}/dunst-log.jsonl", "a") as f:
    f.write(json.dumps({{k: os.environ.get(k, "") for k in keys}}) + "\\n")
"""

SWAY_CONFIG = """xwayland disable
output HEADLESS-1 resolution {w}x{h}
"""


class Session:
    """One private desktop: Xvfb + session bus + AT-SPI bus + one notification server."""

    def __init__(self, server, start=True, log=None):
        if server not in SERVERS:
            raise DesktopError(f"unknown server {server!r}; choose from {', '.join(SERVERS)}")
        self.server = server
        self.kind = SERVERS[server]["kind"]
        self.dir = None
        self.env = {}            # what child processes (heraldd, notify-send, tests) need
        self._procs = []         # (name, Popen), in start order
        self._log = log or (lambda msg: None)
        if start:
            self.start()

    # -- lifecycle

    def start(self):
        self.dir = tempfile.mkdtemp(prefix=f"herald-desktop-{self.server}.")
        try:
            self._start()
        except BaseException:
            self.stop()
            raise
        return self

    def _start(self):
        d = self.dir
        for sub in ("home", "config", "data", "cache", "run"):
            os.makedirs(os.path.join(d, sub), mode=0o700)
        # Servers get a private HOME/XDG dirs so no user config leaks in.
        self._base_env = {
            "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
            "HOME": f"{d}/home", "XDG_CONFIG_HOME": f"{d}/config", "XDG_DATA_HOME": f"{d}/data",
            "XDG_CACHE_HOME": f"{d}/cache", "XDG_RUNTIME_DIR": f"{d}/run",
            "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
        }
        # A test that records sound starts its PulseAudio first: servers that play sounds
        # themselves must play them there.
        if "PULSE_SERVER" in os.environ:
            self._base_env["PULSE_SERVER"] = os.environ["PULSE_SERVER"]
        self._start_xvfb()
        self._start_bus()
        self._start_atspi()
        self.env.update({"HERALD_DESKTOP_SERVER": self.server, "HERALD_DESKTOP_DIR": d})
        getattr(self, "_start_" + self.kind)()
        pid = wait_for(f"{self.server} to own {BUS_NAME} on the private bus",
                       lambda: self._alive() and _name_owner_pid(self.env, BUS_NAME), 20)
        self.env["HERALD_DESKTOP_SERVER_PID"] = str(pid)
        self._log(f"{self.server} (pid {pid}) owns {BUS_NAME}")

    def _spawn(self, name, argv, env, **kw):
        """Start a child in its own process group (so stop() also gets its helpers)."""
        log = open(os.path.join(self.dir, f"{name}.log"), "ab")
        p = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                             start_new_session=True, **kw)
        log.close()
        self._procs.append((name, p))
        return p

    def _alive(self):
        for name, p in self._procs:
            if p.poll() is not None:
                raise DesktopError(f"{name} exited with {p.returncode}; see {self.dir}/{name}.log")
        return True

    def _start_xvfb(self):
        # -displayfd makes Xvfb write the display number once it accepts connections.
        n = 90
        while True:
            while os.path.exists(f"/tmp/.X{n}-lock") or os.path.exists(f"/tmp/.X11-unix/X{n}"):
                n += 1
            r, w = os.pipe()
            p = self._spawn("xvfb", ["Xvfb", f":{n}", "-screen", "0", f"{SCREEN[0]}x{SCREEN[1]}x24",
                                     "-nolisten", "tcp", "-br", "-displayfd", str(w),
                                     *SERVERS[self.server].get("xvfb", [])],
                            self._base_env, pass_fds=(w,))
            os.close(w)
            with os.fdopen(r) as f:
                ready = f.readline().strip()  # EOF if Xvfb died (e.g. lost the race for :n)
            if ready:
                break
            p.wait()
            self._procs.pop()
            n += 1
        self.display = f":{n}"
        self.env["DISPLAY"] = self.display
        self._log(f"Xvfb on {self.display}")

    def _start_bus(self):
        conf = os.path.join(self.dir, "bus.conf")
        with open(conf, "w") as f:
            # No <standard_session_servicedirs/>: nothing may be auto-activated, so the only
            # notification server on this bus is the one we start ourselves.
            f.write(bus_config("session", f"{self.dir}/bus", "no service directories: nothing is auto-activated"))
        r, w = os.pipe()
        self._spawn("dbus", ["dbus-daemon", f"--config-file={conf}", "--nofork", f"--print-address={w}"],
                    self._base_env, pass_fds=(w,))
        os.close(w)
        with os.fdopen(r) as f:
            address = f.readline().strip()
        if not address:
            raise DesktopError(f"dbus-daemon did not start; see {self.dir}/dbus.log")
        self.env["DBUS_SESSION_BUS_ADDRESS"] = address

    def _start_atspi(self):
        env = {**self._base_env, **self.env}
        self._spawn("atspi", [ATSPI_LAUNCHER, "--launch-immediately"], env)
        wait_for("the AT-SPI bus launcher to own org.a11y.Bus",
                 lambda: self._alive() and _name_owner_pid(self.env, "org.a11y.Bus"), 15)
        import dbus
        bus = _bus(self.env)
        try:
            address = str(bus.get_object("org.a11y.Bus", "/org/a11y/bus").GetAddress(
                dbus_interface="org.a11y.Bus"))
        finally:
            bus.close()
        # Given explicitly so clients never have to go through the X root property.
        self.env["AT_SPI_BUS_ADDRESS"] = address

    def _server_env(self):
        env = {**self._base_env, **self.env,
               # Makes GTK load the AT-SPI bridge so the popups are inspectable.
               "GTK_MODULES": "gail:atk-bridge", "GDK_BACKEND": "x11"}
        env.pop("NO_AT_BRIDGE", None)
        return env

    def _start_gtk(self):
        env = self._server_env()
        if self.server == "xfce4-notifyd":
            # No service activation on this bus, so xfconfd is started by hand; without it
            # every xfconf read fails (and is logged) though the built-in defaults still apply.
            self._spawn("xfconfd", [XFCONFD], env)
            wait_for("xfconfd to own org.xfce.Xfconf",
                     lambda: self._alive() and _name_owner_pid(self.env, "org.xfce.Xfconf"), 15)
        self._spawn(self.server, SERVERS[self.server]["argv"], env)

    def _start_module(self):
        os.environ.update(SERVERS[self.server].get("env", {}))
        server_module(self.server).start(self)

    def _start_dunst(self):
        d = self.dir
        for name, text, mode in (("dunstrc", DUNSTRC, 0o644), ("dunst-pick.sh", DUNST_PICK, 0o755),
                                 ("dunst-log.sh", DUNST_LOG, 0o755)):
            path = os.path.join(d, name)
            with open(path, "w") as f:
                f.write(text.format(dir=d, here=HERE))
            os.chmod(path, mode)
        self._spawn("dunst", ["dunst", "-config", f"{d}/dunstrc"], self._server_env())

    def _start_mako(self):
        # Wayland only: headless sway (pixman renderer, no GPU here) as nobody, mako as us.
        run = os.path.join(self.dir, "wayland")
        os.makedirs(run, mode=0o700)
        with open(os.path.join(run, "sway.conf"), "w") as f:
            f.write(SWAY_CONFIG.format(w=SCREEN[0], h=SCREEN[1]))
        os.chmod(self.dir, 0o711)  # nobody must be able to reach its runtime dir
        os.chown(run, SWAY_UID, SWAY_UID)
        sway_env = {"PATH": self._base_env["PATH"], "HOME": run, "XDG_RUNTIME_DIR": run,
                    "WLR_BACKENDS": "headless", "WLR_LIBINPUT_NO_DEVICES": "1",
                    "WLR_RENDERER": "pixman", "LANG": "C.UTF-8"}
        self._spawn("sway", ["setpriv", f"--reuid={SWAY_UID}", f"--regid={SWAY_UID}", "--clear-groups",
                             "sway", "-c", f"{run}/sway.conf"], sway_env)
        sock = wait_for("headless sway to create its Wayland socket",
                        lambda: self._alive() and next((n for n in os.listdir(run) if n.startswith("wayland-")
                                                        and not n.endswith(".lock")), None), 15)
        self.env["WAYLAND_DISPLAY"] = sock
        self.env["HERALD_DESKTOP_WAYLAND_DIR"] = run
        env = {**self._server_env(), "XDG_RUNTIME_DIR": run, "WAYLAND_DISPLAY": sock}
        env.pop("DISPLAY", None)
        # mako's do-not-disturb is a mode its user defines; this is the usual one (mako(5)).
        os.makedirs(os.path.join(self._base_env["XDG_CONFIG_HOME"], "mako"), exist_ok=True)
        with open(os.path.join(self._base_env["XDG_CONFIG_HOME"], "mako", "config"), "w") as f:
            f.write("[mode=do-not-disturb]\ninvisible=1\n")
        self._spawn("mako", ["mako"], env)

    def stop(self):
        """Kill every process we started (whole process groups, newest first), remove the dir."""
        for name, p in reversed(self._procs):
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        for name, p in reversed(self._procs):
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                p.wait()
            # Helpers that stayed in the group (e.g. the AT-SPI bus daemon) go too.
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self._procs = []
        if self.dir and os.path.isdir(self.dir):
            shutil.rmtree(self.dir, ignore_errors=True)
        self.dir = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()

    # -- inspection: each runs this file's CLI in a child, because pyatspi binds to one
    # AT-SPI bus per process and a test may run several sessions one after the other.

    def cli(self, *args, timeout=60):
        p = subprocess.run([PYTHON, os.path.abspath(__file__), *args], env={**os.environ, **self.env},
                           capture_output=True, text=True, timeout=timeout)
        if p.returncode != 0:
            raise DesktopError(p.stderr.strip() or f"desktop.py {' '.join(args)} exited {p.returncode}")
        return p.stdout

    def buttons(self):
        return [tuple(b) for b in json.loads(self.cli("buttons"))]

    def texts(self):
        return json.loads(self.cli("texts"))

    def popup_count(self):
        return int(self.cli("popups"))

    def click(self, label, timeout=10):
        self.cli("click", label, "--timeout", str(timeout), timeout=timeout + 30)

    def wait_popups(self, n, timeout=10):
        self.cli("wait-popups", str(n), "--timeout", str(timeout), timeout=timeout + 30)

    def screenshot(self, path):
        self.cli("screenshot", path)

    def server_info(self):
        return json.loads(self.cli("server-info"))

    def set_dnd(self, on):
        self.cli("dnd", "on" if on else "off")


# --------------------------------------------------------------------------- inspectors
# These run inside the CLI process, against the session described by its environment.


def atspi_app(pyatspi, pid):
    """The AT-SPI application of process `pid`, or None."""
    desktop = pyatspi.Registry.getDesktop(0)
    desktop.clear_cache()  # the cache would otherwise hide windows that came and went
    for app in desktop:
        try:
            if app is not None and app.get_process_id() == pid:
                return app
        except Exception:
            continue
    return None


def atspi_showing(pyatspi, acc):
    states = acc.getState()
    return states.contains(pyatspi.STATE_SHOWING) and states.contains(pyatspi.STATE_VISIBLE)


def atspi_extents(pyatspi, acc, coords=None):
    """(x, y, w, h): on the screen, or in its window with pyatspi.WINDOW_COORDS (Wayland)."""
    e = acc.queryComponent().getExtents(pyatspi.DESKTOP_COORDS if coords is None else coords)
    return (e.x, e.y, e.width, e.height)


class GtkInspector:
    """Popups of a GTK server, read through AT-SPI (the server runs with atk-bridge)."""

    def __init__(self, env):
        self.env = env
        self.pid = int(env["HERALD_DESKTOP_SERVER_PID"])
        import pyatspi  # imported late: it connects to the AT-SPI bus given in os.environ
        self.pyatspi = pyatspi

    def _app(self):
        return atspi_app(self.pyatspi, self.pid)

    def _showing(self, acc):
        return atspi_showing(self.pyatspi, acc)

    def _extents(self, acc):
        return atspi_extents(self.pyatspi, acc)

    def windows(self):
        """The server's top-level windows that are on screen: one per popup."""
        app = self._app()
        if app is None:
            return []
        wins = []
        for w in app:
            try:
                if w is not None and self._showing(w):
                    x, y, width, height = self._extents(w)
                    if width > 1 and height > 1:
                        wins.append(w)
            except Exception:  # a window closing under our feet
                continue
        return wins

    def _walk(self, acc):
        for child in acc:
            if child is None:
                continue
            yield child
            yield from self._walk(child)

    def buttons(self):
        out = []
        for w in self.windows():
            for acc in self._walk(w):
                try:
                    if acc.getRole() == self.pyatspi.ROLE_PUSH_BUTTON and self._showing(acc) and acc.name:
                        out.append((acc.name, *self._extents(acc)))
                except Exception:
                    continue
        return out

    def texts(self):
        out = []
        for w in self.windows():
            for acc in self._walk(w):
                try:
                    if acc.getRole() != self.pyatspi.ROLE_LABEL or not self._showing(acc):
                        continue
                    text = acc.queryText().getText(0, -1) if "Text" in acc.get_interfaces() else acc.name
                    if text:
                        out.append(text)
                except Exception:
                    continue
        return out

    def popup_count(self):
        return len(self.windows())

    def popup_area(self):
        boxes = []
        for w in self.windows():
            try:
                boxes.append(self._extents(w))
            except Exception:
                continue
        return boxes

    def click(self, label, timeout):
        button = wait_for(f"a visible push button labelled {label!r} in {self.env['HERALD_DESKTOP_SERVER']}",
                          lambda: next((b for b in self.buttons() if b[0] == label), None), timeout)
        _, x, y, w, h = button
        # --sync waits for the pointer to move, forever when it is already there (the last
        # click's button was at the same place): it starts from a corner.
        _run(["xdotool", "mousemove", "0", "0"], self.env)
        _run(["xdotool", "mousemove", "--sync", str(x + w // 2), str(y + h // 2), "click", "1"], self.env)
        return button


class DunstInspector:
    """dunst draws with cairo only; state comes from dunstctl and our rule script's log."""

    def __init__(self, env):
        self.env = env
        self.dir = env["HERALD_DESKTOP_DIR"]

    def set_dnd(self, on):
        # What its user runs (bound to a key); it sets org.dunstproject.cmd0.paused.
        _run(["dunstctl", "set-paused", "true" if on else "false"], self.env)

    def dnd(self):
        out = _run(["dunstctl", "is-paused"], self.env).strip()
        if out not in ("true", "false"):
            raise DesktopError(f"dunstctl is-paused printed {out!r}")
        return out == "true"

    def _history_ids(self):
        data = json.loads(_run(["dunstctl", "history"], self.env))
        return {int(n["id"]["data"]) for n in data["data"][0]}

    def popup_count(self):
        return int(_run(["dunstctl", "count", "displayed"], self.env).strip())

    def texts(self):
        """Summary and body (as dunst received them) of notifications not yet closed."""
        closed = self._history_ids()
        out = []
        for nid, entry in sorted(dunst_log(self.dir).items()):
            if nid not in closed:
                out += [t for t in (entry["DUNST_SUMMARY"], entry["DUNST_BODY"]) if t]
        return out

    def _menu(self, want=""):
        """Open dunst's context menu; our picker answers with the action labelled `want`.
        Returns the DunstAction list offered and the one picked (or None), or None if the
        menu did not run: dunst runs "dmenu" only when a notification has actions or URLs,
        and refuses while its previous menu is still being wound up."""
        done = os.path.join(self.dir, "dunst-done.json")
        with open(os.path.join(self.dir, "dunst-want"), "w") as f:
            f.write(want)
        if os.path.exists(done):
            os.unlink(done)
        _run(["dunstctl", "context"], self.env)
        try:
            wait_for("dunst to run its context menu", lambda: os.path.exists(done), 1)
        except DesktopError:
            return None
        with open(done) as f:
            result = json.load(f)
        return result["labels"], result["picked"]

    def buttons(self):
        menu = self._menu()
        return [(label, None, None, None, None) for label in (menu[0] if menu else [])]

    def popup_area(self):
        return _x_window_boxes(self.env, ["--class", "Dunst"])

    def click(self, label, timeout):
        # dunst draws no buttons: choose the action in its context menu instead; retried
        # until our picker confirms it answered with that action.
        def attempt():
            menu = self._menu(label)
            return menu is not None and menu[1] is not None

        wait_for(f"dunst to offer (and take) an action labelled {label!r}", attempt, timeout, interval=0.2)


def dunst_log(d):
    """id -> the latest thing our rule script saw for it (a replacement keeps the id)."""
    latest = {}
    try:
        with open(os.path.join(d, "dunst-log.jsonl")) as f:
            for line in f:
                entry = json.loads(line)
                latest[int(entry["DUNST_ID"])] = entry
    except FileNotFoundError:
        pass
    return latest


def dunst_actions(d, lines):
    """(label, line) per action in dunst's menu. Lines are "#Label (Summary) [id,key]";
    the summary comes from our log, so brackets in a label or summary cannot confuse us."""
    log = dunst_log(d)
    out = []
    for line in lines:
        m = re.match(r"^#(.*) \[(\d+),([^\]]*)\]$", line)
        if not m:
            continue  # a URL line
        head, nid = m.group(1), int(m.group(2))
        summary = log.get(nid, {}).get("DUNST_SUMMARY")
        if summary is not None and head.endswith(f" ({summary})"):
            out.append((head[:-len(summary) - 3], line))
        else:
            out.append((re.sub(r" \(.*\)$", "", head), line))
    return out


def dunst_pick(d, menu_text):
    """Body of the "dmenu" dunst runs: print the wanted action's line, record what happened."""
    with open(os.path.join(d, "dunst-want")) as f:
        want = f.read()
    actions = dunst_actions(d, menu_text.splitlines())
    picked = next((line for label, line in actions if want and label == want), None)
    if picked:
        print(picked)
    tmp = os.path.join(d, "dunst-done.tmp")
    with open(tmp, "w") as f:
        json.dump({"labels": [label for label, _ in actions], "picked": picked}, f)
    os.replace(tmp, os.path.join(d, "dunst-done.json"))
    return 0


class MakoInspector:
    """mako (Wayland, no X windows, no AT-SPI): state and actions through makoctl."""

    MODE = "do-not-disturb"

    def __init__(self, env):
        self.env = env

    def set_dnd(self, on):
        _run(["makoctl", "mode", "-a" if on else "-r", self.MODE], self.env)

    def dnd(self):
        return self.MODE in _run(["makoctl", "mode"], self.env).split()

    def _list(self):
        data = json.loads(_run(["makoctl", "list"], self.env))
        return data["data"][0]

    def popup_count(self):
        return len(self._list())

    def texts(self):
        out = []
        for n in self._list():
            out += [t for t in (n["summary"]["data"], n["body"]["data"]) if t]
        return out

    def buttons(self):
        return [(label, None, None, None, None)
                for n in self._list() for label in n["actions"]["data"].values()]

    def popup_area(self):
        return None

    def click(self, label, timeout):
        def find():
            for n in self._list():
                for key, text in n["actions"]["data"].items():
                    if text == label:
                        return n["id"]["data"], key
        nid, key = wait_for(f"mako to show an action labelled {label!r}", find, timeout)
        _run(["makoctl", "invoke", "-n", str(nid), key], self.env)


def _x_window_boxes(env, search):
    """Geometry of visible X windows matching an xdotool search."""
    p = subprocess.run(["xdotool", "search", "--onlyvisible", *search], env=env, capture_output=True, text=True)
    boxes = []
    for wid in p.stdout.split():
        g = subprocess.run(["xdotool", "getwindowgeometry", "--shell", wid], env=env,
                           capture_output=True, text=True).stdout
        v = dict(line.split("=", 1) for line in g.split() if "=" in line)
        if v:
            boxes.append((int(v["X"]), int(v["Y"]), int(v["WIDTH"]), int(v["HEIGHT"])))
    return boxes


def inspector(env):
    server = env.get("HERALD_DESKTOP_SERVER")
    if server not in SERVERS:
        raise DesktopError("no session: HERALD_DESKTOP_SERVER is not set (run with the env file of "
                           "`desktop.py serve`)")
    kind = SERVERS[server]["kind"]
    if kind == "module":
        return server_module(server).Inspector(env)
    return {"gtk": GtkInspector, "dunst": DunstInspector, "mako": MakoInspector}[kind](env)


def screenshot(env, path, insp=None):
    """Whole screen, cropped to the popups when we know where they are."""
    insp = insp or inspector(env)
    if hasattr(insp, "screenshot"):  # a module server that draws somewhere else (Wayland)
        return insp.screenshot(path)
    if env.get("HERALD_DESKTOP_SERVER") == "mako":
        # mako draws on headless sway, not on the X screen; grim reads the Wayland output.
        if not shutil.which("grim"):
            raise DesktopError("screenshot: unavailable for mako without grim (apt-get install grim)")
        _run(["grim", path], {**env, "XDG_RUNTIME_DIR": env["HERALD_DESKTOP_WAYLAND_DIR"]}, timeout=30)
        return None
    boxes = insp.popup_area()
    full = path + ".full.png"
    _run(["import", "-display", env["DISPLAY"], "-window", "root", full], env, timeout=30)
    if boxes:
        pad = 8
        x0 = max(0, min(b[0] for b in boxes) - pad)
        y0 = max(0, min(b[1] for b in boxes) - pad)
        x1 = min(SCREEN[0], max(b[0] + b[2] for b in boxes) + pad)
        y1 = min(SCREEN[1], max(b[1] + b[3] for b in boxes) + pad)
        _run(["convert", full, "-crop", f"{x1 - x0}x{y1 - y0}+{x0}+{y0}", "+repage", path], env, timeout=30)
        os.unlink(full)
    else:
        os.replace(full, path)
    return boxes


def server_info(env):
    import dbus
    bus = _bus(env)
    try:
        obj = bus.get_object(BUS_NAME, BUS_PATH)
        name, vendor, version, spec = obj.GetServerInformation(dbus_interface=BUS_NAME)
        caps = obj.GetCapabilities(dbus_interface=BUS_NAME)
    finally:
        bus.close()
    return {"name": str(name), "vendor": str(vendor), "version": str(version), "spec_version": str(spec),
            "capabilities": sorted(str(c) for c in caps)}


# --------------------------------------------------------------------------- CLI


def _serve(args):
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    signal.signal(signal.SIGINT, lambda *_: stop.append(1))
    session = Session(args.server, log=lambda m: print(f"desktop: {m}", file=sys.stderr, flush=True))
    try:
        tmp = args.env_file + ".tmp"
        with open(tmp, "w") as f:
            for k, v in sorted(session.env.items()):
                f.write(f"{k}={v}\n")
        os.replace(tmp, args.env_file)  # appears complete or not at all
        print(f"desktop: ready, environment in {args.env_file}", file=sys.stderr, flush=True)
        while not stop:
            session._alive()  # a server crash ends the session loudly
            time.sleep(0.5)  # the signal handlers flip `stop`
    finally:
        session.stop()
        try:
            os.unlink(args.env_file)
        except FileNotFoundError:
            pass
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("serve", help="start a session; write its env to --env-file; run until SIGTERM")
    s.add_argument("--server", required=True, choices=sorted(SERVERS))
    s.add_argument("--env-file", required=True)
    sub.add_parser("buttons", help="JSON list of [label, x, y, w, h] (extents null for dunst/mako)")
    sub.add_parser("texts", help="JSON list of the visible popup texts")
    sub.add_parser("popups", help="number of popups on screen")
    c = sub.add_parser("click", help="wait for a button with this exact label and press it")
    c.add_argument("label")
    c.add_argument("--timeout", type=float, default=10)
    w = sub.add_parser("wait-popups", help="wait until exactly N popups are on screen")
    w.add_argument("n", type=int)
    w.add_argument("--timeout", type=float, default=10)
    sc = sub.add_parser("screenshot", help="save a PNG of the popups (or the whole screen)")
    sc.add_argument("path")
    sub.add_parser("server-info", help="GetServerInformation + GetCapabilities as JSON")
    d = sub.add_parser("dnd", help="switch the server's do-not-disturb on or off, or print it (on/off)")
    d.add_argument("state", choices=["on", "off", "show"])
    args = ap.parse_args(argv)

    try:
        if args.cmd == "serve":
            return _serve(args)
        env = dict(os.environ)
        if args.cmd == "server-info":
            print(json.dumps(server_info(env), indent=2))
            return 0
        insp = inspector(env)
        if args.cmd == "buttons":
            print(json.dumps(insp.buttons()))
        elif args.cmd == "texts":
            print(json.dumps(insp.texts(), ensure_ascii=False))
        elif args.cmd == "popups":
            print(insp.popup_count())
        elif args.cmd == "click":
            insp.click(args.label, args.timeout)
        elif args.cmd == "wait-popups":
            count = []
            try:
                wait_for(f"exactly {args.n} popup(s) on screen",
                         lambda: count.append(insp.popup_count()) or count[-1] == args.n, args.timeout, 0.1)
            except DesktopError as e:
                raise DesktopError(f"{e}; last count {count[-1] if count else 'unknown'}")
        elif args.cmd == "screenshot":
            screenshot(env, args.path, insp)
        elif args.cmd == "dnd":
            if not hasattr(insp, "set_dnd"):
                raise DesktopError(f"{env.get('HERALD_DESKTOP_SERVER')}: no do-not-disturb switch known")
            if args.state == "show":
                print("on" if insp.dnd() else "off")
            else:
                insp.set_dnd(args.state == "on")
        return 0
    except DesktopError as e:
        print(f"desktop.py {args.cmd}: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
