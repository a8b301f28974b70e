#!/usr/bin/env bash
# Real CalDAV peers for Herald's end-to-end calendar test: a Radicale server on loopback and two
# "machines" (laptop, desktop), each a vdir synced with vdirsyncer and written by khal, so the test
# checks Herald against the files these tools really write, not against our idea of them.
# Needs vdirsyncer, khal, curl and Radicale (`radicale` on PATH, else Debian's python3-radicale);
# scripts/dev/install-deps.sh test installs them.
#
#   PEERS_DIR=/tmp/x scripts/oracles/caldav-peers.sh start PORT     server + configs, calendar created
#   PEERS_DIR=/tmp/x scripts/oracles/caldav-peers.sh sync laptop|desktop
#   PEERS_DIR=/tmp/x scripts/oracles/caldav-peers.sh new laptop|desktop START END SUMMARY ALARM [LOCATION]
#                    (START/END like "2026-11-23 14:30", ALARM like 1m = 1 minute before start;
#                     prints the path of the .ics khal wrote)
#   PEERS_DIR=/tmp/x scripts/oracles/caldav-peers.sh stop
# Files under $PEERS_DIR: radicale.{conf,log,pid}, radicale/ (storage), port, and for each side
# SIDE/cal/ (the vdir), SIDE/khal.conf, SIDE/khal.db, SIDE/vdirsyncer.conf, SIDE/status/.
# PEERS_TZ sets khal's timezone (default UTC). PEERS_CONFLICT="a wins" (the vdir) or "b wins" (the server)
# settles an item changed on both sides; unset, such a sync fails (exit 1) and changes nothing.
set -euo pipefail

[ $# -ge 1 ] || { sed -n '2,17p' "$0" >&2; exit 64; }
: "${PEERS_DIR:?set PEERS_DIR to the root directory of the peers}"
export LC_ALL=C.UTF-8 LANG=C.UTF-8
D=$(cd "$PEERS_DIR" && pwd)
USER_=herald
die() { echo "caldav-peers: $*" >&2; exit 1; }
side() { case "${1:-}" in laptop|desktop) ;; *) die "side must be laptop or desktop, not '${1:-}'" ;; esac; }

write_side() { # SIDE PORT
  local s=$1 port=$2 tz=${PEERS_TZ:-UTC}
  mkdir -p "$D/$s/cal" "$D/$s/status"
  cat >"$D/$s/vdirsyncer.conf" <<EOF
[general]
status_path = "$D/$s/status/"

[pair cal]
a = "local"
b = "server"
collections = null
${PEERS_CONFLICT:+conflict_resolution = \"$PEERS_CONFLICT\"}

[storage local]
type = "filesystem"
path = "$D/$s/cal/"
fileext = ".ics"

[storage server]
type = "caldav"
url = "http://127.0.0.1:$port/$USER_/calendar/"
username = "$USER_"
password = "$USER_"
EOF
  cat >"$D/$s/khal.conf" <<EOF
[calendars]
[[cal]]
path = $D/$s/cal
type = calendar

[default]
default_calendar = cal

[locale]
timeformat = %H:%M
dateformat = %Y-%m-%d
longdateformat = %Y-%m-%d
datetimeformat = %Y-%m-%d %H:%M
longdatetimeformat = %Y-%m-%d %H:%M
default_timezone = $tz
local_timezone = $tz

[sqlite]
path = $D/$s/khal.db
EOF
}

case "${1:-}" in
start)
  port=${2:?usage: start PORT}
  [ -s "$D/radicale.pid" ] && kill -0 "$(cat "$D/radicale.pid")" 2>/dev/null && die "radicale already running"
  mkdir -p "$D/radicale"
  cat >"$D/radicale.conf" <<EOF
[server]
hosts = 127.0.0.1:$port
[auth]
type = none
[rights]
type = owner_only
[storage]
filesystem_folder = $D/radicale/collections
[logging]
level = info
EOF
  url="http://127.0.0.1:$port"
  curl -s -o /dev/null --max-time 1 "$url/" && die "something already answers on $url"
  echo "$port" >"$D/port"
  # Own session, no inherited stdio: whoever runs us and reads our output to EOF must not wait on radicale.
  if command -v radicale >/dev/null; then radicale=(radicale); else radicale=(/usr/bin/python3 -m radicale); fi
  # Nor any other descriptor: a caller that waits for a pipe or socket to close (Foundation's
  # Process does) would otherwise wait for radicale too.
  (
    for fd in /proc/$BASHPID/fd/*; do fd=${fd##*/}; [ "$fd" -gt 2 ] && eval "exec $fd>&-"; done 2>/dev/null
    exec setsid "${radicale[@]}" --config "$D/radicale.conf" </dev/null >>"$D/radicale.log" 2>&1
  ) &
  echo $! >"$D/radicale.pid"
  deadline=$((SECONDS + 30))
  while :; do
    code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 1 "$url/" || true)
    [ "$code" != 000 ] || [ $SECONDS -ge $deadline ] && break
    kill -0 "$(cat "$D/radicale.pid")" 2>/dev/null || { cat "$D/radicale.log" >&2; die "radicale exited"; }
    sleep 0.1
  done
  [ "$code" != 000 ] || { cat "$D/radicale.log" >&2; die "radicale did not answer on $url within 30 s"; }
  # 201 created, 405/409 already there (a second start on the same storage).
  code=$(curl -s -o /dev/null -w '%{http_code}' -u "$USER_:$USER_" -X MKCALENDAR "$url/$USER_/calendar/")
  case "$code" in 201|405|409) ;; *) die "MKCALENDAR $url/$USER_/calendar/ answered $code" ;; esac
  write_side laptop "$port"
  write_side desktop "$port"
  ;;
sync)
  side "${2:-}"
  conf="$D/$2/vdirsyncer.conf"
  # collections = null: discover only records the pair, it never prompts to create anything.
  [ -e "$D/$2/status/.discovered" ] || { vdirsyncer -c "$conf" discover </dev/null && touch "$D/$2/status/.discovered"; }
  vdirsyncer -c "$conf" sync </dev/null
  ;;
new)
  side "${2:-}"
  [ $# -ge 6 ] || die "usage: new SIDE START END SUMMARY ALARM [LOCATION]"
  s=$2 start=$3 end=$4 summary=$5 alarm=$6 location=${7:-}
  before=$(ls "$D/$s/cal")
  args=(-c "$D/$s/khal.conf" new -a cal -m "$alarm")
  [ -n "$location" ] && args+=(-l "$location")
  khal "${args[@]}" "$start" "$end" "$summary" >/dev/null </dev/null
  new=$(comm -13 <(echo "$before") <(ls "$D/$s/cal") | grep '\.ics$' || true)
  [ "$(echo "$new" | grep -c .)" = 1 ] || die "expected one new .ics in $D/$s/cal, found: $new"
  echo "$D/$s/cal/$new"
  ;;
stop)
  [ -s "$D/radicale.pid" ] || exit 0
  pid=$(cat "$D/radicale.pid")
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$pid" 2>/dev/null && { kill -9 "$pid" 2>/dev/null || true; }
  rm -f "$D/radicale.pid"
  ;;
*) die "unknown command '$1' (start, sync, new, stop)" ;;
esac
