"""KDE Plasma 5.27's notification server for desktop.py: the notifications applet in plasmawindowed.

The server is `plasmawindowed org.kde.plasma.notifications` (Debian 12 plasma-workspace): the
applet's own window (title "Notifications", history + "Do not disturb" check box) fills the
screen, and each popup is a top-level Qt Quick window stacked in the top right corner. Qt
exposes both through AT-SPI (QT_ACCESSIBILITY=1), so the popups are read like the GTK ones:
a popup is a frame with a child of role "notification" (its name is the summary; the body is
a text child); its action buttons are the push buttons after that child (the ones before it
are the header's Configure/Minimize/Close). Clicks are real xdotool clicks.

Do not disturb is what a user does: click the applet's "Do not disturb" check box, which
opens a menu ("For 1 hour" ... "Until manually disabled"); the last entry is picked with the
keyboard (Up, Return). Clicking the check box again switches it off. The state is the
`Inhibited` property of org.freedesktop.Notifications (PropertiesChanged is emitted).
See findings-plasma.md.
"""

import importlib
import os
import sys
import time

PLASMANOTIFYRC = """[Notifications]
PopupPosition=TopRight
"""


def _desktop():
    """desktop.py as already loaded (as `desktop` or as the CLI's __main__), so that
    DesktopError is the class its callers catch."""
    if "desktop" in sys.modules:
        return sys.modules["desktop"]
    main = sys.modules.get("__main__")
    if main is not None and hasattr(main, "GtkInspector") and hasattr(main, "SERVERS"):
        return main
    return importlib.import_module("desktop")


desktop = _desktop()


def _env(session):
    env = {**session._base_env, **session.env,
           # Qt's AT-SPI bridge, on even without a screen reader registered.
           "QT_ACCESSIBILITY": "1", "QT_LINUX_ACCESSIBILITY_ALWAYS_ON": "1",
           "QT_QPA_PLATFORM": "xcb", "XDG_CURRENT_DESKTOP": "KDE"}
    env.pop("NO_AT_BRIDGE", None)
    if "PULSE_SERVER" in os.environ:
        env["PULSE_SERVER"] = os.environ["PULSE_SERVER"]
    return env


def start(session):
    # Popups in the top right corner (the default, "close to the widget", puts them
    # relative to the applet's window).
    with open(os.path.join(session._base_env["XDG_CONFIG_HOME"], "plasmanotifyrc"), "w") as f:
        f.write(PLASMANOTIFYRC)
    # Without -geometry the popups are placed off screen. One plasmawindowed per bus
    # (a second one, even with --help, is forwarded to the first through KDBusService).
    session._spawn("plasma", ["plasmawindowed", "-geometry", f"{desktop.SCREEN[0]}x{desktop.SCREEN[1]}+0+0",
                              "org.kde.plasma.notifications"], _env(session))


class Inspector(desktop.GtkInspector):
    """Popups of the Plasma notifications applet through AT-SPI (Qt's bridge)."""

    def _notification(self, win):
        """The popup's "notification" child, or None (the applet's own window has none)."""
        for child in win:
            if child is not None and child.getRole() == self.pyatspi.ROLE_NOTIFICATION:
                return child
        return None

    def windows(self):
        wins = []
        for w in super().windows():
            try:
                if self._notification(w) is not None:
                    wins.append(w)
            except Exception:  # closing under our feet
                continue
        return sorted(wins, key=lambda w: self._extents(w)[1])  # top to bottom

    def buttons(self):
        out = []
        for w in self.windows():
            seen_notification = False  # header buttons (Configure, Minimize, Close) come first
            row = []
            for acc in self._walk(w):
                try:
                    role = acc.getRole()
                    if role == self.pyatspi.ROLE_NOTIFICATION:
                        seen_notification = True
                    elif (seen_notification and role == self.pyatspi.ROLE_PUSH_BUTTON and acc.name
                          and self._showing(acc)):
                        row.append([acc.name, *self._extents(acc)])
                except Exception:
                    continue
            out += sorted(row, key=lambda b: (b[2], b[1]))  # Qt lists them right to left
        return out

    def texts(self):
        out = []
        for w in self.windows():
            try:
                n = self._notification(w)
                for acc in self._walk(n):
                    if not self._showing(acc):
                        continue
                    role = acc.getRole()
                    if role == self.pyatspi.ROLE_LABEL and acc.name:
                        out.append(acc.name)  # the summary
                    elif role == self.pyatspi.ROLE_TEXT:
                        text = acc.queryText().getText(0, -1).strip()  # the body, markup rendered
                        if text:
                            out.append(text)
            except Exception:
                continue
        return out

    def click(self, label, timeout):
        button = desktop.wait_for(f"a visible action button labelled {label!r} in a Plasma popup",
                                  lambda: next((b for b in self.buttons() if b[0] == label), None), timeout)
        _, x, y, w, h = button
        self._click_at(x + w // 2, y + h // 2)
        time.sleep(0.2)
        self._park_pointer()  # or the popup that moves up into this place never expires
        return button

    # -- do not disturb

    def dnd(self):
        import dbus
        bus = desktop._bus(self.env)
        try:
            obj = bus.get_object(desktop.BUS_NAME, desktop.BUS_PATH)
            return bool(obj.Get(desktop.BUS_NAME, "Inhibited", dbus_interface="org.freedesktop.DBus.Properties"))
        finally:
            bus.close()

    def _dnd_check_box(self):
        app = self._app()
        if app is None:
            return None
        for w in app:
            try:
                if w is None or not self._showing(w) or self._notification(w) is not None:
                    continue
                for acc in self._walk(w):
                    if acc.getRole() == self.pyatspi.ROLE_CHECK_BOX and acc.name == "Do not disturb":
                        return acc
            except Exception:
                continue
        return None

    def _window_under_pointer(self):
        out = desktop._run(["xdotool", "getmouselocation", "--shell"], self.env)
        return dict(line.split("=", 1) for line in out.split() if "=" in line).get("WINDOW")

    def _click_at(self, x, y):
        # No --sync: xdotool waits for a motion event, which never comes if the pointer is
        # already there.
        desktop._run(["xdotool", "mousemove", str(x), str(y)], self.env)
        time.sleep(0.1)
        desktop._run(["xdotool", "click", "1"], self.env)

    def _park_pointer(self):
        # Plasma stops a popup's timeout while the pointer is over it: keep it away (the
        # bottom left corner is the applet's own, empty, window).
        desktop._run(["xdotool", "mousemove", "0", str(desktop.SCREEN[1] - 1)], self.env)

    def set_dnd(self, on):
        if self.dnd() == on:
            return
        box = desktop.wait_for("the applet's 'Do not disturb' check box", self._dnd_check_box, 10)
        x, y, w, h = self._extents(box)
        self._park_pointer()
        time.sleep(0.1)
        main_window = self._window_under_pointer()  # the applet's window fills the screen
        self._click_at(x + w // 2, y + h // 2)
        if on:
            # The press opens the duration menu (a QMenu, missing from the AT-SPI tree) over
            # the check box; its last entry is "Until manually disabled" (a year from now).
            desktop.wait_for("the 'Do not disturb' duration menu",
                             lambda: self._window_under_pointer() != main_window, 5)
            time.sleep(0.2)
            desktop._run(["xdotool", "key", "Up", "Return"], self.env)
        self._park_pointer()
        desktop.wait_for(f"Plasma's Inhibited property to become {on}", lambda: self.dnd() == on, 5)
