"""GNOME Shell 43 (Debian 12) as the notification server of a desktop.py session.

    python3 desktop.py serve --server gnome-shell --env-file /tmp/env

What start() sets up, beside desktop.py's Xvfb (+GLX, -noreset: the shell draws with
llvmpipe), private session bus and AT-SPI bus:

* a private *system* bus (a second dbus-daemon, type system, only for the shell): a
  leftover /run/systemd/seats makes the shell look for logind and die without one;
* dconf-service on the private session bus (nothing is D-Bus-activated there), so that
  GSettings writes work and are seen by every process of the session. Every process
  that should see the session's settings (gsettings, heraldd) needs the session's
  GSETTINGS_BACKEND=dconf, XDG_CONFIG_HOME and XDG_RUNTIME_DIR: all three are put in
  session.env;
* a tiny shell extension that turns on unsafe mode (GNOME 43 has no --unsafe-mode
  option), so org.gnome.Shell.Eval works and the inspector can read Main.messageTray;
* `gnome-shell --x11 --replace` with XDG_SESSION_TYPE=x11; or, when HERALD_GNOME_BACKEND=
  wayland is in the environment of `serve`, a headless Wayland shell (`--wayland --headless
  --no-x11 --virtual-monitor 1280x800`; Xvfb then idles);
* the shell does not own org.freedesktop.Notifications itself: its D-Bus-activated
  proxy `gjs /usr/share/gnome-shell/org.gnome.Shell.Notifications` does (it adds a
  sender-pid hint and forwards to org.gnome.Shell), so it is started by hand;
* as root the shell greets with a "Logged in as a privileged user" banner and the
  overview: both are removed (Eval), and lock-warning-shown is touched beforehand.

Inspection: AT-SPI for the banner (ROLE_NOTIFICATION, action buttons are named push
buttons that exist only while the pointer is over the banner), org.gnome.Shell.Eval for
the message tray (all notifications GNOME holds), xdotool for real clicks (on Wayland:
a Clutter virtual pointer created inside the shell through Eval, and screenshots through
org.gnome.Shell.Screenshot).
See findings-gnome.md for what GNOME does with notifications.
"""

import json
import os
import sys
import time


def _desktop_module():
    """desktop.py as already loaded: as __main__ when run as a script, else as `desktop`
    (so DesktopError here is the class desktop.py catches)."""
    for name in ("__main__", "desktop"):
        mod = sys.modules.get(name)
        if mod is not None and hasattr(mod, "Session") and hasattr(mod, "server_module"):
            return mod
    import desktop as mod
    return mod


desktop = _desktop_module()
DesktopError, wait_for, _name_owner_pid, _run = (desktop.DesktopError, desktop.wait_for,
                                                 desktop._name_owner_pid, desktop._run)

SHELL_NAME = "org.gnome.Shell"
PROXY = ["/usr/bin/gjs", "/usr/share/gnome-shell/org.gnome.Shell.Notifications"]
DCONF_SERVICE = "/usr/libexec/dconf-service"
EXTENSION_UUID = "herald-unsafe-mode@herald.test"

EXTENSION_METADATA = {
    "uuid": EXTENSION_UUID,
    "name": "Herald test: unsafe mode",
    "description": "Turns on unsafe mode so org.gnome.Shell.Eval works (test sessions only).",
    "shell-version": ["43"],
}
EXTENSION_JS = """/* exported init enable disable */
function init() {}
function enable() { global.context.unsafe_mode = true; }
function disable() {}
"""

# Settings written before the shell starts (through dconf-service).
# A Clutter virtual pointer kept in the shell (Wayland has no xdotool).
WAYLAND_POINTER_JS = """(() => {
    const C = imports.gi.Clutter;
    if (!global._heraldPointer)
        global._heraldPointer = C.get_default_backend().get_default_seat()
            .create_virtual_device(C.InputDeviceType.POINTER_DEVICE);
    const p = global._heraldPointer, t = global.get_current_time() * 1000;
    p.notify_absolute_motion(t, %(x)d, %(y)d);
    if (%(click)s) {
        p.notify_button(t + 1000, C.BUTTON_PRIMARY, C.ButtonState.PRESSED);
        p.notify_button(t + 2000, C.BUTTON_PRIMARY, C.ButtonState.RELEASED);
    }
    return true;
})()"""

DND_SWITCH_JS = "Main.panel.statusArea.dateMenu._messageList._dndSwitch.state"

SETTINGS = [
    ("org.gnome.shell", "enabled-extensions", f"['{EXTENSION_UUID}']"),
    ("org.gnome.shell", "welcome-dialog-last-shown-version", "'999'"),
    ("org.gnome.desktop.session", "idle-delay", "uint32 0"),
    ("org.gnome.desktop.screensaver", "lock-enabled", "false"),
]


