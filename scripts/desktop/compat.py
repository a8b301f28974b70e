#!/usr/bin/python3
"""`make compat`: Herald's popups on every real notification server we can run here.

For each server (desktop.py starts it under Xvfb, or headless sway for mako), heraldd and
herald from BIN (default .build/debug) run against a private spool, and each row of the
table is checked for real: text shown verbatim, buttons drawn, a real click on a button
has its effect, expiry honoured, replace in place, sound. The table goes to
docs/compat.md and between the compat-table markers in README.md; one screenshot per
server goes to docs/compat/<server>.png.

    scripts/desktop/compat.py [SERVER...]      (BIN=.build/release to test a release build)

A run for some servers measures only those and keeps the other rows (docs/compat.json);
`compat.py --render` writes the table again from those rows.
"""

import html
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)  # desktop.py is beside this file
sys.dont_write_bytecode = True
import desktop  # noqa: E402

BIN = os.path.abspath(os.environ.get("BIN", os.path.join(ROOT, ".build/debug")))
SERVERS = ["xfce4-notifyd", "dunst", "notification-daemon", "mate-notification-daemon", "mako", "gnome-shell",
           "gnome-shell-wayland", "plasma", "swaync"]
TITLE = "Dentist & <Co>"
TEXT = "Zoë & Bob <3 café"
CONFIG = """log:
  level: debug
defaults:
  snooze: 3s
alarms:
  snooze: 3s
popups:
  expire:
    headsUp: 2s
"""


