"""The soak's notification server: a process of its own (`soak serve`), started and killed by
processes.py. It owns org.freedesktop.Notifications on the run's private bus, logs every Notify
and acts as the user (presses Done on habits, dismisses most popups)."""
import argparse
import json
import os
import random
import signal
import time

IFACE = "org.freedesktop.Notifications"
PATH = "/org/freedesktop/Notifications"


def serve(argv):
    """The notification server: `soak serve --log FILE --events FILE --incarnation K --seed S`."""
    p = argparse.ArgumentParser(prog="soak serve")
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
