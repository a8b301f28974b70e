#!/usr/bin/python3
"""SwayNotificationCenter (swaync 0.7.3, GTK3 + gtk-layer-shell) for desktop.py.

swaync only runs on Wayland, so this starts a headless sway (as `nobody`, like desktop.py
does for mako) and swaync as a Wayland client of it, with the AT-SPI bridge loaded.
Popups are read through AT-SPI; clicks are real: sway's own seat pointer
(`swaymsg seat seat0 cursor set X Y` + `cursor press/release button1`).

Used by desktop.py (SERVERS["swaync"] = {"kind": "module", "module": "swaync"}):
`start(session)` and `Inspector(env)`. See findings-swaync.md for what swaync does.
"""

import glob
import json
import os
import shutil
import struct
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)
# desktop.py's helpers (wait_for, _run, DesktopError, SCREEN, SWAY_UID). When desktop.py
# runs as a script it is __main__: use that copy, or our DesktopError would be another
# class than the one its CLI catches.
_main = sys.modules.get("__main__")
if os.path.basename(getattr(_main, "__file__", None) or "") == "desktop.py":
    desktop = _main
else:
    import desktop  # noqa: E402

SWAYNC = "swaync"
CC_NAME = "org.erikreider.swaync.cc"
CC_PATH = "/org/erikreider/swaync/cc"
CC_IFACE = "org.erikreider.swaync.cc"
DCONF_SERVICE = "/usr/libexec/dconf-service"

# The popup window is a layer surface anchored to these edges, with no margin (swaync
# 0.7.3 has margins only for the control centre) and `notification-window-width` wide.
CONFIG = {
    "positionX": "right",
    "positionY": "top",
    "layer": "top",
    "cssPriority": "application",
    "control-center-margin-top": 0,
    "control-center-margin-bottom": 0,
    "control-center-margin-right": 0,
    "control-center-margin-left": 0,
    "notification-icon-size": 64,
    "notification-body-image-height": 100,
    "notification-body-image-width": 200,
    # Seconds, for expire_timeout -1 (and 0: swaync treats 0 like -1, see findings).
    "timeout": 10,
    "timeout-low": 5,
    "timeout-critical": 0,  # critical popups stay until clicked (swaync's default)
    "fit-to-screen": True,
    "control-center-width": 500,
    "control-center-height": 600,
    "notification-window-width": 500,
    "keyboard-shortcuts": True,
    "image-visibility": "when-available",
    # No slide animations: popups are at their final place as soon as they are mapped.
    "transition-time": 0,
    "hide-on-clear": False,
    "hide-on-action": True,
    "script-fail-notify": True,
    "scripts": {},
    "notification-visibility": {},
    "widgets": ["title", "dnd", "notifications"],
    "widget-config": {
        "title": {"text": "Notifications", "clear-all-button": True, "button-text": "Clear All"},
        "dnd": {"text": "Do Not Disturb"},
    },
}

# As desktop.py's mako session. The seat gets its pointer from virtual_pointer_main().
SWAY_CONFIG = """xwayland disable
output HEADLESS-1 resolution {w}x{h} position 0 0
"""


def _sway_env(run, base_path):
    return {"PATH": base_path, "HOME": run, "XDG_RUNTIME_DIR": run, "WLR_BACKENDS": "headless",
            "WLR_LIBINPUT_NO_DEVICES": "1", "WLR_RENDERER": "pixman", "LANG": "C.UTF-8"}