def _settings_env(session_dir):
    """What a process needs to read and write the session's GSettings (dconf)."""
    return {"GSETTINGS_BACKEND": "dconf", "XDG_CONFIG_HOME": f"{session_dir}/config",
            "XDG_RUNTIME_DIR": f"{session_dir}/run"}


def start(session):
    d = session.dir
    base = {**session._base_env, **session.env}
    base.pop("NO_AT_BRIDGE", None)

    # Private system bus, for the shell only.
    conf = os.path.join(d, "system-bus.conf")
    with open(conf, "w") as f:
        f.write(desktop.bus_config("system", f"{d}/system_bus", "a private, empty system bus for gnome-shell only (no logind)"))
    r, w = os.pipe()
    session._spawn("system-dbus", ["dbus-daemon", f"--config-file={conf}", "--nofork",
                                   f"--print-address={w}"], session._base_env, pass_fds=(w,))
    os.close(w)
    with os.fdopen(r) as f:
        system_bus = f.readline().strip()
    if not system_bus:
        raise DesktopError(f"the private system dbus-daemon did not start; see {d}/system-dbus.log")

    # dconf-service: shared settings (show-banners is the shell's do-not-disturb).
    session.env.update(_settings_env(d))
    env = {**base, **session.env}
    session._spawn("dconf-service", [DCONF_SERVICE], env)
    wait_for("dconf-service to own ca.desrt.dconf",
             lambda: session._alive() and _name_owner_pid(session.env, "ca.desrt.dconf"), 15)
    for schema, key, value in SETTINGS:
        _run(["gsettings", "set", schema, key, value], env)

    # The extension that turns on unsafe mode; and no "screen lock disabled" banner.
    ext = os.path.join(d, "data", "gnome-shell", "extensions", EXTENSION_UUID)
    os.makedirs(ext)
    with open(os.path.join(ext, "metadata.json"), "w") as f:
        json.dump(EXTENSION_METADATA, f)
    with open(os.path.join(ext, "extension.js"), "w") as f:
        f.write(EXTENSION_JS)
    open(os.path.join(d, "data", "gnome-shell", "lock-warning-shown"), "w").close()

    shell_env = {**env, "DBUS_SYSTEM_BUS_ADDRESS": system_bus, "XDG_SESSION_TYPE": "x11",
                 "XDG_CURRENT_DESKTOP": "GNOME", "XDG_SESSION_DESKTOP": "gnome"}
    if "PULSE_SERVER" in os.environ:
        shell_env["PULSE_SERVER"] = os.environ["PULSE_SERVER"]
    argv = ["gnome-shell", "--x11", "--replace"]
    if os.environ.get("HERALD_GNOME_BACKEND") == "wayland":
        # Headless Wayland compositor (Xvfb then goes unused): pointer and screenshots
        # go through the shell itself (see Inspector._pointer / screenshot).
        session.env["HERALD_GNOME_BACKEND"] = "wayland"
        argv = ["gnome-shell", "--wayland", "--headless", "--no-x11",
                "--virtual-monitor", f"{desktop.SCREEN[0]}x{desktop.SCREEN[1]}"]
        shell_env["XDG_SESSION_TYPE"] = "wayland"
        shell_env.pop("DISPLAY", None)
    session._spawn("gnome-shell", argv, shell_env)
    wait_for("gnome-shell to own org.gnome.Shell",
             lambda: session._alive() and _name_owner_pid(session.env, SHELL_NAME), 60, 0.2)
    insp = Inspector(session.env)

    def unsafe_mode():
        try:
            return insp.eval("true") is True
        except DesktopError:  # Eval answers (false, '') until our extension is enabled
            return False

    wait_for("unsafe mode (org.gnome.Shell.Eval) in gnome-shell (our extension)",
             lambda: session._alive() and unsafe_mode(), 30, 0.2)
    # The startup animation ends in the overview, and then (as root) the shell posts its
    # "Logged in as a privileged user" notification: wait for the end of startup, then
    # close both, so the session starts with an empty tray and the desktop in view.
    wait_for("gnome-shell to finish starting up",
             lambda: session._alive() and insp.eval("Main.layoutManager._startingUp") is False, 30, 0.2)
    clean = ("Main.overview.hide(); Main.messageTray.getSources().forEach(s => s.destroy());"
             "[!!(Main.overview.visible || Main.overview.animationInProgress),"
             " Main.messageTray.getSources().length, Main.messageTray._notificationState]")
    wait_for("the overview and the privileged-user banner to go",
             lambda: session._alive() and insp.eval(clean) == [False, 0, 0], 15, 0.3)
    # The proxy that owns org.freedesktop.Notifications (desktop.py waits for that).
    session._spawn("gnome-shell-notifications", PROXY, shell_env)


