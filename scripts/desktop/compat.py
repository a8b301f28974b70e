#!/usr/bin/python3
"""`make compat`: Herald's popups on every real notification server we can run here.

For each server (desktop.py starts it under Xvfb, or headless sway for mako), heraldd and
herald from BIN (default .build/debug) run against a private spool, and each row of the
table is checked for real: text shown verbatim, buttons drawn, a real click on a button
has its effect, expiry honoured, replace in place, sound. The table goes to
docs/compat.md and between the compat-table markers in README.md; one screenshot per
server goes to docs/compat/<server>.png.

    scripts/desktop/compat.py [SERVER...]      (BIN=.build/release to test a release build)
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
SERVERS = ["xfce4-notifyd", "dunst", "notification-daemon", "mate-notification-daemon", "mako"]
TITLE = "Dentist & <Co>"
TEXT = "Zoë & Bob <3 café"
CONFIG = """defaults:
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


class Bench:
    """heraldd, a PulseAudio null sink and a spool for one server's session."""

    def __init__(self, session):
        self.session = session
        self.dir = tempfile.mkdtemp(prefix="herald-compat.")
        with open(os.path.join(self.dir, "config.yaml"), "w") as f:
            f.write(CONFIG)
        self.pulse_socket = os.path.join(self.dir, "pulse-native")
        with open(os.path.join(self.dir, "default.pa"), "w") as f:
            f.write(f"load-module module-native-protocol-unix socket={self.pulse_socket} auth-anonymous=1\n"
                    "load-module module-null-sink sink_name=herald_null\nset-default-sink herald_null\n")
        os.makedirs(os.path.join(self.dir, "pulse-run"))
        self.pulse = subprocess.Popen(
            ["pulseaudio", "-n", "-F", os.path.join(self.dir, "default.pa"), "--daemonize=no", "--exit-idle-time=-1",
             "--use-pid-file=no", "--disallow-exit"],
            env={"HOME": self.dir, "XDG_RUNTIME_DIR": os.path.join(self.dir, "pulse-run"), "PATH": "/usr/bin:/bin"},
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait("PulseAudio", lambda: self.pactl("info").returncode == 0, 15)
        self.env = {**session.env, "PATH": "/usr/bin:/bin", "HOME": self.dir, "LANG": "C.UTF-8", "TZ": "UTC",
                    "HERALD_SPOOL": os.path.join(self.dir, "spool"), "HERALD_CONFIG": os.path.join(self.dir, "config.yaml"),
                    "PULSE_SERVER": "unix:" + self.pulse_socket, "NO_COLOR": "1"}
        self.log = open(os.path.join(self.dir, "heraldd.log"), "w")
        self.daemon = subprocess.Popen([os.path.join(BIN, "heraldd")], env=self.env, stdout=self.log, stderr=self.log)
        wait("heraldd", lambda: self.herald("status").returncode == 0, 15)

    def pactl(self, *args):
        return subprocess.run(["pactl", *args], env={"PULSE_SERVER": "unix:" + self.pulse_socket, "PATH": "/usr/bin:/bin"},
                              capture_output=True, text=True, timeout=20)

    def herald_playing(self):
        return 'application.name = "Herald"' in self.pactl("list", "sink-inputs").stdout

    def herald(self, *args):
        return subprocess.run([os.path.join(BIN, "herald"), *args], env=self.env, capture_output=True, text=True, timeout=30)

    def outcomes(self, job_id):
        records = json.loads(self.herald("history", "--json").stdout or "[]")
        return [r["outcome"] for r in reversed(records) if r["id"] == job_id]

    def stop(self):
        for p in (self.daemon, self.pulse):
            p.terminate()
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
        self.log.close()
        subprocess.run(["rm", "-rf", self.dir])


def check_server(name, shots):
    """One server's row: {column: (ok, note)}."""
    row = {}
    with desktop.Session(name) as s:
        info = s.server_info()
        package = {"mako": "mako-notifier"}.get(name, name)
        version = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", package], capture_output=True, text=True).stdout
        row["server"] = f"{name} {version}".strip()
        caps = set(info.get("capabilities", []))
        bench = Bench(s)
        try:
            # Text and buttons, and a screenshot, on a reminder with every button.
            bench.herald("remind", "--in", "1s", "--id", "dentist", "--title", TITLE, TEXT)
            s.wait_popups(1, timeout=15)
            texts = " ".join(html.unescape(t) for t in s.texts())
            verbatim = TITLE in texts and TEXT in texts
            row["text"] = (verbatim, "" if verbatim else f"shown: {texts[:80]}")
            labels = [b[0] for b in s.buttons()]
            wanted = ["Done", "Snooze", "5 min", "1 h"]
            drawn = desktop.SERVERS[name]["kind"] == "gtk"
            have = all(w in labels for w in wanted)
            row["buttons"] = (have, "drawn" if drawn else ("in dunst's context menu" if name == "dunst" else "through makoctl (none drawn)"))
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
                s.wait_popups(0, timeout=10)
                wait("snoozed", lambda: bench.outcomes("dentist")[-1:] == ["snoozed"], 10)
                s.wait_popups(1, timeout=15)
                s.click("Done", timeout=10)
                s.wait_popups(0, timeout=10)
                wait("done", lambda: bench.outcomes("dentist") == ["shown", "snoozed", "shown", "done"], 10)
            except (desktop.DesktopError, TimeoutError) as e:
                clicked = False
                row["click"] = (False, str(e)[:80])
            if clicked:
                row["click"] = (True, "mouse click" if drawn else "menu" if name == "dunst" else "makoctl invoke")
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
                row["expiry"] = (False, "a 2 s popup with buttons stayed: the server keeps those until clicked"
                                 if bench.outcomes('brief') == ['shown'] else f"2 s popup: {bench.outcomes('brief')}")
            bench.herald("cancel", "brief")
            # Replace in place and sound: a timer that repeats every 2 s.
            playing = []
            started = bench.herald("timer", "1s", "--repeat", "2s", "Eggs")
            eggs = started.stdout.split()[1].rstrip(":")  # "Timer <id>: 1s, until ..."
            wait("the first ring", lambda: bench.outcomes(eggs)[:1] == ["shown"], 15)
            try:
                wait("heraldd playing", lambda: bench.herald_playing() or None, 5)
                playing.append(True)
            except TimeoutError:
                playing.append(False)
            wait("the repeat", lambda: bench.outcomes(eggs)[:3] == ["shown", "replaced", "shown"], 15)
            count = s.popup_count()
            row["replace"] = (count == 1, f"{count} popup(s) after a repeat")
            if "sound" in caps:
                row["sound"] = (not playing[0], "the server plays it (capability 'sound')"
                                if not playing[0] else "heraldd played it too: the server lists 'sound'")
            else:
                row["sound"] = (playing[0], "heraldd plays it (libcanberra)" if playing[0] else "nothing played")
            bench.herald("ack", eggs)
        finally:
            bench.stop()
    return row


COLUMNS = [("text", "text as written (`&`, `<`, accents)"), ("buttons", "buttons"), ("click", "a click has its effect"),
           ("expiry", "expiry honoured"), ("replace", "replaced in place"), ("sound", "sound")]


# What a reader of the table should know that a ✓ or ✗ does not say.
NOTES = {
    "xfce4-notifyd": "xfce4-notifyd 0.7 draws the body-click action (`default`) as a button, so Herald leaves it out "
                     "there: click Done instead. It also ignores expire_timeout for critical popups (they stay, as Herald wants).",
    "notification-daemon": "notification-daemon shows one popup at a time (the others wait in its queue), keeps popups "
                           "with buttons until they are clicked, and does not withdraw a popup on CloseNotification "
                           "(a popup acknowledged with `herald ack` stays until clicked).",
    "dunst": "dunst draws no buttons: its context menu (`dunstctl context`, or a middle click by default) lists them.",
    "mako": "mako draws no buttons: `makoctl menu` or `makoctl invoke` runs them.",
}


def render(rows, shots):
    lines = ["| server | " + " | ".join(title for _, title in COLUMNS) + " |", "|---" * (len(COLUMNS) + 1) + "|"]
    for name, row in rows.items():
        if "error" in row:
            lines.append(f"| {name} | " + " | ".join(["—"] * (len(COLUMNS) - 1)) + f" | not run: {row['error']} |")
            continue
        cells = []
        for key, _ in COLUMNS:
            ok, note = row.get(key, (False, "not checked"))
            cells.append(("✓" if ok else "✗") + (f" {note}" if note else ""))
        lines.append(f"| {row['server']} | " + " | ".join(cells) + " |")
    notes = "".join(f"- {NOTES[n]}\n" for n in rows if n in NOTES)
    shots_line = " ".join(f"[{n}](docs/compat/{n}.png)" for n, p in shots.items() if p)
    stamp = time.strftime("%Y-%m-%d", time.gmtime())
    return "\n".join(lines) + "\n\n" + notes + f"\nMeasured by `make compat` on {stamp} (Debian 12, Xvfb; mako under headless sway). Screenshots: {shots_line}.\n"


def main():
    wanted = sys.argv[1:] or SERVERS
    rows, shots = {}, {}
    for name in wanted:
        print(f"compat: {name} ...", flush=True)
        try:
            rows[name] = check_server(name, shots)
        except Exception as e:  # a server that cannot run here is a row that says so
            rows[name] = {"error": str(e).splitlines()[0][:120]}
        print(f"compat: {name}: {rows[name]}", flush=True)
    table = render(rows, shots)
    with open(os.path.join(ROOT, "docs/compat.md"), "w") as f:
        f.write("# Herald on real notification servers\n\n" + table)
    readme = os.path.join(ROOT, "README.md")
    text = open(readme).read()
    start, end = "<!-- compat-table: written by `make compat` -->", "<!-- /compat-table -->"
    if start in text and end in text and set(wanted) == set(SERVERS):
        before, rest = text.split(start, 1)
        after = rest.split(end, 1)[1]
        with open(readme, "w") as f:
            f.write(before + start + "\n" + table + end + after)
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
