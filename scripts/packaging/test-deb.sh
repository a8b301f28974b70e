#!/bin/sh
# Installs the Herald Debian package into a fresh Debian 12 root and tests it there:
#
#   scripts/packaging/test-deb.sh [path/to/herald_<version>_amd64.deb]     (as root; `make test-deb`)
#
# Default package: the newest herald_*_amd64.deb in the repository root. The first run makes
# a minimal Debian 12 root with debootstrap (a minute or two) and keeps it, untouched, in
# $HERALD_DEB_ROOT (default: $XDG_CACHE_HOME/herald/debootstrap-bookworm, i.e.
# ~/.cache/herald/debootstrap-bookworm); every run copies it to a temporary directory, so each
# starts from the same fresh system. In that copy (chroot, /proc mounted, /dev bound):
#   apt-get install ./herald_*.deb, its dependencies from the mirror
#   herald --version; herald doctor --json (as a user, before and while heraldd runs)
#   heraldd --notifier console: a reminder due in a second must appear on heraldd's stdout
#   herald habit import finds herald-loop-db
#   apt-get purge herald: none of the files dpkg -L listed may remain (directories that
#   other packages own excepted)
# Prints PASS/FAIL for each check; exit status 0 when all passed, 1 when one failed, 2 when
# not run as root.
#
# Environment: HERALD_DEB_ROOT (the cached root), HERALD_DEB_MIRROR (default: the Debian
# mirror in /etc/apt/sources.list{,.d}, else http://deb.debian.org/debian), HERALD_DEB_KEEP=1
# (keep the temporary root, for a look after a failure), TMPDIR.
set -eu

repo=$(cd "$(dirname "$0")/../.." && pwd)
suite=bookworm

if [ "$(id -u)" -ne 0 ]; then
  echo "test-deb: must run as root (debootstrap, chroot and mount need it); try: sudo $0 $*" >&2
  exit 2
fi
for tool in debootstrap chroot mount umount dpkg-deb python3; do
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

