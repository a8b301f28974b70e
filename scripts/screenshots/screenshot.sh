#!/bin/sh
# `make screenshot`: Herald's popups on a virtual screen, saved as a PNG.
#   scripts/screenshots/screenshot.sh [OUTPUT.png]     (default docs/screenshot.png; BIN=.build/release)
# Starts Xvfb, a private D-Bus session bus and dunst on it, runs heraldd from BIN with a
# delivery heads-up, a habit (with Done/Snooze actions) and a critical reminder, and captures
# the screen once all three are up. Nothing outside a temporary directory is touched.
set -eu

out=${1:-docs/screenshot.png}
bin=${BIN:-.build/release}
for tool in "$bin/herald" "$bin/heraldd"; do
  [ -x "$tool" ] || { echo "screenshot: no executable $tool (run 'make release', or set BIN)" >&2; exit 1; }
done
scripts/dev/install-deps.sh screenshot

work=$(mktemp -d "${TMPDIR:-/tmp}/herald-screenshot.XXXXXX")
pids=""
cleanup() {
  for pid in $pids; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT INT TERM

# A free display number: the first without a lock file.
n=90
while [ -e "/tmp/.X$n-lock" ] || [ -e "/tmp/.X11-unix/X$n" ]; do n=$((n + 1)); done
export DISPLAY=":$n"
Xvfb "$DISPLAY" -screen 0 1280x800x24 -br -nolisten tcp >"$work/xvfb.log" 2>&1 &
pids="$pids $!"

dbus-daemon --session --nofork --address="unix:path=$work/bus" >"$work/dbus.log" 2>&1 &
pids="$pids $!"
export DBUS_SESSION_BUS_ADDRESS="unix:path=$work/bus"

wait_for() {  # wait_for SECONDS DESCRIPTION COMMAND...
  limit=$1; what=$2; shift 2
  i=0
  until "$@" >/dev/null 2>&1; do
    i=$((i + 1))
    if [ "$i" -gt $((limit * 10)) ]; then echo "screenshot: $what did not come up; logs in $work" >&2; trap - EXIT; exit 1; fi
    sleep 0.1
  done
}
wait_for 10 "Xvfb on $DISPLAY" test -S "/tmp/.X11-unix/X$n"
wait_for 10 "the session bus" test -S "$work/bus"

cat >"$work/dunstrc" <<'EOF_DUNST'
[global]
    width = 420
    height = 200
    origin = top-right
    offset = 24x24
    gap_size = 10
    padding = 12
    horizontal_padding = 14
    frame_width = 2
    frame_color = "#5e81ac"
    corner_radius = 8
    font = DejaVu Sans 11
    markup = full
    format = "<b>%s</b>\n%b"
    show_indicators = yes
    icon_position = left
    min_icon_size = 32
    max_icon_size = 48
    icon_path = /usr/share/icons/Adwaita/48x48/legacy/:/usr/share/icons/Adwaita/scalable/status/:/usr/share/icons/Adwaita/scalable/devices/:/usr/share/icons/Adwaita/scalable/actions/:/usr/share/icons/Adwaita/scalable/apps/
    sort = no
    idle_threshold = 0
[urgency_low]
    background = "#2e3440"
    foreground = "#d8dee9"
    timeout = 0
[urgency_normal]
    background = "#2e3440"
    foreground = "#eceff4"
    timeout = 0
[urgency_critical]
    background = "#bf616a"
    foreground = "#ffffff"
    frame_color = "#ffffff"
    timeout = 0
EOF_DUNST
dunst -config "$work/dunstrc" >"$work/dunst.log" 2>&1 &
pids="$pids $!"
wait_for 10 "dunst (the notification server)" "$bin/heraldd" --probe

cat >"$work/config.yaml" <<'EOF_CONFIG'
profile:
  name: Alice Smith
  address: 12 Elm Street
EOF_CONFIG
export HERALD_CONFIG="$work/config.yaml" HERALD_SPOOL="$work/spool" NO_COLOR=1
"$bin/heraldd" >"$work/heraldd.log" 2>&1 &
pids="$pids $!"
wait_for 10 "heraldd" sh -c '"$0" status >/dev/null' "$bin/herald"

"$bin/herald" deliver --in 12m --lead 15m --item apple --item grapes --item "milk x2" --item muffin --item strawberries --icon emblem-package
# A daily habit whose time is two seconds from now: it pops up once, with its Done/Snooze actions.
"$bin/herald" habit add "Drink water" --every "*-*-* $(date -d '+2 sec' +%H:%M:%S)" --icon emblem-default
"$bin/herald" remind --in 3s --urgency critical "Leave for the train: platform 4 at 18:12"

shown() { [ "$("$bin/herald" history --json | grep -c '"outcome" : "shown"\|"outcome": "shown"')" -ge 3 ]; }
wait_for 20 "the three popups" shown
sleep 1
mkdir -p "$(dirname "$out")"
import -display "$DISPLAY" -window root "$work/screen.png"
convert "$work/screen.png" -crop 520x460+760+0 +repage -trim +repage -bordercolor "#1d2128" -border 24 "$out"
echo "Saved $out"