def start(session):
    """Headless sway (as nobody), then swaync as its Wayland client on the private bus."""
    d = session.dir
    run = os.path.join(d, "wayland")
    os.makedirs(run, mode=0o700)
    with open(os.path.join(run, "sway.conf"), "w") as f:
        f.write(SWAY_CONFIG.format(w=desktop.SCREEN[0], h=desktop.SCREEN[1]))
    os.chmod(d, 0o711)  # nobody must be able to reach its runtime dir
    os.chown(run, desktop.SWAY_UID, desktop.SWAY_UID)
    session._spawn("sway", ["setpriv", f"--reuid={desktop.SWAY_UID}", f"--regid={desktop.SWAY_UID}",
                            "--clear-groups", "sway", "-c", f"{run}/sway.conf"],
                   _sway_env(run, session._base_env["PATH"]))
    sock = desktop.wait_for(
        "headless sway to create its Wayland socket",
        lambda: session._alive() and next((n for n in os.listdir(run) if n.startswith("wayland-")
                                           and not n.endswith(".lock")), None), 15)
    swaysock = desktop.wait_for("headless sway to create its IPC socket",
                                lambda: session._alive() and next(iter(glob.glob(f"{run}/sway-ipc.*.sock")), None),
                                15)
    session.env["WAYLAND_DISPLAY"] = sock
    session.env["HERALD_DESKTOP_WAYLAND_DIR"] = run
    session.env["SWAYSOCK"] = swaysock

    cfg_dir = os.path.join(session._base_env["XDG_CONFIG_HOME"], "swaync")
    os.makedirs(cfg_dir, exist_ok=True)
    with open(os.path.join(cfg_dir, "config.json"), "w") as f:
        json.dump(CONFIG, f, indent=2)

    env = {**session._base_env, **session.env,
           "XDG_RUNTIME_DIR": run, "WAYLAND_DISPLAY": sock, "GDK_BACKEND": "wayland",
           "GTK_MODULES": "gail:atk-bridge"}
    env.pop("DISPLAY", None)
    env.pop("NO_AT_BRIDGE", None)
    if "PULSE_SERVER" in os.environ:
        env["PULSE_SERVER"] = os.environ["PULSE_SERVER"]
    # swaync keeps its do-not-disturb in GSettings (org.erikreider.swaync dnd-state, bound
    # to the daemon's state). The bus has no activation, so dconf's writer is started by
    # hand; without it GSettings writes fail (with warnings) and nothing else changes.
    if os.path.exists(DCONF_SERVICE):
        session._spawn("dconf", [DCONF_SERVICE], env)
        desktop.wait_for("dconf-service to own ca.desrt.dconf",
                         lambda: session._alive() and desktop._name_owner_pid(session.env, "ca.desrt.dconf"), 15)
    # The seat's pointer device (see virtual_pointer_main), and the Notify recorder.
    me = [desktop.PYTHON, "-B", os.path.abspath(__file__)]
    session._spawn("vpointer", me + ["virtual-pointer"], env)
    sway = {**env, "SWAYSOCK": swaysock}
    desktop.wait_for("sway's seat0 to get the virtual pointer",
                     lambda: session._alive() and any(s["capabilities"] & 1 for s in json.loads(
                         desktop._run(["swaymsg", "-t", "get_seats", "-r"], sway))), 15)
    desktop._run(["swaymsg", "seat", "seat0", "cursor", "set", "0", str(desktop.SCREEN[1] - 1)], sway)
    log = os.path.join(d, "swaync-notify.jsonl")
    session._spawn("recorder", me + ["record-notify", log], env)
    desktop.wait_for("the Notify recorder to become a bus monitor",
                     lambda: session._alive() and os.path.exists(log + ".ready"), 15)
    session._spawn("swaync", [SWAYNC], env)
    desktop.wait_for(f"swaync to own {CC_NAME}",
                     lambda: session._alive() and desktop._name_owner_pid(session.env, CC_NAME), 20)


# --------------------------------------------------------------------------- inspector


