#!/bin/sh
# Checks the Herald Debian package as a user and an administrator would meet it, and installs it
# into a fresh Debian 12 root to test it there:
#
#   scripts/packaging/test-deb.sh [path/to/herald_<version>_amd64.deb]     (as root; `make test-deb`)
#
# Default package: the newest herald_*_amd64.deb in the repository root. The first run makes
# a minimal Debian 12 root with debootstrap (a minute or two) and keeps it, untouched, in
# $HERALD_DEB_ROOT (default: $XDG_CACHE_HOME/herald/debootstrap-bookworm, i.e.
# ~/.cache/herald/debootstrap-bookworm); every run copies it to a temporary directory, so each
# starts from the same fresh system. The checks:
#   the package: Installed-Size at most 30 MB; lintian --pedantic -I --fail-on
#     error,warning,info; every dynamic ELF PIE with full RELRO and BIND_NOW
#   in the root (chroot, /proc mounted, /dev bound), a fresh install:
#     apt-get install ./herald_*.deb, its dependencies from the mirror
#     herald --version and heraldd --version give the package's version
#     herald doctor --json (as a user, before and while heraldd runs); its hints name the
#       package's commands and paths, never make
#     heraldd --notifier console: a reminder due in a second appears on heraldd's stdout
#     heraldd with libnotify on a private session bus in the root, python-dbusmock's
#       notification server on it: a reminder due in a second reaches the server
#     herald habit import finds herald-loop-db
#     apt-get purge herald: none of the files dpkg -L listed remain (directories that
#       other packages own excepted)
#   an upgrade: the previous release (scripts/packaging/previous-deb.sh, built once from
#     git and cached) installed and used, then this package installed over it: the spool's
#     jobs, habits and history are kept and the new heraldd takes them up; then purged, the
#     user's spool left alone
# Prints PASS/FAIL for each check; exit status 0 when all passed, 1 when one failed, 2 when
# not run as root.
#
# Environment: HERALD_DEB_ROOT (the cached root), HERALD_DEB_MIRROR (default: the Debian
# mirror in /etc/apt/sources.list{,.d}, else http://deb.debian.org/debian), HERALD_DEB_KEEP=1
# (keep the temporary root, for a look after a failure), HERALD_PREVIOUS_DEB (the previous
# release's package, instead of building it), TMPDIR.
set -eu

repo=$(cd "$(dirname "$0")/../.." && pwd)
suite=bookworm

if [ "$(id -u)" -ne 0 ]; then
  echo "test-deb: must run as root (debootstrap, chroot and mount need it); try: sudo $0 $*" >&2
  exit 2
fi
for tool in debootstrap chroot mount umount dpkg-deb python3 lintian readelf; do
  command -v "$tool" >/dev/null 2>&1 || { echo "test-deb: $tool is missing (scripts/dev/install-deps.sh deb)" >&2; exit 1; }
done

deb=${1:-}
if [ -z "$deb" ]; then
  deb=$(ls -t "$repo"/herald_*_amd64.deb 2>/dev/null | head -n 1 || true)
  [ -n "$deb" ] || { echo "test-deb: no herald_*_amd64.deb in $repo: run 'make deb' or name the package" >&2; exit 1; }
fi
[ -f "$deb" ] || { echo "test-deb: no such file: $deb" >&2; exit 1; }
deb=$(cd "$(dirname "$deb")" && pwd)/$(basename "$deb")
deb_version=$(dpkg-deb -f "$deb" Version)
version=${deb_version%-*}   # herald --version says the upstream version

