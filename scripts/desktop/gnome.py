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
* `gnome-shell --x11 --replace` with XDG_SESSION_TYPE=x11;
* the shell does not own org.freedesktop.Notifications itself: its D-Bus-activated
  proxy `gjs /usr/share/gnome-shell/org.gnome.Shell.Notifications` does (it adds a
  sender-pid hint and forwards to org.gnome.Shell), so it is started by hand;
* as root the shell greets with a "Logged in as a privileged user" banner and the
  overview: both are removed (Eval), and lock-warning-shown is touched beforehand.

Inspection: AT-SPI for the banner (ROLE_NOTIFICATION, action buttons are named push
buttons that exist only while the pointer is over the banner), org.gnome.Shell.Eval for
the message tray (all notifications GNOME holds), xdotool for real clicks.
See findings-gnome.md for what GNOME does with notifications.
"""

import json
import os
import subprocess
import time

import sys


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

SYSTEM_BUS_CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<!-- A private, empty "system" bus for gnome-shell only (no logind, no services). -->
<busconfig>
  <type>system</type>
  <listen>unix:path={dir}/system_bus</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
"""

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
        f.write(SYSTEM_BUS_CONFIG.format(dir=d))
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
    session._spawn("gnome-shell", ["gnome-shell", "--x11", "--replace"], shell_env)
    wait_for("gnome-shell to own org.gnome.Shell",
             lambda: session._alive() and _name_owner_pid(session.env, SHELL_NAME), 60, 0.2)
    insp = Inspector(session.env)
    wait_for("unsafe mode (org.gnome.Shell.Eval) in gnome-shell",
             lambda: session._alive() and insp.eval("true") is True, 30, 0.2)
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
