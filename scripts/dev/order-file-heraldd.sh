#!/bin/sh
# Writes linker/heraldd.order: the functions heraldd runs while it starts on a spool, takes in a
# batch and a single job, answers the CLI, fires a reminder and stops. The release link (lld,
# see Package.swift) puts them side by side: heraldd then maps about a megabyte of code it runs
# instead of half of its 23 MB of text, which a resident daemon pays for in memory
# (BENCHMARKS.md, "Memory per pending job").
#
#   scripts/dev/order-file-heraldd.sh [BIN_DIR] [OUTPUT]     (defaults: .build/release, linker/heraldd.order)
#
# Functions come from valgrind's callgrind (no data trace: lackey over a daemon's run takes
# minutes). The console notifier stands in for libnotify, whose glue is a few pages. A name
# the binary no longer has is skipped by the linker, so a stale list only costs memory.
set -eu

bin=${1:-.build/release}
output=${2:-linker/heraldd.order}
python=/usr/bin/python3

for tool in valgrind strip nm "$python"; do
    command -v "$tool" >/dev/null 2>&1 || { echo "order-file-heraldd: '$tool' is missing (apt-get install valgrind binutils python3)" >&2; exit 1; }
done
for b in herald heraldd; do
    [ -x "$bin/$b" ] || { echo "order-file-heraldd: no $b in '$bin' (run 'make release' first)" >&2; exit 1; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/heraldd-order.XXXXXX")
daemon=
trap '[ -n "$daemon" ] && kill "$daemon" 2>/dev/null; rm -rf "$work"' EXIT INT TERM

# valgrind cannot read the DWARF of a static Swift binary; the symbol table is all it needs.
cp "$bin/heraldd" "$work/heraldd"
strip --strip-debug "$work/heraldd"
nm -n -S --defined-only "$work/heraldd" > "$work/symbols"

export HOME="$work/home" HERALD_SPOOL="$work/spool" HERALD_CONFIG="$work/config.yaml" LANG=C.UTF-8
mkdir -p "$HOME"
# Most users have a profile; heraldd also reads quiet hours and limits from the same file.
printf 'profile:\n  name: Ada Lovelace\n  address: 12 Elm St\n' > "$HERALD_CONFIG"
herald() { "$bin/herald" "$@" >/dev/null; }

# A spool with jobs in it, and a batch waiting in new/.
for k in 1 2 3 4 5; do herald remind --in "${k}d" "Water the plants $k"; done
herald deliver --in 3h --item milk --item "bread x2"
"$python" -c '
import datetime, sys
start = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(hours=2)
with open(sys.argv[1], "w") as f:
    for k in range(2000):
        at = (start + datetime.timedelta(seconds=k)).strftime("%Y-%m-%dT%H:%M:%SZ")
        f.write("{\"version\":1,\"kind\":\"reminder\",\"id\":\"order-%d\",\"at\":\"%s\",\"text\":\"job %d\"}\n" % (k, at, k))
' "$work/batch.jsonl"
herald import "$work/batch.jsonl"

# heraldd under callgrind: READY comes on a datagram socket, as from systemd.
"$python" - "$work" <<'PY' &
import os, socket, subprocess, sys, time
work = sys.argv[1]
sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); sock.bind(work + "/notify"); sock.settimeout(300)
env = dict(os.environ, NOTIFY_SOCKET=work + "/notify")
p = subprocess.Popen(["valgrind", "-q", "--tool=callgrind", "--demangle=no", "--callgrind-out-file=" + work + "/calls.1",
                      work + "/heraldd", "--notifier", "console"], env=env, stdout=subprocess.DEVNULL, stderr=open(work + "/heraldd.log", "w"))
open(work + "/pid", "w").write(str(p.pid))
while b"READY=1" not in sock.recv(4096): pass
open(work + "/ready", "w").close()
sys.exit(p.wait())
PY
daemon=$!
until [ -e "$work/ready" ]; do
    kill -0 "$daemon" 2>/dev/null || { echo "order-file-heraldd: heraldd stopped before READY:" >&2; cat "$work/heraldd.log" >&2; exit 1; }
    sleep 0.2
done
waitfor() {  # waitfor WHAT: until heraldd's log says it (callgrind is slow; give it minutes)
    n=0
    until grep -q "$1" "$work/heraldd.log"; do
        n=$((n + 1)); [ $n -lt 1500 ] || { echo "order-file-heraldd: heraldd never logged '$1':" >&2; tail -20 "$work/heraldd.log" >&2; exit 1; }
        sleep 0.2
    done
}
waitfor "Batch accepted"
# The CLI's questions and orders go through heraldd.sock; a reminder fires on the console.
herald list
herald status
herald snooze "$(ls "$work/spool/jobs" | grep -v order- | head -1 | cut -d@ -f1)" 1h
herald cancel order-7
herald remind --in 2s "Tea is ready"  # after the snooze, which must not pick it
waitfor "Job fired"
kill -HUP "$(cat "$work/pid")"  # a config reload
waitfor "Configuration reloaded"
kill -TERM "$(cat "$work/pid")"
wait "$daemon" || true
daemon=

"$python" "$(dirname "$0")/order-file.py" "$work" 1 "$output" "heraldd's start, intake, answers, a popup and stop"