# The Debian mirror this machine uses (not its security mirror).
mirror() {
  if [ -n "${HERALD_DEB_MIRROR:-}" ]; then echo "$HERALD_DEB_MIRROR"; return; fi
  found=$( { cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null || true; } |
    awk '$1 == "deb" && $0 !~ /security/ { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; exit } }')
  if [ -z "$found" ]; then
    found=$( { cat /etc/apt/sources.list.d/*.sources 2>/dev/null || true; } |
      awk 'tolower($1) == "uris:" && $2 !~ /security/ { print $2; exit }')
  fi
  echo "${found:-http://deb.debian.org/debian}"
}

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
passes=0
failures=0
pass() { passes=$((passes + 1)); echo "PASS: $*"; }
fail() { failures=$((failures + 1)); echo "FAIL: $*"; }
timings=""
timed() { timings="$timings  $1 $(since "$2") s;"; }
started=$(now)

# --- the cached debootstrap root -------------------------------------------------------------
cache=${HERALD_DEB_ROOT:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/herald/debootstrap-$suite}
if [ ! -d "$cache" ]; then
  mkdir -p "$(dirname "$cache")"
  # One debootstrap at a time; the root appears under its name only once complete.
  exec 9>"$cache.lock"
  command -v flock >/dev/null 2>&1 && flock 9
  if [ ! -d "$cache" ]; then
    t=$(now)
    echo "test-deb: making a Debian 12 root in $cache (debootstrap --variant=minbase $suite, $(mirror)); once"
    rm -rf --one-file-system "$cache.partial"
    if ! debootstrap --variant=minbase "$suite" "$cache.partial" "$(mirror)" > "$cache.log" 2>&1; then
      tail -n 30 "$cache.log" >&2
      echo "test-deb: debootstrap failed (the whole log: $cache.log)" >&2
      exit 1
    fi
    mv "$cache.partial" "$cache"
    timed debootstrap "$t"
  fi
  exec 9>&-
fi

# What the commands printed: removed after a run that passed, kept after one that failed.
log=$(mktemp -d "${TMPDIR:-/var/tmp}/herald-test-deb-log.XXXXXX")

# --- the package itself: size, lintian, hardening --------------------------------------------------
# At most 30 MB installed (Installed-Size is in KiB): issue 29's bound; BENCHMARKS.md, "Installed size".
size_limit_kib=29296
size=$(dpkg-deb -f "$deb" Installed-Size)
if [ "$size" -le "$size_limit_kib" ]; then
  pass "Installed-Size $size KiB ($(awk -v k="$size" 'BEGIN { printf "%.1f", k * 1024 / 1e6 }') MB; at most 30 MB)"
else
  fail "Installed-Size $size KiB, over the 30 MB ($size_limit_kib KiB) bound"
fi
# lintian refuses to be run as root without this note on stderr; its verdict is the exit status.
if lintian --pedantic -I --fail-on error,warning,info "$deb" > "$log/lintian.txt" 2>&1; then
  pass "lintian --pedantic -I --fail-on error,warning,info: clean ($(grep -c '^[EWIP]:' "$log/lintian.txt" || true) tags, overrides in packaging/debian/lintian-overrides)"
else
  fail "lintian --pedantic -I --fail-on error,warning,info:"
  grep '^[EWIPN]:' "$log/lintian.txt" | head -n 30 | sed 's/^/    /'
fi
# Every ELF: the static herald as such; the others PIE, with a GNU_RELRO segment and BIND_NOW.
unpacked=$(mktemp -d "${TMPDIR:-/var/tmp}/herald-test-deb-unpacked.XXXXXX")
dpkg-deb -x "$deb" "$unpacked"
elf_problems=""
elf_count=0
for f in $(find "$unpacked" -type f -perm -u+x | LC_ALL=C sort); do
  readelf -h "$f" > /dev/null 2>&1 || continue
  elf_count=$((elf_count + 1))
  name=${f#"$unpacked"}
  if ! readelf -d "$f" 2>/dev/null | grep -q '(NEEDED)'; then
    [ "$name" = /usr/bin/herald ] || elf_problems="$elf_problems $name(static, but only herald is)"
    continue
  fi
  readelf -h "$f" | grep -q 'DYN (Position-Independent Executable' || elf_problems="$elf_problems $name(not PIE)"
  readelf -l "$f" | grep -q GNU_RELRO || elf_problems="$elf_problems $name(no RELRO)"
  readelf -d "$f" | grep -q 'BIND_NOW' || elf_problems="$elf_problems $name(no BIND_NOW)"
done
rm -rf "$unpacked"
if [ -z "$elf_problems" ] && [ "$elf_count" -ge 3 ]; then
  pass "$elf_count ELF files: herald static, the others PIE with full RELRO (GNU_RELRO, BIND_NOW)"
else
  fail "ELF hardening ($elf_count files):${elf_problems:- fewer than 3 ELF files}"
fi

# --- a fresh copy of the root, with cleanup that always unmounts ----------------------------------
tmp=$(mktemp -d "${TMPDIR:-/var/tmp}/herald-test-deb.XXXXXX")
root=$tmp/root
# Processes started in the root (heraldd, a bus, a notification server), stopped at the end.
pids=""
cleanup() {
  status=$?
  trap - EXIT INT TERM
  for pid in $pids; do kill "$pid" 2>/dev/null || true; done
  [ -n "$pids" ] && sleep 1
  for pid in $pids; do kill -KILL "$pid" 2>/dev/null || true; done
  for m in "$root/dev/pts" "$root/dev" "$root/proc"; do
    if grep -q " $m " /proc/mounts 2>/dev/null; then umount "$m" 2>/dev/null || umount -l "$m" || true; fi
  done
  if grep -q " $root/" /proc/mounts 2>/dev/null; then
    echo "test-deb: something is still mounted under $root; left it in place" >&2
  elif [ "${HERALD_DEB_KEEP:-}" = 1 ]; then
    echo "test-deb: kept $tmp (HERALD_DEB_KEEP=1)"
  else
    rm -rf --one-file-system "$tmp"
  fi
  if [ "$status" -eq 0 ]; then rm -rf "$log"; else echo "test-deb: the commands' output is in $log" >&2; fi
  exit "$status"
}
trap cleanup EXIT
trap 'echo "test-deb: interrupted" >&2; exit 130' INT
trap 'echo "test-deb: terminated" >&2; exit 143' TERM

t=$(now)
cp -a "$cache" "$root"
timed copy "$t"
mount -t proc proc "$root/proc"
mount --bind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"   # apt logs through a pseudo-terminal
cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
# Nothing installed may start a service in here.
printf '#!/bin/sh\nexit 101\n' > "$root/usr/sbin/policy-rc.d"
chmod 0755 "$root/usr/sbin/policy-rc.d"
cp "$deb" "$root/tmp/"
chmod 0644 "$root/tmp/$(basename "$deb")"

in_root() {
  chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
    DEBIAN_FRONTEND=noninteractive "$@"
}
uid=4321
user_home=/home/tester
spool=$user_home/spool
bus=unix:path=/tmp/herald-bus/socket
# A user of the chroot, in a zone with daylight saving; with BUS=1, on the private session bus.
as_user() {
  chroot "$root" /usr/bin/setpriv --reuid=$uid --regid=$uid --clear-groups \
    /usr/bin/env -i PATH=/usr/bin:/bin HOME=$user_home USER=tester LOGNAME=tester LANG=C.UTF-8 \
    TZ=Europe/Berlin ${BUS:+DBUS_SESSION_BUS_ADDRESS=$bus} "$@"
}
finish() {
  timed total "$started"
  echo "test-deb: timings:$timings"
  if [ "$failures" -eq 0 ]; then
    echo "test-deb: all $passes checks passed ($(basename "$deb"), Debian 12 $suite)"
    exit 0
  fi
  echo "test-deb: $failures of $((passes + failures)) checks failed ($(basename "$deb"))"
  exit 1
}
# Waits up to $1 seconds for the command after it to succeed; 0 when it did.
wait_for() {
  limit=$(( $(date +%s) + $1 ))
  shift
  while [ "$(date +%s)" -le "$limit" ]; do
    if "$@"; then return 0; fi
    sleep 0.1
  done
  return 1
}
# Starts a command in the root as the user in the background; its pid is added to $pids and
# left in $started_pid. $1 names the log files ($log/$1.out, .err). A simple command, not the
# function above, so that the shell execs chroot, which execs setpriv, env and the program:
# the pid is the program's own, and a signal to it reaches the program.
start_as_user() {
  name=$1
  shift
  chroot "$root" /usr/bin/setpriv --reuid=$uid --regid=$uid --clear-groups \
    /usr/bin/env -i PATH=/usr/bin:/bin HOME=$user_home USER=tester LOGNAME=tester LANG=C.UTF-8 \
    TZ=Europe/Berlin ${BUS:+DBUS_SESSION_BUS_ADDRESS=$bus} "$@" > "$log/$name.out" 2> "$log/$name.err" &
  started_pid=$!
  pids="$pids $started_pid"
}
# Stops a process started so, with SIGTERM; its exit status in $stopped_status.
stop() {
  kill -TERM "$1" 2>/dev/null || true
  set +e
  wait "$1"
  stopped_status=$?
  set -e
  pids=$(echo "$pids" | tr ' ' '\n' | grep -vx "$1" | tr '\n' ' ')
}

# --- the root's packages: the mirror, and a bus and a notification server to test with ----------
t=$(now)
if in_root apt-get update -q > "$log/apt-update.txt" 2>&1; then
  pass "apt-get update ($(grep -h '^deb ' "$root/etc/apt/sources.list" 2>/dev/null | head -n 1))"
else
  tail -n 20 "$log/apt-update.txt"
  fail "apt-get update"
  finish
fi
timed apt-update "$t"
t=$(now)
# Not Herald's dependencies: what the popup round trip needs (a session bus, python-dbusmock's
# notification server), installed first so that herald's own dependencies are counted apart.
if in_root apt-get install -y -q --no-install-recommends dbus-daemon python3-dbusmock > "$log/apt-test-tools.txt" 2>&1; then
  pass "apt-get install dbus-daemon python3-dbusmock (the test's bus and notification server)"
else
  tail -n 20 "$log/apt-test-tools.txt"
  fail "apt-get install dbus-daemon python3-dbusmock"
  finish
fi
timed test-tools "$t"
cat > "$root/tmp/session.conf" <<'EOF'
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path=/tmp/herald-bus/socket</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
EOF
chmod 0644 "$root/tmp/session.conf"
in_root useradd --create-home --home-dir "$user_home" --uid "$uid" --user-group --shell /bin/sh tester ||
  { fail "useradd tester"; finish; }
mkdir -p "$root/tmp/herald-bus"
chown "$uid:$uid" "$root/tmp/herald-bus"
chmod 0700 "$root/tmp/herald-bus"

# Checks what `herald doctor --json` printed: check-doctor.py PHASE EXIT-STATUS VERSION FILE.
cat > "$tmp/check-doctor.py" <<'EOF'
import json, sys
phase, code, version, path = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
problems = []
try:
    doc = json.load(open(path))
except Exception as e:
    print(f"not JSON: {e}")
    sys.exit(1)
names = ["session bus", "notification server", "spool", "config", "daemon", "systemd unit", "time zone"]
checks = doc.get("checks") if isinstance(doc, dict) else None
if not isinstance(doc, dict) or set(doc) != {"ok", "checks"} or not isinstance(doc["ok"], bool) or not isinstance(checks, list):
    print("not {ok: bool, checks: [...]}")
    sys.exit(1)
by = {}
for c in checks:
    if not isinstance(c, dict) or set(c) != {"name", "ok", "detail", "fix"} or not isinstance(c["ok"], bool) \
            or not isinstance(c["detail"], str) or not (c["fix"] is None if c["ok"] else isinstance(c["fix"], str)):
        problems.append(f"malformed check {c!r}")
        continue
    by[c["name"]] = c
    # An installed package's hints name its commands (systemctl, apt) and paths, never make.
    if c["fix"] is not None and "make " in c["fix"]:
        problems.append(f"{c['name']}: the fix names make: {c['fix']!r}")
if [c.get("name") for c in checks if isinstance(c, dict)] != names:
    problems.append(f"checks {[c.get('name') for c in checks if isinstance(c, dict)]}, expected {names}")
if doc["ok"] != all(c.get("ok") is True for c in checks if isinstance(c, dict)):
    problems.append("'ok' is not the conjunction of the checks")
if code != (0 if doc["ok"] else 1):
    problems.append(f"exit status {code} with ok={doc['ok']}")
def need(name, cond, what):
    c = by.get(name)
    if c is None or not cond(c):
        problems.append(f"{name}: {what} (got {c!r})")
need("systemd unit", lambda c: "/usr/lib/systemd/user/heraldd.service" in c["detail"]
     and c["fix"] == "systemctl --user enable --now heraldd", "the packaged unit is found, not enabled")
need("time zone", lambda c: c["ok"] and c["detail"].startswith("Europe/Berlin"), "Europe/Berlin from TZ")
if phase == "badconfig":
    need("config", lambda c: not c["ok"] and "/usr/share/herald/config.yaml.example" in c["fix"],
         "refused, the fix names the packaged example")
else:
    need("config", lambda c: c["ok"], "passes (the defaults)")
if phase in ("before", "badconfig"):
    # heraldd found beside herald and asked (no bus here, so the bus check fails for that reason).
    need("session bus", lambda c: not c["ok"] and "heraldd not found" not in c["detail"] and "did not finish" not in c["detail"]
         and "unexpected" not in c["detail"], "heraldd --probe found and answered: no bus")
    need("daemon", lambda c: not c["ok"] and "not running" in c["detail"], "not running yet")
elif phase == "console":
    need("spool", lambda c: c["ok"], "passes")
    need("daemon", lambda c: c["ok"] and f"heraldd {version} runs" in c["detail"] and "console notifier" in c["detail"],
         f"heraldd {version} runs with the console notifier")
elif phase == "libnotify":
    need("session bus", lambda c: c["ok"], "the private bus answers")
    need("notification server", lambda c: c["ok"], "python-dbusmock's server answers")
    need("spool", lambda c: c["ok"], "passes")
    need("daemon", lambda c: c["ok"] and f"heraldd {version} runs" in c["detail"] and "libnotify notifier" in c["detail"],
         f"heraldd {version} runs with the libnotify notifier")
print("; ".join(problems))
sys.exit(1 if problems else 0)
EOF

# herald doctor --json; $1: before (no heraldd), badconfig, console or libnotify (heraldd runs).
doctor() {
  phase=$1
  shift
  set +e
  as_user herald doctor --json --spool "$spool" "$@" > "$log/doctor-$phase.json" 2> "$log/doctor-$phase.err"
  code=$?
  set -e
  if problems=$(python3 "$tmp/check-doctor.py" "$phase" "$code" "$version" "$log/doctor-$phase.json"); then
    pass "herald doctor --json ($phase): valid, 7 checks, exit $code, no fix names make; $(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(", ".join(c["name"] + (" ok" if c["ok"] else " ✗") for c in d["checks"]))' "$log/doctor-$phase.json")"
  else
    fail "herald doctor --json ($phase), exit $code: $problems"
    sed 's/^/    /' "$log/doctor-$phase.json" "$log/doctor-$phase.err" | head -n 60
  fi
}

# Starts heraldd as the user ($1: console or libnotify) and waits until `herald status` finds
# it. 0 and $heraldd_pid when it is up.
start_heraldd() {
  start_as_user "heraldd-$1" heraldd --notifier "$1" --spool "$spool"
  heraldd_pid=$started_pid
  t0=$(now)
  if wait_for 20 sh -c "kill -0 $heraldd_pid 2>/dev/null && chroot '$root' /usr/bin/setpriv --reuid=$uid --regid=$uid --clear-groups /usr/bin/env -i PATH=/usr/bin:/bin HOME=$user_home TZ=Europe/Berlin herald status --spool $spool > /dev/null 2>&1"; then
    pass "heraldd --notifier $1 runs (herald status found it after $(since "$t0") s)"
    return 0
  fi
  fail "heraldd --notifier $1 did not come up within 20 s"
  sed 's/^/    /' "$log/heraldd-$1.out" "$log/heraldd-$1.err" | tail -n 20
  return 1
}
stop_heraldd() {
  stop "$heraldd_pid"
  if [ "$stopped_status" -eq 0 ]; then pass "heraldd ($1) stopped cleanly on SIGTERM"; else fail "heraldd ($1) exited with status $stopped_status on SIGTERM"; fi
}

# apt-get install of a package file in the root's /tmp; $1 the file, $2 what to call the step.
install_deb() {
  cp "$1" "$root/tmp/"
  chmod 0644 "$root/tmp/$(basename "$1")"
  before=$(in_root dpkg-query -W -f='${Package}\n' | wc -l)
  if in_root sh -c "cd /tmp && apt-get install -y -q ./$(basename "$1")" > "$log/apt-install-$2.txt" 2>&1; then
    after=$(in_root dpkg-query -W -f='${Package}\n' | wc -l)
    pass "$2: apt-get install ./$(basename "$1") ($((after - before)) packages added)"
    return 0
  fi
  tail -n 30 "$log/apt-install-$2.txt"
  fail "$2: apt-get install ./$(basename "$1")"
  return 1
}

# apt-get purge herald: nothing of the package left, the user's spool kept.
purge() {
  in_root dpkg -L herald > "$tmp/files"
  if in_root apt-get purge -y -q herald > "$log/apt-purge-$1.txt" 2>&1; then
    pass "$1: apt-get purge herald"
  else
    tail -n 20 "$log/apt-purge-$1.txt"
    fail "$1: apt-get purge herald"
  fi
  status=$(in_root dpkg-query -W -f='${db:Status-Abbrev}' herald 2>/dev/null || true)
  case "$status" in
    ""|"un "*|"pn "*) pass "$1: dpkg no longer knows herald" ;;
    *) fail "$1: dpkg status of herald after the purge: '$status'" ;;
  esac
  left=""
  kept=""
  while IFS= read -r path; do
    [ "$path" = "/." ] && continue
    [ -e "$root$path" ] || [ -L "$root$path" ] || continue
    if [ -d "$root$path" ] && [ ! -L "$root$path" ]; then
      if in_root dpkg-query -S "$path" > /dev/null 2>&1; then
        kept="$kept $path"
      elif [ -n "$(ls -A "$root$path")" ]; then
        left="$left $path(holding $(ls -A "$root$path" | tr '\n' ' '))"
      else
        left="$left $path"
      fi
    else
      left="$left $path"
    fi
  done < "$tmp/files"
  if [ -z "$left" ]; then
    pass "$1: after the purge none of herald's $(grep -vc '^/\.$' "$tmp/files") paths remain (directories kept for other packages:${kept:- none})"
  else
    fail "$1: left behind after the purge:$left"
  fi
}

# ================================ a fresh install ================================================
t=$(now)
install_deb "$deb" "fresh install" || finish
timed install "$t"
t_tests=$(now)

in_root dpkg -L herald > "$tmp/files"
missing=""
for path in /usr/bin/herald /usr/bin/heraldd /usr/lib/herald/herald-loop-db /usr/lib/systemd/user/heraldd.service \
    /usr/share/man/man1/herald.1.gz /usr/share/man/man1/heraldd.1.gz \
    /usr/share/bash-completion/completions/herald /usr/share/bash-completion/completions/heraldd \
    /usr/share/zsh/vendor-completions/_herald /usr/share/zsh/vendor-completions/_heraldd \
    /usr/share/fish/vendor_completions.d/herald.fish /usr/share/fish/vendor_completions.d/heraldd.fish \
    /usr/share/herald/config.yaml.example /usr/share/herald/job-v1.schema.json \
    /usr/share/applications/herald.desktop /usr/share/doc/herald/copyright /usr/share/doc/herald/changelog.Debian.gz; do
  if ! grep -qx "$path" "$tmp/files" || [ ! -e "$root$path" ]; then missing="$missing $path"; fi
done
if [ -z "$missing" ]; then
  pass "dpkg -L herald: $(grep -c . "$tmp/files") paths, every expected file installed"
else
  fail "dpkg -L herald lacks or did not install:$missing"
fi
if grep -qx 'ExecStart=/usr/bin/heraldd' "$root/usr/lib/systemd/user/heraldd.service"; then
  pass "the user unit runs /usr/bin/heraldd"
else
  fail "the user unit's ExecStart: $(grep ExecStart "$root/usr/lib/systemd/user/heraldd.service" || echo none)"
fi
# heraldd's man page (written by hand) names the package's paths.
if zcat "$root/usr/share/man/man1/heraldd.1.gz" | grep -q '/usr/share/herald/config.yaml.example' &&
   zcat "$root/usr/share/man/man1/heraldd.1.gz" | grep -q '/usr/lib/systemd/user/heraldd.service'; then
  pass "heraldd(1) names the package's example config and unit"
else
  fail "heraldd(1) does not name /usr/share/herald/config.yaml.example and /usr/lib/systemd/user/heraldd.service"
fi

got=$(in_root herald --version 2>&1 || true)
if [ "$got" = "$version" ]; then pass "herald --version: $got (the package is $deb_version)"; else fail "herald --version: '$got', expected '$version'"; fi
got=$(in_root heraldd --version 2>&1 || true)
if [ "$got" = "$version" ]; then pass "heraldd --version: $got"; else fail "heraldd --version: '$got', expected '$version'"; fi

doctor before
printf 'defaults:\n  lead: soon\n' > "$root$user_home/bad.yaml"
chmod 0644 "$root$user_home/bad.yaml"
doctor badconfig --config "$user_home/bad.yaml"

# --- a popup round trip through the console notifier ---------------------------------------------
token="package round trip $$-$(date +%s)"
if start_heraldd console; then
  if as_user herald remind --spool "$spool" --in 1s "$token" > "$log/remind.txt" 2>&1; then
    t=$(now)
    if wait_for 30 grep -qF "] $token" "$log/heraldd-console.out"; then
      pass "herald remind --in 1s: heraldd printed it $(since "$t") s later: $(grep -F "$token" "$log/heraldd-console.out")"
    else
      fail "heraldd did not print the reminder within 30 s (herald said: $(cat "$log/remind.txt"))"
      sed 's/^/    /' "$log/heraldd-console.out" "$log/heraldd-console.err" | tail -n 20
    fi
  else
    fail "herald remind: $(cat "$log/remind.txt")"
  fi
  doctor console
  stop_heraldd console
fi

# --- a popup round trip through libnotify, a session bus and a notification server in the root ---
start_as_user bus dbus-daemon --config-file=/tmp/session.conf --nofork --nopidfile
bus_pid=$started_pid
BUS=1
start_as_user server /usr/bin/python3 -m dbusmock --template notification_daemon -l /tmp/herald-bus/notify.log
server_pid=$started_pid
# Up when heraldd --probe (the product's own question) finds a server answering on the bus.
if wait_for 30 as_user heraldd --probe > /dev/null 2>&1; then
  pass "a session bus and python-dbusmock's notification server run in the root (heraldd --probe answered)"
  token="libnotify round trip $$-$(date +%s)"
  if start_heraldd libnotify; then
    if as_user herald remind --spool "$spool" --in 1s "$token" > "$log/remind-libnotify.txt" 2>&1; then
      t=$(now)
      if wait_for 30 grep -qF "$token" "$root/tmp/herald-bus/notify.log"; then
        pass "herald remind --in 1s: the notification server received it $(since "$t") s later ($(grep -F "$token" "$root/tmp/herald-bus/notify.log" | head -n 1 | cut -c1-120))"
      else
        fail "the notification server did not receive the reminder within 30 s"
        sed 's/^/    /' "$log/heraldd-libnotify.err" "$root/tmp/herald-bus/notify.log" | tail -n 20
      fi
      if wait_for 10 sh -c "grep -qF '$token' '$root$spool/history.jsonl' && grep -F '$token' '$root$spool/history.jsonl' | grep -q '\"shown\"'"; then
        pass "history.jsonl records the popup as shown"
      else
        fail "history.jsonl has no shown line for the popup"
      fi
    else
      fail "herald remind: $(cat "$log/remind-libnotify.txt")"
    fi
    doctor libnotify
    stop_heraldd libnotify
  fi
else
  fail "no notification server answered heraldd --probe within 30 s"
  sed 's/^/    /' "$log/bus.err" "$log/server.err" | tail -n 20
fi
stop "$server_pid"
stop "$bus_pid"
BUS=

# herald finds /usr/lib/herald/herald-loop-db: a file that is no Loop backup gets the reader's
# verdict, not "not installed".
printf 'not a database\n' > "$root$user_home/bad.db"
chmod 0644 "$root$user_home/bad.db"
got=$(as_user herald habit import --spool "$spool" "$user_home/bad.db" 2>&1 || true)
case "$got" in
  *"not an SQLite database"*) pass "herald habit import runs /usr/lib/herald/herald-loop-db ($got)" ;;
  *) fail "herald habit import: $got" ;;
esac
timed tests "$t_tests"

t=$(now)
purge "fresh install"
timed purge "$t"

# ================================ an upgrade from the previous release =============================
t=$(now)
set +e
previous=$("$repo/scripts/packaging/previous-deb.sh" 2> "$log/previous-deb.txt" | tail -n 1)
set -e
if [ -z "$previous" ] || [ ! -f "$previous" ]; then
  fail "the previous release's package: $(tail -n 3 "$log/previous-deb.txt")"
  finish
fi
previous_version=$(dpkg-deb -f "$previous" Version)
timed previous-deb "$t"
t=$(now)
upgrade_spool=$user_home/upgraded
if install_deb "$previous" "previous release $previous_version"; then
  # The user's state under the old version, made by its own heraldd: a reminder shown (so
  # history.jsonl has it), one pending, a habit done once.
  spool_saved=$spool
  spool=$upgrade_spool
  if start_heraldd console; then
    as_user herald remind --spool "$upgrade_spool" --in 1s "shown before the upgrade" > "$log/upgrade-remind.txt" 2>&1 || true
    wait_for 30 grep -qF "shown before the upgrade" "$log/heraldd-console.out" ||
      fail "heraldd $previous_version did not show the reminder before the upgrade"
    as_user herald remind --spool "$upgrade_spool" --in 3h "kept across the upgrade" >> "$log/upgrade-remind.txt" 2>&1 || true
    as_user herald habit add --spool "$upgrade_spool" "Stretch" --every daily > "$log/upgrade-habit.txt" 2>&1 || true
    as_user herald habit done --spool "$upgrade_spool" "Stretch" >> "$log/upgrade-habit.txt" 2>&1 || true
    # Both filed into jobs/ by the old heraldd before it stops.
    wait_for 20 sh -c "[ \$(ls '$root$upgrade_spool/jobs' | wc -l) -ge 2 ]" ||
      fail "heraldd $previous_version did not file the two jobs"
    stop_heraldd "$previous_version"
  fi
  spool=$spool_saved
  as_user herald list --json --spool "$upgrade_spool" > "$log/list-before.json" 2>&1 || true
  cp "$root$upgrade_spool/history.jsonl" "$log/history-before.jsonl" 2>/dev/null || true
  cp -a "$root$upgrade_spool/habits" "$log/habits-before" 2>/dev/null || true
  if install_deb "$deb" "upgrade $previous_version -> $deb_version"; then
    got=$(in_root dpkg-query -W -f='${Version}' herald)
    if [ "$got" = "$deb_version" ] && [ "$(in_root herald --version)" = "$version" ]; then
      pass "dpkg has herald $got, herald --version $version"
    else
      fail "after the upgrade dpkg has herald '$got' and herald --version says '$(in_root herald --version 2>&1)'"
    fi
    as_user herald list --json --spool "$upgrade_spool" > "$log/list-after.json" 2>&1 || true
    if python3 - "$log/list-before.json" "$log/list-after.json" <<'EOF'
import json, sys
before, after = (json.load(open(p)) for p in sys.argv[1:3])
# Each job as the same version of heraldd would schedule it: id, due time, kind, and the job document's text.
key = lambda jobs: sorted((j.get("id"), j.get("due"), (j.get("job") or {}).get("kind"),
                           json.dumps(j.get("job"), sort_keys=True)) for j in jobs)
jobs = before if isinstance(before, list) else before.get("jobs", [])
jobs_after = after if isinstance(after, list) else after.get("jobs", [])
ok = len(jobs) == 2 and key(jobs) == key(jobs_after)
print(f"{len(jobs)} jobs before, {len(jobs_after)} after")
sys.exit(0 if ok else 1)
EOF
    then
      pass "herald list after the upgrade: the reminder and the habit, unchanged"
    else
      fail "herald list changed across the upgrade"
      sed 's/^/    /' "$log/list-before.json" "$log/list-after.json" | head -n 40
    fi
    if [ -s "$log/history-before.jsonl" ] && [ -n "$(ls -A "$log/habits-before" 2>/dev/null)" ] &&
       cmp -s "$log/history-before.jsonl" "$root$upgrade_spool/history.jsonl" &&
       diff -r "$log/habits-before" "$root$upgrade_spool/habits" > /dev/null &&
       as_user herald habit show --spool "$upgrade_spool" "Stretch" > "$log/habit-after.txt" 2>&1; then
      pass "history.jsonl ($(wc -l < "$log/history-before.jsonl") lines) and habits/ kept byte for byte; herald habit show reads them"
    else
      fail "history.jsonl or habits/ changed across the upgrade, or herald habit show failed"
      sed 's/^/    /' "$log/upgrade-habit.txt" "$log/habit-after.txt" 2>/dev/null | head -n 20
    fi
    # The new heraldd takes the old spool up: it starts, and still has both jobs pending.
    spool=$upgrade_spool
    if start_heraldd console; then
      pending=$(as_user herald status --json --spool "$upgrade_spool" 2>/dev/null |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["pending"])' 2>/dev/null || true)
      if [ "$pending" = 2 ]; then
        pass "heraldd $version runs on the spool made by $previous_version, 2 jobs pending"
      else
        fail "heraldd on the upgraded spool: pending '$pending', expected 2"
        as_user herald status --spool "$upgrade_spool" 2>&1 | sed 's/^/    /'
      fi
      [ -z "$(ls -A "$root$upgrade_spool/failed" 2>/dev/null)" ] && pass "nothing in failed/ after the upgrade" ||
        fail "failed/ after the upgrade: $(ls "$root$upgrade_spool/failed")"
      stop_heraldd "upgraded spool"
    fi
    spool=$spool_saved
    purge "upgrade"
    # (The new heraldd may have added lines since: what was there must still begin the file.)
    if head -c "$(wc -c < "$log/history-before.jsonl")" "$root$upgrade_spool/history.jsonl" | cmp -s - "$log/history-before.jsonl" &&
       [ "$(ls "$root$upgrade_spool/jobs" | wc -l)" -ge 2 ] &&
       diff -r "$log/habits-before" "$root$upgrade_spool/habits" > /dev/null; then
      pass "the purge left the user's spool alone (history, jobs/, habits/)"
    else
      fail "the purge touched the user's spool $upgrade_spool"
    fi
  fi
fi
timed upgrade "$t"
finish