class Inspector:
    """Banner through AT-SPI, tray through org.gnome.Shell.Eval, clicks through xdotool."""

    def __init__(self, env):
        self.env = env
        self._pyatspi = None
        self.wayland = env.get("HERALD_GNOME_BACKEND") == "wayland"
        if self.wayland:  # nothing on the X screen: desktop.screenshot() then calls this
            self.screenshot = self._shell_screenshot

    # -- Eval

    def eval(self, code):
        """Run JavaScript in the shell; returns the JSON-decoded result. Needs unsafe mode."""
        import dbus
        bus = desktop._bus(self.env)
        try:
            ok, result = bus.get_object(SHELL_NAME, "/org/gnome/Shell").Eval(
                code, dbus_interface="org.gnome.Shell", timeout=10)
        finally:
            bus.close()
        if not ok:
            raise DesktopError(f"org.gnome.Shell.Eval failed: {result or 'unsafe mode is off'}")
        return json.loads(str(result)) if str(result) else None

    # -- the message tray (everything GNOME holds; banners show one at a time)

    TRAY_JS = """(() => {
        const fdo = Main.notificationDaemon?._fdoNotificationDaemon;
        const ids = new Map();
        for (const [id, nd] of Object.entries(fdo?._notifications ?? {}))
            if (nd.notification) ids.set(nd.notification, Number(id));
        const out = [];
        for (const s of Main.messageTray.getSources())
            for (const n of s.notifications)
                out.push({source: s.title, app: s.app ? s.app.get_id() : null, id: ids.get(n) ?? null,
                          summary: n.title, body: n.bannerBodyText, urgency: n.urgency,
                          resident: !!n.resident, transient: !!n.isTransient, acknowledged: !!n.acknowledged,
                          actions: n.actions.map(a => a.label),
                          banner: Main.messageTray._notification === n});
        return out;
    })()"""

    def tray(self):
        """Every notification the shell holds, oldest first per source: dicts with source
        (title), app (desktop id or None), id (the org.freedesktop.Notifications id),
        summary, body, urgency (0 low .. 3 critical), actions (all labels, also those not
        drawn) and banner (True for the one in the banner now)."""
        return self.eval(self.TRAY_JS)

    def popup_count(self):
        """Notifications GNOME holds (message tray, all sources): that is what is "on
        screen" in GNOME, where banners show one at a time and then go to the tray."""
        return self.eval("Main.messageTray.getSources().reduce((n, s) => n + s.notifications.length, 0)")

    def banner_state(self):
        """0 hidden, 1 showing, 2 shown, 3 hiding (MessageTray State)."""
        return self.eval("Main.messageTray._notificationState")

    # -- the banner, through AT-SPI

    @property
    def pyatspi(self):
        if self._pyatspi is None:
            import pyatspi  # imported late: it connects to the AT-SPI bus given in os.environ
            self._pyatspi = pyatspi
        return self._pyatspi

    def _app(self):
        return desktop.atspi_app(self.pyatspi, _name_owner_pid(self.env, SHELL_NAME))

    def _showing(self, acc):
        return desktop.atspi_showing(self.pyatspi, acc)

    def _extents(self, acc):
        return desktop.atspi_extents(self.pyatspi, acc)

    def _walk_showing(self, acc):
        """Showing descendants only (hidden subtrees such as the overview are skipped)."""
        for child in acc:
            try:
                if child is None or not self._showing(child):
                    continue
            except Exception:
                continue
            yield child
            yield from self._walk_showing(child)

    def banners(self):
        """The ROLE_NOTIFICATION accessibles on screen (GNOME shows at most one banner)."""
        app = self._app()
        if app is None:
            return []
        out = []
        for acc in self._walk_showing(app):
            try:
                if acc.getRole() == self.pyatspi.ROLE_NOTIFICATION:
                    x, y, w, h = self._extents(acc)
                    if w > 1 and h > 1 and y + h > 0:
                        out.append(acc)
            except Exception:
                continue
        return out

    def popup_area(self):
        boxes = []
        for b in self.banners():
            try:
                boxes.append(self._extents(b))
            except Exception:
                continue
        return boxes

    def banner_texts(self):
        """Label texts of the banner on screen (summary, then body as drawn)."""
        out = []
        for b in self.banners():
            for acc in self._walk_showing(b):
                try:
                    if acc.getRole() == self.pyatspi.ROLE_LABEL and acc.name and acc.name not in out:
                        out.append(acc.name)
                except Exception:
                    continue
        return out

    def texts(self):
        """The banner's texts, then summary and body of every other notification in the tray."""
        out = self.banner_texts()
        for n in self.tray():
            if not n["banner"]:
                out += [t for t in (n["summary"], n["body"]) if t]
        return out

    def _banner_buttons(self):
        out = []
        for b in self.banners():
            for acc in self._walk_showing(b):
                try:
                    if acc.getRole() == self.pyatspi.ROLE_PUSH_BUTTON and acc.name:
                        x, y, w, h = self._extents(acc)
                        if w > 1 and h > 1 and x >= 0 and y >= 0:
                            out.append([acc.name, x, y, w, h])
                except Exception:
                    continue
        return out

    def _pointer(self, x, y, click=False):
        """Move the pointer (and click button 1): xdotool on X11; on Wayland a Clutter
        virtual pointer inside the compositor, i.e. real input events through its stack."""
        if not self.wayland:
            _run(["xdotool", "mousemove", "--sync", str(x), str(y), *(["click", "1"] if click else [])],
                 self.env)
            return
        self.eval(WAYLAND_POINTER_JS % {"x": int(x), "y": int(y), "click": "true" if click else "false"})

    def _shell_screenshot(self, path):
        """Wayland: org.gnome.Shell.Screenshot (allowed in unsafe mode), cropped to the banner."""
        import dbus
        full = os.path.abspath(path) + ".full.png"
        boxes = self.popup_area()
        bus = desktop._bus(self.env)
        try:
            bus.get_object(SHELL_NAME, "/org/gnome/Shell/Screenshot").Screenshot(
                False, False, full, dbus_interface="org.gnome.Shell.Screenshot", timeout=30)
        finally:
            bus.close()
        if boxes:
            x, y, w, h = boxes[0]
            pad = 8
            x0, y0 = max(0, x - pad), max(0, y - pad)
            x1, y1 = min(desktop.SCREEN[0], x + w + pad), min(desktop.SCREEN[1], y + h + pad)
            _run(["convert", full, "-crop", f"{x1 - x0}x{y1 - y0}+{x0}+{y0}", "+repage", path], self.env, timeout=30)
            os.unlink(full)
        else:
            os.replace(full, path)
        return boxes

    def hover(self, timeout=2.0):
        """Put the pointer on the banner so it expands and shows its action buttons (they
        exist only while the pointer is over it). The pointer first goes below the banner:
        a banner that popped up under the pointer does not expand until it is left and
        entered again. Returns the buttons, or [] if there is no banner or it has none."""
        deadline = time.monotonic() + timeout
        while True:
            banners = self.banners()
            if not banners:
                return []
            x, y, w, h = self._extents(banners[0])
            self._pointer(x + w // 2, min(y + h + 150, desktop.SCREEN[1] - 5))
            self._pointer(x + w // 3, y + 18)
            settle = time.monotonic() + 0.8
            while time.monotonic() < settle:
                buttons = self._banner_buttons()
                if buttons:
                    return buttons
                time.sleep(0.1)
            if time.monotonic() >= deadline:
                return []

    def buttons(self):
        """[label, x, y, w, h] of the action buttons GNOME draws on the banner (at most 3),
        after hovering it (so the pointer is left on the banner, which keeps it up)."""
        return self.hover()  # the banner's close button has no name, so it is not listed

    def click(self, label, timeout=10):
        def find():
            return next((b for b in self.buttons() if b[0] == label), None)
        button = wait_for(f"a button labelled {label!r} on the gnome-shell banner", find, timeout, 0.2)
        _, x, y, w, h = button
        self._pointer(x + w // 2, y + h // 2, click=True)
        return button

    # -- do not disturb: org.gnome.desktop.notifications show-banners (false = DnD on)

    def _settings_env(self):
        return {**self.env, **_settings_env(self.env["HERALD_DESKTOP_DIR"])}

    def dnd(self):
        out = _run(["gsettings", "get", "org.gnome.desktop.notifications", "show-banners"],
                   self._settings_env()).strip()
        return out == "false"

    def set_dnd(self, on):
        _run(["gsettings", "set", "org.gnome.desktop.notifications", "show-banners",
              "false" if on else "true"], self._settings_env())
        # Wait until the shell has seen the change: the Do Not Disturb switch in its
        # calendar menu is bound to the key, so it flips on dconf's change signal.
        wait_for(f"the Do Not Disturb switch in gnome-shell to turn {'on' if on else 'off'}",
                 lambda: self.eval(DND_SWITCH_JS) is on, 5, 0.1)