class Inspector:
    """swaync's popups through AT-SPI, clicked with sway's own seat pointer.

    On Wayland GTK does not know where its window is: AT-SPI extents (DESKTOP_COORDS and
    WINDOW_COORDS alike) are relative to the popup window. That window is a layer surface
    anchored top + right with no margin (swaync 0.7.3 has none for popups), so its screen
    position is (output width - window width, 0); see `_origin`."""

    def __init__(self, env):
        self.env = env
        self.dir = env["HERALD_DESKTOP_DIR"]
        self.pid = int(env["HERALD_DESKTOP_SERVER_PID"])
        self._output = None
        import pyatspi  # imported late: it connects to the AT-SPI bus given in os.environ
        self.pyatspi = pyatspi

    # -- sway

    def _wl_env(self):
        return {**self.env, "XDG_RUNTIME_DIR": self.env["HERALD_DESKTOP_WAYLAND_DIR"]}

    def swaymsg(self, *args):
        return desktop._run(["swaymsg", *args], self._wl_env())

    def output(self):
        """(x, y, width, height) of sway's only output."""
        if self._output is None:
            outs = [o for o in json.loads(self.swaymsg("-t", "get_outputs", "-r")) if o.get("active")]
            if len(outs) != 1:
                raise desktop.DesktopError(f"expected one active sway output, got {len(outs)}")
            r = outs[0]["rect"]
            self._output = (r["x"], r["y"], r["width"], r["height"])
        return self._output

    def _origin(self, window_extents):
        ox, oy, ow, oh = self.output()
        _, _, w, h = window_extents
        x = {"right": ox + ow - w, "left": ox, "center": ox + (ow - w) // 2}[CONFIG["positionX"]]
        y = oy if CONFIG["positionY"] == "top" else oy + oh - h
        return x, y

    # -- AT-SPI

    def _app(self):
        return desktop.atspi_app(self.pyatspi, self.pid)

    def _showing(self, acc):
        return desktop.atspi_showing(self.pyatspi, acc)

    def _ext(self, acc):
        return desktop.atspi_extents(self.pyatspi, acc, self.pyatspi.WINDOW_COORDS)

    def _children(self, acc):
        return [c for c in acc if c is not None]

    def _walk(self, acc):
        for child in self._children(acc):
            yield child
            yield from self._walk(child)

    def _popup_windows(self):
        """Showing top-level frames that hold popups: window > scroll pane > viewport > box
        of list items (the control centre and the blank windows look different)."""
        app = self._app()
        if app is None:
            return []
        out = []
        for w in self._children(app):
            try:
                if not self._showing(w):
                    continue
                kids = self._children(w)
                if len(kids) == 1 and kids[0].getRole() == self.pyatspi.ROLE_SCROLL_PANE:
                    out.append(w)
            except Exception:  # a window closing under our feet
                continue
        return out

    def popups(self):
        """One dict per popup swaync holds in its popup window, top to bottom: summary (as
        drawn), box, buttons, showing. The window is at most 600 px high and scrolls: popups
        below that are held (and still expire) but not showing."""
        P = self.pyatspi
        out = []
        for w in self._popup_windows():
            try:
                x0, y0 = self._origin(self._ext(w))
                # Visible but not showing: scrolled out of the window's 600 px.
                items = [a for a in self._walk(w) if a.getRole() == P.ROLE_LIST_ITEM
                         and a.getState().contains(P.STATE_VISIBLE)]
                for item in items:
                    showing = self._showing(item)
                    x, y, width, height = self._ext(item)
                    summary, buttons = None, []
                    for acc in self._walk(item):
                        if acc.getRole() != P.ROLE_PUSH_BUTTON or not acc.getState().contains(P.STATE_VISIBLE):
                            continue
                        in_actions = acc.parent.parent.parent.getRole() == P.ROLE_SCROLL_PANE
                        if in_actions and acc.name and self._showing(acc):  # in a scrolled box
                            bx, by, bw, bh = self._ext(acc)
                            buttons.append([acc.name, x0 + bx, y0 + by, bw, bh])
                        elif summary is None and acc.name:  # the body is one big button
                            summary = acc.name
                    out.append({"summary": summary or "", "box": (x0 + x, y0 + y, width, height),
                                "buttons": buttons, "showing": showing})
            except Exception:
                continue
        out.sort(key=lambda p: p["box"][1])
        return out

    # -- the interface desktop.py uses

    def popup_count(self):
        """Popups held in the popup window, including any scrolled out of its 600 px."""
        return len(self.popups())

    def buttons(self):
        return [b for p in self.popups() if p["showing"] for b in p["buttons"]]

    def popup_area(self):
        return [p["box"] for p in self.popups() if p["showing"]]

    def texts(self):
        """Summary as drawn (AT-SPI) and body as sent (from the Notify calls recorded on the
        bus): GTK 3 hides the labels inside a button from AT-SPI, and swaync draws summary
        and body inside the popup's default-action button, whose name is the summary."""
        sent = notify_log(self.dir)
        used = set()
        out = []
        for p in self.popups():
            if not p["showing"]:
                continue
            out.append(p["summary"])
            for n in reversed(sent):  # newest notification with that summary not yet used
                shown = n["summary"] or n["app_name"]
                if n["id"] not in used and shown == p["summary"]:
                    used.add(n["id"])
                    if n["body"]:
                        out.append(n["body"])
                    break
        return [t for t in out if t]

    def click(self, label, timeout):
        button = desktop.wait_for(
            f"a visible swaync action button labelled {label!r}",
            lambda: next((b for b in self.buttons() if b[0] == label), None), timeout)
        _, x, y, w, h = button
        self.click_at(x + w // 2, y + h // 2)
        return button

    def click_body(self, summary, timeout=10):
        """A real click on the popup's text (swaync's "default" action button); not part of
        desktop.py's CLI."""
        popup = desktop.wait_for(f"a swaync popup with summary {summary!r}",
                                 lambda: next((p for p in self.popups() if p["showing"]
                                               and p["summary"] == summary), None), timeout)
        x, y, w, h = popup["box"]
        self.click_at(x + w // 3, y + 20)  # the summary line, clear of the close button
        return popup

    def click_at(self, x, y):
        """A real left click with sway's seat pointer, then the pointer leaves the popups
        (a pointer resting on a popup stops its expiry timer)."""
        self.swaymsg("seat", "seat0", "cursor", "set", str(x), str(y))
        time.sleep(0.1)  # let GTK see the pointer enter before the press
        self.swaymsg("seat", "seat0", "cursor", "press", "button1")
        self.swaymsg("seat", "seat0", "cursor", "release", "button1")
        time.sleep(0.1)
        ox, oy, ow, oh = self.output()
        self.swaymsg("seat", "seat0", "cursor", "set", str(ox), str(oy + oh - 1))

    def screenshot(self, path):
        """grim of sway's output, cropped to the popups when there are any."""
        if not shutil.which("grim"):
            raise desktop.DesktopError("screenshot: grim is not installed (apt-get install grim)")
        boxes = self.popup_area()
        argv = ["grim"]
        if boxes:
            pad = 8
            ox, oy, ow, oh = self.output()
            x0 = max(ox, min(b[0] for b in boxes) - pad)
            y0 = max(oy, min(b[1] for b in boxes) - pad)
            x1 = min(ox + ow, max(b[0] + b[2] for b in boxes) + pad)
            y1 = min(oy + oh, max(b[1] + b[3] for b in boxes) + pad)
            argv += ["-g", f"{x0},{y0} {x1 - x0}x{y1 - y0}"]
        desktop._run(argv + [path], self._wl_env(), timeout=30)
        return boxes

    # -- do not disturb: swaync-client is what a sway user binds to a key or a bar button;
    # it calls SetDnd/GetDnd on org.erikreider.swaync.cc. It takes exactly one option
    # (with two, e.g. -sw -dn, it prints its usage and does nothing).

    def set_dnd(self, on):
        out = desktop._run(["swaync-client", "-dn" if on else "-df"], self.env).strip()
        if out != ("true" if on else "false"):
            raise desktop.DesktopError(f"swaync-client {'-dn' if on else '-df'} printed {out!r}")

    def dnd(self):
        out = desktop._run(["swaync-client", "-D"], self.env).strip()
        if out not in ("true", "false"):
            raise desktop.DesktopError(f"swaync-client -D printed {out!r}")
        return out == "true"


# --------------------------------------------------------------------------- Notify log
# A bus monitor records every Notify call with the id swaync answered, so texts() can
# give the body that AT-SPI cannot reach.


def notify_log(d):
    out = []
    try:
        with open(os.path.join(d, "swaync-notify.jsonl")) as f:
            for line in f:
                out.append(json.loads(line))
    except FileNotFoundError:
        pass
    return out


def record_notify_main(path):
    import dbus
    import dbus.lowlevel
    import dbus.mainloop.glib
    from gi.repository import GLib
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.bus.BusConnection(os.environ["DBUS_SESSION_BUS_ADDRESS"])
    pending = {}

    def on_message(_bus, msg):
        kind = msg.get_type()
        if kind == dbus.lowlevel.MESSAGE_TYPE_METHOD_CALL and msg.get_member() == "Notify" \
                and msg.get_interface() == desktop.BUS_NAME:
            pending[(msg.get_sender(), msg.get_serial())] = msg.get_args_list()
        elif kind == dbus.lowlevel.MESSAGE_TYPE_METHOD_RETURN:
            args = pending.pop((msg.get_destination(), msg.get_reply_serial()), None)
            if args is not None:
                app, replaces, icon, summary, body, actions, hints, timeout = args[:8]
                entry = {"id": int(msg.get_args_list()[0]), "app_name": str(app), "replaces_id": int(replaces),
                         "summary": str(summary), "body": str(body), "actions": [str(a) for a in actions],
                         "expire_timeout": int(timeout), "time": time.time()}
                with open(path, "a") as f:
                    f.write(json.dumps(entry) + "\n")
        # HANDLED: else libdbus answers an unhandled method call with an error, and a
        # monitor that sends anything is disconnected by the bus.
        return dbus.lowlevel.HANDLER_RESULT_HANDLED

    bus.add_message_filter(on_message)
    bus.call_blocking("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.Monitoring",
                      "BecomeMonitor", "asu",
                      ([f"type='method_call',interface='{desktop.BUS_NAME}',member='Notify'",
                        "type='method_return'"], 0))
    open(path + ".ready", "w").close()
    GLib.MainLoop().run()


# --------------------------------------------------------------------------- pointer
# Headless sway has no input devices, so its seat offers no wl_pointer and GTK would
# never see sway's cursor. A client of the wlr-virtual-pointer protocol adds a pointer
# device to seat0 for as long as it stays connected; after that `swaymsg seat seat0
# cursor set/press/release` reach the surface under the cursor like a real mouse.
# Debian 12 ships no tool that only does this (wlrctl is not packaged, ydotool needs
# uinput), so here is the few-message Wayland client, speaking the wire protocol itself.


def _wl_string(s):
    b = s.encode() + b"\0"
    return struct.pack("<I", len(b)) + b + b"\0" * (-len(b) % 4)


def _wl_msg(obj, opcode, payload=b""):
    return struct.pack("<II", obj, ((8 + len(payload)) << 16) | opcode) + payload


def _wl_read(sock, buf):
    """One event: (object, opcode, payload), reading more from sock when needed."""
    while len(buf) < 8 or len(buf) < (struct.unpack_from("<I", buf, 4)[0] >> 16):
        data = sock.recv(4096)
        if not data:
            raise EOFError("the compositor closed the connection")
        buf += data
    obj, word = struct.unpack_from("<II", buf)
    size = word >> 16
    msg = bytes(buf[8:size])
    del buf[:size]
    return obj, word & 0xFFFF, msg


def _wl_error(payload):
    obj, code, n = struct.unpack_from("<III", payload)
    return f"Wayland error on object {obj}, code {code}: {payload[12:12 + n - 1].decode()}"


def virtual_pointer_main():
    """Connect to $WAYLAND_DISPLAY, create a virtual pointer on the default seat, stay."""
    import socket
    path = os.path.join(os.environ["XDG_RUNTIME_DIR"], os.environ["WAYLAND_DISPLAY"])
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(path)
    buf = bytearray()
    # wl_display(1).get_registry(new_id 2), then sync(new_id 3) to know all globals came.
    sock.sendall(_wl_msg(1, 1, struct.pack("<I", 2)) + _wl_msg(1, 0, struct.pack("<I", 3)))
    manager = None
    while True:
        obj, op, payload = _wl_read(sock, buf)
        if obj == 1 and op == 0:
            sys.exit(_wl_error(payload))
        if obj == 2 and op == 0:  # wl_registry.global(name, interface, version)
            name, n = struct.unpack_from("<II", payload)
            iface = payload[8:8 + n - 1].decode()
            if iface == "zwlr_virtual_pointer_manager_v1":
                manager = name
        if obj == 3 and op == 0:  # wl_callback.done
            break
    if manager is None:
        sys.exit("the compositor has no zwlr_virtual_pointer_manager_v1")
    # wl_registry.bind(name, "zwlr_virtual_pointer_manager_v1", 1, new_id 4);
    # manager.create_virtual_pointer(seat null = the default seat, new_id 5); sync(new_id 6).
    sock.sendall(_wl_msg(2, 0, struct.pack("<I", manager) + _wl_string("zwlr_virtual_pointer_manager_v1")
                         + struct.pack("<II", 1, 4))
                 + _wl_msg(4, 0, struct.pack("<II", 0, 5))
                 + _wl_msg(1, 0, struct.pack("<I", 6)))
    while True:
        obj, op, payload = _wl_read(sock, buf)
        if obj == 1 and op == 0:
            sys.exit(_wl_error(payload))
        if obj == 6 and op == 0:
            print("virtual pointer created", flush=True)
            break
    try:
        while True:  # keep the device alive until killed or sway goes away
            obj, op, payload = _wl_read(sock, buf)
            if obj == 1 and op == 0:
                sys.exit(_wl_error(payload))
    except EOFError:
        return 0


if __name__ == "__main__":
    if sys.argv[1:] == ["virtual-pointer"]:
        sys.exit(virtual_pointer_main())
    if len(sys.argv) == 3 and sys.argv[1] == "record-notify":
        sys.exit(record_notify_main(sys.argv[2]))
    sys.exit("usage: swaync.py virtual-pointer  (desktop.py uses this module; see its docstring)")
