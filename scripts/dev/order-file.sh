#!/bin/sh
# Writes linker/herald.order: the functions and data a plain `herald remind` touches, then what a
# plain `herald run` adds (functions
# first, then data). The release link (lld, see Package.swift) puts them side by
# side, so starting the CLI faults in a few pages instead of ones spread over 14 MB.
#
#   scripts/dev/order-file.sh [HERALD_BINARY] [OUTPUT]     (defaults: .build/release/herald, linker/herald.order)
#
# Functions come from valgrind's callgrind, data from its lackey memory trace. Symbol names
# barely change between builds; a name the binary no longer has is skipped by the linker,
# so a stale list only costs speed. Rerun after large changes to the `remind` path
# (`make order-file` does, then relinks).
set -eu

binary=${1:-.build/release/herald}
output=${2:-linker/herald.order}
python=/usr/bin/python3

for tool in valgrind strip nm "$python"; do
    command -v "$tool" >/dev/null 2>&1 || { echo "order-file: '$tool' is missing (apt-get install valgrind binutils python3)" >&2; exit 1; }
done
[ -x "$binary" ] || { echo "order-file: no herald binary at '$binary' (run 'make release' first)" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/herald-order.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

# valgrind cannot read the DWARF of a static Swift binary; the symbol table is all it needs.
cp "$binary" "$work/herald"
strip --strip-debug "$work/herald"
nm -n -S --defined-only "$work/herald" > "$work/symbols"

# A fresh user: no config file, a spool that already exists (the usual case), named by
# --spool (as scripts and `make bench` do) or by $HERALD_SPOOL.
run() {
    env -i PATH=/usr/bin:/bin HOME="$work/home" LANG=C.UTF-8 "$@" >/dev/null
}
mkdir -p "$work/home"
run "$work/herald" remind --spool "$work/spool" --in 1h "creates the spool"
# As if heraldd were running: herald reads the pending count it last wrote.
printf '{\n  "pid": 1,\n  "version": "0.1.0",\n  "notifier": "libnotify",\n  "pending": 1\n}\n' > "$work/spool/status.json"

# Most users have a config file with a profile: the last run reads one, so what it adds
# (the YAML reader) is laid out after the plain path, not spread over the binary.
printf 'profile:\n  name: Ada Lovelace\n  address: 12 Elm St\n' > "$work/config.yaml"
for k in 1 2 3 4 5; do
    command=remind
    case $k in
        1) set -- --spool "$work/spool" --in 2d Water the plants ;;
        2) set -- --spool "$work/spool" --at 23:59 Call home ;;
        3) set -- --in 10m --title Tea --urgency low Tea is ready ;;
        4) set -- --spool "$work/spool" --in 2d Pick up the parcel ;;
        # Last, so that remind's path stays first: a command queued as at queues one.
        5) command=run; set -- --spool "$work/spool" --in 2d -- true ;;
    esac
    spool_variable=HERALD_SPOOL=$work/spool  # the third run names the spool this way
    [ "$k" = 3 ] || spool_variable=LANG=C.UTF-8  # the others repeat LANG: nothing changes
    [ "$k" = 4 ] && spool_variable=HERALD_CONFIG=$work/config.yaml
    run "$spool_variable" valgrind -q --tool=callgrind --demangle=no --callgrind-out-file="$work/calls.$k" "$work/herald" "$command" "$@"
    run "$spool_variable" valgrind -q --tool=lackey --trace-mem=yes --log-file="$work/memory.$k" "$work/herald" "$command" "$@"
done

"$python" "$(dirname "$0")/order-file.py" "$work" "$k" "$output" "a plain \`herald remind\`, then \`herald run\`"
