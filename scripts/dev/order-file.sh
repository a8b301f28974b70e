#!/bin/sh
# Writes linker/herald.order: the functions and data a plain `herald remind` touches (functions
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
for k in 1 2 3 4; do
    case $k in
        1) set -- --spool "$work/spool" --in 2d Water the plants ;;
        2) set -- --spool "$work/spool" --at 23:59 Call home ;;
        3) set -- --in 10m --title Tea --urgency low Tea is ready ;;
        4) set -- --spool "$work/spool" --in 2d Pick up the parcel ;;
    esac
    spool_variable=HERALD_SPOOL=$work/spool  # the third run names the spool this way
    [ "$k" = 3 ] || spool_variable=LANG=C.UTF-8  # the others repeat LANG: nothing changes
    [ "$k" = 4 ] && spool_variable=HERALD_CONFIG=$work/config.yaml
    run "$spool_variable" valgrind -q --tool=callgrind --demangle=no --callgrind-out-file="$work/calls.$k" "$work/herald" remind "$@"
    run "$spool_variable" valgrind -q --tool=lackey --trace-mem=yes --log-file="$work/memory.$k" "$work/herald" remind "$@"
done

"$python" - "$work" "$k" "$output" <<'PY'
import bisect, re, sys

work, runs, output = sys.argv[1], int(sys.argv[2]), sys.argv[3]

# Data symbols (initialised, zeroed and read-only data) with their sizes, by address.
data = []
for line in open(f"{work}/symbols"):
    parts = line.split()
    if len(parts) == 4 and parts[2] in "dDbBrRvVgGsS":
        data.append((int(parts[0], 16), int(parts[1], 16), parts[3]))
data.sort()
starts = [d[0] for d in data]

# glibc picks string functions by CPU (IFUNC); under valgrind it picks the AVX2 ones, so each
# recorded variant brings its EVEX/AVX-512 siblings along for machines that run those.
isa = re.compile(r"^(__[a-z0-9_]+?)_(?:avx2|avx512|avx|evex512|evex|sse2|sse4_1|sse4_2|ssse3)(?:_|$)")
wide = re.compile(r"_(?:evex|avx512)")
siblings = {}
for line in open(f"{work}/symbols"):
    parts = line.split()
    if len(parts) == 4 and parts[2] in "tT" and (match := isa.match(parts[3])) and wide.search(parts[3]):
        siblings.setdefault(match.group(1), []).append(parts[3])

# What runs before main, which callgrind files under "(below main)".
functions = ["_start", "__libc_start_main", "__libc_start_call_main"]
objects, seen = [], set(functions)
name_line = re.compile(r"^c?fn=\(\d+\) (.+)$")
for k in range(1, runs + 1):
    for line in open(f"{work}/calls.{k}"):
        match = name_line.match(line)
        if not match:
            continue
        name = re.sub(r"'\d+$", "", match.group(1))  # callgrind marks recursion levels with 'N
        if name.startswith("0x") or name.startswith("(") or name in seen:
            continue
        seen.add(name)
        functions.append(name)
        if match := isa.match(name):
            for sibling in siblings.get(match.group(1), []):
                if sibling not in seen:
                    seen.add(sibling)
                    functions.append(sibling)
    for line in open(f"{work}/memory.{k}"):
        if line[:2] not in (" L", " S", " M"):
            continue
        address = int(line[3:].split(",")[0], 16)
        i = bisect.bisect_right(starts, address) - 1
        if i < 0:
            continue
        start, size, name = data[i]
        if start <= address < start + max(size, 1) and name not in seen:
            seen.add(name)
            objects.append(name)

with open(output, "w") as out:
    out.write("# The functions, then the data, that a plain `herald remind` touches.\n")
    out.write("# Generated by scripts/dev/order-file.sh (make order-file); read by lld, see Package.swift.\n")
    for name in functions + objects:
        out.write(name + "\n")
print(f"order-file: {len(functions)} functions and {len(objects)} data symbols -> {output}")
PY