def wait(what, predicate, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise TimeoutError(what)


class Pulse:
    """A private PulseAudio server whose only sink is a null sink: started before the desktop,
    so that servers which play sounds themselves (GNOME Shell, notification-daemon) play there."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="herald-compat-pulse.")
        self.socket = os.path.join(self.dir, "pulse-native")
        self.server = "unix:" + self.socket
        with open(os.path.join(self.dir, "default.pa"), "w") as f:
            f.write(f"load-module module-native-protocol-unix socket={self.socket} auth-anonymous=1\n"
                    "load-module module-null-sink sink_name=herald_null\nset-default-sink herald_null\n")
        os.makedirs(os.path.join(self.dir, "run"))
        self.proc = subprocess.Popen(
            ["pulseaudio", "-n", "-F", os.path.join(self.dir, "default.pa"), "--daemonize=no", "--exit-idle-time=-1",
             "--use-pid-file=no", "--disallow-exit"],
            env={"HOME": self.dir, "XDG_RUNTIME_DIR": os.path.join(self.dir, "run"), "PATH": "/usr/bin:/bin"},
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait("PulseAudio", lambda: self.pactl("info").returncode == 0, 15)
        self.events = None

    def pactl(self, *args):
        return subprocess.run(["pactl", *args], env={"PULSE_SERVER": self.server, "PATH": "/usr/bin:/bin"},
                              capture_output=True, text=True, timeout=20)

    def playing(self, app):
        return f'application.name = "{app}"' in self.pactl("list", "sink-inputs").stdout

    def count_streams(self):
        """Starts counting the streams (sink inputs) made from now on."""
        self.stop_counting()
        self.events = tempfile.NamedTemporaryFile(prefix="pactl-subscribe.", dir=self.dir, delete=False)
        self.subscriber = subprocess.Popen(["pactl", "subscribe"], env={"PULSE_SERVER": self.server, "PATH": "/usr/bin:/bin"},
                                           stdout=self.events, stderr=subprocess.DEVNULL)
        time.sleep(0.3)  # pactl subscribes before it prints anything; give it its connection

    def streams(self):
        with open(self.events.name) as f:
            return sum(1 for line in f if "'new' on sink-input" in line)

    def stop_counting(self):
        if self.events:
            self.subscriber.terminate()
            self.subscriber.wait()
            self.events = None

    def stop(self):
        self.stop_counting()
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        subprocess.run(["rm", "-rf", self.dir])


class Bench:
    """heraldd and a spool for one server's session."""

    def __init__(self, session, pulse):
        self.session = session
        self.pulse = pulse
        self.dir = tempfile.mkdtemp(prefix="herald-compat.")
        with open(os.path.join(self.dir, "config.yaml"), "w") as f:
            f.write(CONFIG)
        self.env = {**session.env, "PATH": "/usr/bin:/bin", "HOME": self.dir, "LANG": "C.UTF-8", "TZ": "UTC",
                    "HERALD_SPOOL": os.path.join(self.dir, "spool"), "HERALD_CONFIG": os.path.join(self.dir, "config.yaml"),
                    "PULSE_SERVER": pulse.server, "NO_COLOR": "1"}
        self.log = open(os.path.join(self.dir, "heraldd.log"), "w")
        self.daemon = subprocess.Popen([os.path.join(BIN, "heraldd")], env=self.env, stdout=self.log, stderr=self.log)
        wait("heraldd", lambda: self.herald("status").returncode == 0, 15)

    def herald_playing(self):
        return self.pulse.playing("Herald")

    def herald(self, *args):
        return subprocess.run([os.path.join(BIN, "herald"), *args], env=self.env, capture_output=True, text=True, timeout=30)

    def outcomes(self, job_id):
        records = json.loads(self.herald("history", "--json").stdout or "[]")
        return [r["outcome"] for r in reversed(records) if r["id"] == job_id]

    def notes(self, job_id):
        records = json.loads(self.herald("history", "--json").stdout or "[]")
        return [r.get("note") for r in reversed(records) if r["id"] == job_id]

    def status(self):
        return json.loads(self.herald("status", "--json").stdout or "{}")

    def stop(self):
        self.daemon.terminate()
        try:
            self.daemon.wait(10)
        except subprocess.TimeoutExpired:
            self.daemon.kill()
        self.log.close()
        if os.environ.get("COMPAT_KEEP"):  # for a look at heraldd's log and spool afterwards
            print(f"compat: kept {self.dir}", flush=True)
        else:
            subprocess.run(["rm", "-rf", self.dir])


WANTED = ["Done", "Snooze", "5 min", "1 h"]


def check_server(name, shots):
    """One server's row: {column: (ok, note)}."""
    row = {}
    pulse = Pulse()
    os.environ["PULSE_SERVER"] = pulse.server  # desktop.py hands it to the server
    try:
        with desktop.Session(name) as s:
            info = s.server_info()
            package = {"mako": "mako-notifier", "gnome-shell-wayland": "gnome-shell", "plasma": "plasma-workspace",
                       "swaync": "sway-notification-center"}.get(name, name)
            version = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", package], capture_output=True, text=True).stdout
            row["server"] = f"{name} {version}".strip()
            caps = set(info.get("capabilities", []))
            bench = Bench(s, pulse)
            try:
                check_session(name, s, bench, caps, row, shots)
            finally:
                bench.stop()
    finally:
        os.environ.pop("PULSE_SERVER", None)
        pulse.stop()
    return row


def guarded(row, key, part):
    """Runs one column's check; a failure there is that cell's ✗ with the reason, not the row's end."""
    try:
        part()
    except (desktop.DesktopError, TimeoutError, subprocess.TimeoutExpired) as e:
        last = str(e).strip().splitlines()[-1] if str(e).strip() else type(e).__name__  # a traceback's own message
        row[key] = (False, f"{type(e).__name__}: {last[:140]}")


def check_session(name, s, bench, caps, row, shots):
    kind = desktop.SERVERS[name]["kind"]
    drawn_kinds = ("gtk", "module")
    # Text and buttons, and a screenshot, on a reminder with every button.
    bench.herald("remind", "--in", "1s", "--id", "dentist", "--title", TITLE, TEXT)
    s.wait_popups(1, timeout=15)
    texts = " ".join(html.unescape(t) for t in s.texts())
    verbatim = TITLE in texts and TEXT in texts
    row["text"] = (verbatim, "" if verbatim else f"shown: {texts[:80]}")
    labels = [b[0] for b in s.buttons()]
    have = [w for w in WANTED if w in labels]
    how = "drawn" if kind in drawn_kinds else ("in dunst's context menu" if name == "dunst" else "through makoctl (none drawn)")
    if len(have) == len(WANTED):
        row["buttons"] = (True, f"4 of 4 {how}")
    else:
        # A server that draws fewer gets the first ones, and the body says how to reach the rest.
        told = all(f"{w}: herald snooze dentist" in texts for w in WANTED if w not in have and w != "Done")
        ok = have == WANTED[:len(have)] and told
        row["buttons"] = (ok, f"{len(have)} of 4 {how} ({', '.join(have)}); the body names "
                              + ", ".join(f"`herald snooze dentist {w.replace(' ', '')}`" for w in WANTED if w not in have)
                          if ok else f"drawn: {labels}")
    os.makedirs(os.path.join(ROOT, "docs/compat"), exist_ok=True)
    shot = os.path.join(ROOT, "docs/compat", name + ".png")
    try:
        s.screenshot(shot)
        shots[name] = shot
    except desktop.DesktopError as e:
        shots[name] = None
        row["screenshot"] = str(e)
    # A click on Snooze closes it and brings it back; a click on Done ends it.
    clicked = True
    try:
        s.click("Snooze", timeout=10)
        wait("snoozed", lambda: bench.outcomes("dentist")[-1:] == ["snoozed"], 10)
        wait("shown again", lambda: bench.outcomes("dentist") == ["shown", "snoozed", "shown"], 15)
        s.click("Done", timeout=10)
        wait("done", lambda: bench.outcomes("dentist") == ["shown", "snoozed", "shown", "done"], 10)
    except (desktop.DesktopError, TimeoutError) as e:
        clicked = False
        row["click"] = (False, str(e)[:80])
    if clicked:
        row["click"] = (True, ("mouse click" if kind in drawn_kinds else "menu" if name == "dunst" else "makoctl invoke")
                        + ": Snooze came back, Done ended it, once each")
    # Expiry: a heads-up set to 2 s goes; a reminder (never) outlives the server's default.
    # The pointer is moved off the popups first: servers keep a hovered popup.
    subprocess.run(["xdotool", "mousemove", "0", "0"], env=s.env, capture_output=True)
    bench.herald("deliver", "--in", "1h", "--lead", "59m59s", "--id", "brief", "--name", "Ann", "--address", "Elm")
    try:
        wait("the heads-up expired", lambda: bench.outcomes("brief") == ["shown", "expired"], 15)
        bench.herald("remind", "--in", "1s", "--id", "stays", "Stays")
        wait("shown", lambda: bench.outcomes("stays") == ["shown"], 15)
        time.sleep(12)  # longer than any server's default (xfce4-notifyd and dunst: 10 s)
        stays = bench.outcomes("stays") == ["shown"] and s.popup_count() >= 1
        row["expiry"] = (stays, "2 s expired, 'never' stayed 12 s" if stays else "the 'never' popup went")
        s.click("Done", timeout=10)
    except TimeoutError:
        row["expiry"] = (False, EXPIRY_NOTES.get(name, "a 2 s popup stayed: the server keeps it"
                                                 if bench.outcomes('brief') == ['shown'] else f"2 s popup: {bench.outcomes('brief')}"))
    bench.herald("cancel", "brief")
    if bench.outcomes("stays") == ["shown"]:
        guarded(row, "expiry", lambda: s.click("Done", timeout=10))
    # Sound, once: a timer's ring is one stream on the null sink, whoever plays it.
    def sound():
        bench.pulse.count_streams()
        bench.herald("remind", "--in", "1s", "--id", "tea", "--sound", "alarm-clock-elapsed", "Tea")
        wait("the timer", lambda: bench.outcomes("tea")[:1] == ["shown"], 15)
        heraldd_played = False
        deadline = time.monotonic() + 6
        while time.monotonic() < deadline:
            heraldd_played = heraldd_played or bench.herald_playing()
            time.sleep(0.2)
        streams = bench.pulse.streams()
        bench.pulse.stop_counting()
        server_plays = name in SERVER_PLAYS
        who = "the server" if server_plays else "heraldd (libcanberra)" + (
            "; the server lists 'sound' but plays no sound-name" if "sound" in caps else "")
        right_player = heraldd_played != server_plays
        row["sound"] = (streams == 1 and right_player,
                        f"heard once, played by {who}" if streams == 1 and right_player
                        else f"{streams} stream(s); heraldd {'played' if heraldd_played else 'did not play'}; capability 'sound' {'listed' if 'sound' in caps else 'not listed'}")
        s.click("Done", timeout=10)
        wait("tea done", lambda: "done" in bench.outcomes("tea"), 10)
    guarded(row, "sound", sound)
    # An alarm stays until handled (past any server's default), Snooze brings it back, Stop ends it.
    # Here, while no other popup of Herald's is on screen (a button of another would be clicked).
    def alarm():
        subprocess.run(["xdotool", "mousemove", "0", "0"], env=s.env, capture_output=True)
        bench.herald("alarm", "--in", "1s", "--id", "wake", "Wake up")
        wait("the alarm", lambda: bench.outcomes("wake")[:1] == ["shown"], 15)
        time.sleep(12)  # longer than any server's default (xfce4-notifyd and dunst: 10 s)
        stays = bench.outcomes("wake") == ["shown"] and s.popup_count() >= 1
        s.click("Snooze", timeout=10)
        wait("snoozed", lambda: bench.outcomes("wake")[-1:] == ["snoozed"], 10)
        wait("rings again", lambda: bench.outcomes("wake") == ["shown", "snoozed", "shown"], 15)
        s.click("Stop", timeout=10)
        wait("stopped", lambda: bench.outcomes("wake")[-1:] == ["done"], 10)
        row["alarm"] = (stays, "stayed 12 s; Snooze brought it back, Stop ended it" if stays else "the alarm's popup went")
    guarded(row, "alarm", alarm)
    # Replace in place: a timer that repeats every 2 s.
    def replace():
        started = bench.herald("timer", "1s", "--repeat", "2s", "Eggs")
        eggs = started.stdout.split()[1].rstrip(":")  # "Timer <id>: 1s, until ..."
        wait("the first ring", lambda: bench.outcomes(eggs)[:1] == ["shown"], 15)
        wait("the repeat", lambda: bench.outcomes(eggs)[:3] == ["shown", "replaced", "shown"], 15)
        count = s.popup_count()
        row["replace"] = (count == 1, f"{count} popup(s) after a repeat")
        bench.herald("ack", eggs)
        wait("eggs acknowledged", lambda: "done" in bench.outcomes(eggs), 10)
    guarded(row, "replace", replace)
    # More popups than the server keeps: five repeating reminders a second apart.
    def crowd():
        for k in range(5):
            bench.herald("remind", "--in", f"{k + 1}s", "--repeat", "3s", "--id", f"crowd{k}", f"Crowd {k}")
        most = 0
        deadline = time.monotonic() + 14
        while time.monotonic() < deadline:
            most = max(most, s.popup_count())
            time.sleep(0.5)
        outcomes = [o for k in range(5) for o in bench.outcomes(f"crowd{k}")]
        in_summary = sum(1 for k in range(5) if "in a summary" in bench.notes(f"crowd{k}"))
        limit = (bench.status().get("server") or "", LIMITS.get(name))
        expired = outcomes.count("expired")
        if limit[1]:
            ok = most <= limit[1] and expired == 0 and in_summary == 5 - (limit[1] - 1)
            row["crowd"] = (ok, f"at most {most} on screen (it keeps {limit[1]}): {5 - in_summary} on their own, "
                                f"{in_summary} in one summary; none closed unseen" if ok
                            else f"{most} on screen, {in_summary} in a summary, {expired} expired")
        else:
            ok = in_summary == 0 and outcomes.count("shown") >= 5
            row["crowd"] = (ok, f"5 on their own, repeating (no per-app limit){'' if most >= 5 else f'; {most} visible at once'}")
        for k in range(5):
            bench.herald("ack", f"crowd{k}")
    guarded(row, "crowd", crowd)
    # The same popup twice within a second (KDE Plasma refuses that): two reminders alike.
    def twice():
        for k in range(2):
            bench.herald("remind", "--in", "2s", "--id", f"same{k}", "--title", "Stand up", "Stretch")
        wait("both shown", lambda: all(bench.outcomes(f"same{k}")[:1] == ["shown"] for k in range(2)), 15)
        with open(bench.log.name) as f:
            refused = "Cannot show notifications" in f.read()
        row["twice"] = (not refused, "both shown" + ("" if name != "plasma" else ", the second a second later")
                        if not refused else "one was refused (heraldd retried it)")
    guarded(row, "twice", twice)
    # Do-not-disturb: switched on the way the desktop's user does; a reminder waits; off: a summary.
    if name in DND_SERVERS:
        try:
            s.set_dnd(True)
            wait("heraldd to see do-not-disturb", lambda: bench.status().get("doNotDisturb", {}).get("on"), 10)
            bench.herald("remind", "--in", "1s", "--id", "quiet", "Quiet please")
            time.sleep(4)
            held = bench.outcomes("quiet") == []
            s.set_dnd(False)
            wait("the summary", lambda: "in a summary" in bench.notes("quiet"), 15)
            source = bench.status().get("doNotDisturb", {})
            row["dnd"] = (held, f"held while on ({DND_SERVERS[name]}), then one summary" if held else "shown during do-not-disturb")
        except (desktop.DesktopError, TimeoutError) as e:
            row["dnd"] = (False, str(e)[:100])
    else:
        row["dnd"] = (True, "— (the server exposes none)")


# Servers Herald lets play the sound (ServerTraits.playsSound); everywhere else heraldd plays it.
SERVER_PLAYS = {"gnome-shell", "gnome-shell-wayland"}
# Popups the server keeps from one app (measured: scripts/desktop/FINDINGS.md).
LIMITS = {"gnome-shell": 3, "gnome-shell-wayland": 3}
# Where each server's do-not-disturb is switched, as its user does it.
DND_SERVERS = {"gnome-shell": "Do Not Disturb: show-banners off", "gnome-shell-wayland": "Do Not Disturb: show-banners off",
               "plasma": "the applet's Do not disturb",
               "swaync": "swaync-client -dn", "dunst": "dunstctl set-paused true", "mako": "makoctl mode -a do-not-disturb"}
EXPIRY_NOTES = {"gnome-shell": "GNOME ignores expire_timeout: a banner hides, the notification stays in the list (no close)",
                "gnome-shell-wayland": "GNOME ignores expire_timeout: a banner hides, the notification stays in the list (no close)",
                "swaync": "swaync sends no NotificationClosed when a popup times out (it stays in its control centre)"}


COLUMNS = [("text", "text as written (`&`, `<`, accents)"), ("buttons", "buttons of those sent"), ("click", "a click has its effect"),
           ("expiry", "expiry honoured"), ("replace", "replaced in place"), ("sound", "sound heard once"),
           ("crowd", "5 repeating reminders at once"), ("twice", "the same popup twice in 1 s"),
           ("dnd", "its do-not-disturb holds popups"), ("alarm", "an alarm stays; Stop and Snooze clicked")]


# What a reader of the table should know that a ✓ or ✗ does not say.
NOTES = {
    "xfce4-notifyd": "xfce4-notifyd 0.7 draws the body-click action (`default`) as a button, so Herald leaves it out "
                     "there: click Done instead. It also ignores expire_timeout for critical popups (they stay, as Herald wants).",
    "notification-daemon": "notification-daemon shows one popup at a time (the others wait in its queue), keeps popups "
                           "with buttons until they are clicked, and does not withdraw a popup on CloseNotification "
                           "(a popup acknowledged with `herald ack` stays until clicked).",
    "dunst": "dunst draws no buttons: its context menu (`dunstctl context`, or a middle click by default) lists them.",
    "mako": "mako draws no buttons: `makoctl menu` or `makoctl invoke` runs them.",
    "gnome-shell": "GNOME Shell draws 3 buttons, only while the pointer is over the banner, and none in its message "
                   "list (a click on a popup there acknowledges it). It ignores expire_timeout (the ✗: Herald's popups "
                   "stay, as wanted; a 2 s heads-up stays too), keeps 3 notifications per app, plays the sound itself "
                   "(only when it shows a banner) and emits button and close signals twice.",
    "gnome-shell-wayland": "The same shell as a headless Wayland compositor (`--headless --virtual-monitor`), clicked "
                           "through a virtual pointer: the same behaviour as on X11.",
    "plasma": "KDE Plasma refuses a popup identical to the one before within 1 s (Herald waits out that second), "
              "plays no sounds (heraldd does), stacks as many popups as fit in 80 % of the screen and queues the rest.",
    "swaync": "swaync treats expire_timeout 0 as its 10 s default and sends no NotificationClosed when a popup times "
              "out (the ✗: the popup stays in its control centre, where it can still be clicked); it sends "
              "NotificationClosed three times after a click.",
}


def render(rows, shots, measured):
    lines = ["| server | " + " | ".join(title for _, title in COLUMNS) + " |", "|---" * (len(COLUMNS) + 1) + "|"]
    for name, row in rows.items():
        if "error" in row:
            lines.append(f"| {name} | " + " | ".join(["—"] * (len(COLUMNS) - 1)) + f" | not run: {row['error']} |")
            continue
        cells = []
        for key, _ in COLUMNS:
            if key not in row:  # a column added after this row's run
                cells.append("— not measured yet")
                continue
            ok, note = row[key]
            cells.append(("✓" if ok else "✗") + (f" {note}" if note else ""))
        lines.append(f"| {row['server']} | " + " | ".join(cells) + " |")
    notes = "".join(f"- {NOTES[n]}\n" for n in rows if n in NOTES)
    shots_line = " ".join(f"[{n}](docs/compat/{n}.png)" for n, p in shots.items() if p)
    days = sorted(set(measured.values()))
    stamp = days[0] if len(days) == 1 else f"{days[0]} to {days[-1]} (each row's day in docs/compat.json)"
    return ("\n".join(lines) + "\n\n" + notes + f"\nMeasured by `make compat` on {stamp} (Debian 12, Xvfb; mako, swaync "
            f"and gnome-shell-wayland headless on Wayland). Screenshots: {shots_line}.\n")


def main():
    render_only = sys.argv[1:] == ["--render"]  # the table again from docs/compat.json, measuring nothing
    wanted = [] if render_only else sys.argv[1:] or SERVERS
    unknown = [n for n in wanted if n not in SERVERS]
    if unknown:
        print(f"compat.py: unknown server {unknown[0]!r}; choose from {', '.join(SERVERS)}", file=sys.stderr)
        return 64
    # Rows measured before are kept (docs/compat.json): a run for some servers updates theirs.
    store = os.path.join(ROOT, "docs/compat.json")
    try:
        with open(store) as f:
            kept = json.load(f)
    except FileNotFoundError:
        kept = {}
    rows, shots = {}, {}
    for name in wanted:
        print(f"compat: {name} ...", flush=True)
        try:
            rows[name] = check_server(name, shots)
        except Exception as e:  # a server that cannot run here is a row that says so
            rows[name] = {"error": str(e).splitlines()[0][:120]}
        print(f"compat: {name}: {rows[name]}", flush=True)
        kept[name] = {"row": rows[name], "screenshot": shots.get(name) is not None,
                      "measured": time.strftime("%Y-%m-%d", time.gmtime())}
    with open(store + ".tmp", "w") as f:
        json.dump(kept, f, indent=1, ensure_ascii=False)
    os.replace(store + ".tmp", store)
    names = [n for n in SERVERS if n in kept]
    rows = {n: {k: tuple(v) if isinstance(v, list) else v for k, v in kept[n]["row"].items()} for n in names}
    shots = {n: kept[n]["screenshot"] for n in names}
    table = render(rows, shots, {n: kept[n]["measured"] for n in names})
    with open(os.path.join(ROOT, "docs/compat.md"), "w") as f:
        f.write("# Herald on real notification servers\n\n" + table)
    readme = os.path.join(ROOT, "README.md")
    text = open(readme).read()
    start, end = "<!-- compat-table: written by `make compat` -->", "<!-- /compat-table -->"
    if start in text and end in text:
        before, rest = text.split(start, 1)
        after = rest.split(end, 1)[1]
        with open(readme, "w") as f:
            f.write(before + start + "\n" + table + end + after)
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