# --- a fresh copy of it, with cleanup that always unmounts ---------------------------------------
tmp=$(mktemp -d "${TMPDIR:-/var/tmp}/herald-test-deb.XXXXXX")
root=$tmp/root
# What the commands printed: removed after a run that passed, kept after one that failed.
log=$(mktemp -d "${TMPDIR:-/var/tmp}/herald-test-deb-log.XXXXXX")
heraldd_pid=""
cleanup() {
  status=$?
  trap - EXIT INT TERM
  if [ -n "$heraldd_pid" ] && kill -0 "$heraldd_pid" 2>/dev/null; then
    kill "$heraldd_pid" 2>/dev/null || true
    sleep 1
    kill -KILL "$heraldd_pid" 2>/dev/null || true
  fi
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
# A user of the chroot, in a session without a desktop (no D-Bus), in a zone with daylight saving.
as_user() {
  chroot "$root" /usr/bin/setpriv --reuid=$uid --regid=$uid --clear-groups \
    /usr/bin/env -i PATH=/usr/bin:/bin HOME=$user_home USER=tester LOGNAME=tester LANG=C.UTF-8 \
    TZ=Europe/Berlin "$@"
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

# --- install -----------------------------------------------------------------------------------
t=$(now)
if in_root apt-get update -q > "$log/apt-update.txt" 2>&1; then
  pass "apt-get update ($(grep -h '^deb ' "$root/etc/apt/sources.list" 2>/dev/null | head -n 1))"
else
  tail -n 20 "$log/apt-update.txt"
  fail "apt-get update"
  finish
fi
timed apt-update "$t"
before=$(in_root dpkg-query -W -f='${Package}\n' | wc -l)
t=$(now)
if in_root sh -c "cd /tmp && apt-get install -y -q ./$(basename "$deb")" > "$log/apt-install.txt" 2>&1; then
  after=$(in_root dpkg-query -W -f='${Package}\n' | wc -l)
  pass "apt-get install ./$(basename "$deb") ($((after - before - 1)) dependencies from the mirror)"
else
  tail -n 30 "$log/apt-install.txt"
  fail "apt-get install ./$(basename "$deb")"
  finish
fi
timed install "$t"
t_tests=$(now)

in_root dpkg -L herald > "$tmp/files"
missing=""
for path in /usr/bin/herald /usr/bin/heraldd /usr/lib/herald/herald-loop-db /usr/lib/systemd/user/heraldd.service \
    /usr/share/man/man1/herald.1.gz /usr/share/man/man1/heraldd.1.gz \
    /usr/share/bash-completion/completions/herald /usr/share/bash-completion/completions/heraldd \
    /usr/share/zsh/vendor-completions/_herald /usr/share/fish/vendor_completions.d/herald.fish \
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

# --- the programs --------------------------------------------------------------------------------
got=$(in_root herald --version 2>&1 || true)
if [ "$got" = "$version" ]; then pass "herald --version: $got"; else fail "herald --version: '$got', expected '$version'"; fi
got=$(in_root heraldd --version 2>&1 || true)
if [ "$got" = "$version" ]; then pass "heraldd --version: $got"; else fail "heraldd --version: '$got', expected '$version'"; fi

in_root useradd --create-home --home-dir "$user_home" --uid "$uid" --user-group --shell /bin/sh tester ||
  { fail "useradd tester"; finish; }

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
# heraldd found beside herald and asked (no bus here, so the bus check fails for that reason).
need("session bus", lambda c: "heraldd not found" not in c["detail"] and "did not finish" not in c["detail"]
     and "unexpected" not in c["detail"], "heraldd --probe found and answered")
need("systemd unit", lambda c: "/usr/lib/systemd/user/heraldd.service" in c["detail"], "the packaged unit is found")
need("config", lambda c: c["ok"], "passes (the defaults)")
need("time zone", lambda c: c["ok"] and c["detail"].startswith("Europe/Berlin"), "Europe/Berlin from TZ")
if phase == "during":
    need("spool", lambda c: c["ok"], "passes")
    need("daemon", lambda c: c["ok"] and f"heraldd {version} runs" in c["detail"] and "console notifier" in c["detail"],
         f"heraldd {version} runs with the console notifier")
else:
    need("daemon", lambda c: not c["ok"] and "not running" in c["detail"], "not running yet")
print("; ".join(problems))
sys.exit(1 if problems else 0)
EOF

# herald doctor --json; $1: before (no heraldd) or during (heraldd runs).
doctor() {
  set +e
  as_user herald doctor --json --spool "$spool" > "$log/doctor-$1.json" 2> "$log/doctor-$1.err"
  code=$?
  set -e
  if problems=$(python3 "$tmp/check-doctor.py" "$1" "$code" "$version" "$log/doctor-$1.json"); then
    pass "herald doctor --json ($1 heraldd): valid, 7 checks, exit $code; $(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(", ".join(c["name"] + (" ok" if c["ok"] else " ✗") for c in d["checks"]))' "$log/doctor-$1.json")"
  else
    fail "herald doctor --json ($1 heraldd), exit $code: $problems"
    sed 's/^/    /' "$log/doctor-$1.json" "$log/doctor-$1.err" | head -n 60
  fi
}
doctor before

# --- a popup round trip through the console notifier ---------------------------------------------------
token="package round trip $$-$(date +%s)"
t=$(now)
chroot "$root" /usr/bin/setpriv --reuid=$uid --regid=$uid --clear-groups \
  /usr/bin/env -i PATH=/usr/bin:/bin HOME=$user_home USER=tester LOGNAME=tester LANG=C.UTF-8 TZ=Europe/Berlin \
  heraldd --notifier console --spool "$spool" > "$log/heraldd.out" 2> "$log/heraldd.err" &
heraldd_pid=$!
# Up when `herald status` finds it (exit 0; 3 while it is not running).
deadline=$(( $(date +%s) + 20 ))
up=""
while [ "$(date +%s)" -le "$deadline" ]; do
  if ! kill -0 "$heraldd_pid" 2>/dev/null; then break; fi
  if as_user herald status --spool "$spool" > "$log/status.txt" 2>&1; then up=1; break; fi
  sleep 0.1
done
if [ -n "$up" ]; then
  pass "heraldd --notifier console runs (herald status after $(since "$t") s)"
  if as_user herald remind --spool "$spool" --in 1s "$token" > "$log/remind.txt" 2>&1; then
    t=$(now)
    deadline=$(( $(date +%s) + 30 ))
    shown=""
    while [ "$(date +%s)" -le "$deadline" ]; do
      if grep -qF "] $token" "$log/heraldd.out"; then shown=1; break; fi
      sleep 0.1
    done
    if [ -n "$shown" ]; then
      pass "herald remind --in 1s: heraldd printed it $(since "$t") s later: $(grep -F "$token" "$log/heraldd.out")"
    else
      fail "heraldd did not print the reminder within 30 s (herald said: $(cat "$log/remind.txt"))"
      sed 's/^/    /' "$log/heraldd.out" "$log/heraldd.err" | tail -n 20
    fi
  else
    fail "herald remind: $(cat "$log/remind.txt")"
  fi
  doctor during
elif ! kill -0 "$heraldd_pid" 2>/dev/null; then
  set +e
  wait "$heraldd_pid"
  code=$?
  set -e
  heraldd_pid=""
  fail "heraldd --notifier console exited at once (status $code)"
  sed 's/^/    /' "$log/heraldd.out" "$log/heraldd.err" | tail -n 20
else
  fail "heraldd did not come up within 20 s (herald status never found it)"
  sed 's/^/    /' "$log/heraldd.err" "$log/status.txt" | tail -n 20
fi
if kill -0 "$heraldd_pid" 2>/dev/null; then
  kill -TERM "$heraldd_pid"
  set +e
  wait "$heraldd_pid"
  code=$?
  set -e
  heraldd_pid=""
  if [ "$code" -eq 0 ]; then pass "heraldd stopped cleanly on SIGTERM"; else fail "heraldd exited with status $code on SIGTERM"; fi
fi

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

# --- purge -----------------------------------------------------------------------------------------
t=$(now)
if in_root apt-get purge -y -q herald > "$log/apt-purge.txt" 2>&1; then
  pass "apt-get purge herald"
else
  tail -n 20 "$log/apt-purge.txt"
  fail "apt-get purge herald"
fi
status=$(in_root dpkg-query -W -f='${db:Status-Abbrev}' herald 2>/dev/null || true)
case "$status" in
  ""|"un "*|"pn "*) pass "dpkg no longer knows herald" ;;
  *) fail "dpkg status of herald after the purge: '$status'" ;;
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
  pass "after the purge none of herald's $(grep -vc '^/\.$' "$tmp/files") paths remain (directories kept for other packages:${kept:- none})"
else
  fail "left behind after the purge:$left"
fi
timed purge "$t"
finish
