#!/bin/sh
# Prints the path of the previous release's Debian package, which `make test-deb` installs and
# then upgrades from. packaging/debian/previous names its version and the commit it is built
# from. Built once, from that commit of this repository (git worktree, release build,
# make-deb.sh: about ten minutes), and kept in $XDG_CACHE_HOME/herald/ (~/.cache/herald/).
#
#   scripts/packaging/previous-deb.sh            # the .deb's path on the last line
#   HERALD_PREVIOUS_DEB=/path/x.deb ...          # use that package instead (its version must match)
set -eu

repo=$(cd "$(dirname "$0")/../.." && pwd)
die() { echo "previous-deb: $*" >&2; exit 1; }

read -r version commit <<EOF2
$(grep -v '^#' "$repo/packaging/debian/previous" | head -n 1)
EOF2
[ -n "$version" ] && [ -n "$commit" ] || die "packaging/debian/previous names no version and commit"
name=herald_${version}_amd64.deb

if [ -n "${HERALD_PREVIOUS_DEB:-}" ]; then
  [ -f "$HERALD_PREVIOUS_DEB" ] || die "HERALD_PREVIOUS_DEB: no such file: $HERALD_PREVIOUS_DEB"
  got=$(dpkg-deb -f "$HERALD_PREVIOUS_DEB" Version)
  [ "$got" = "$version" ] || die "HERALD_PREVIOUS_DEB is version $got, not $version"
  echo "$HERALD_PREVIOUS_DEB"
  exit 0
fi

cache=${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/herald
if [ -f "$cache/$name" ]; then echo "$cache/$name"; exit 0; fi

git -C "$repo" cat-file -e "$commit^{commit}" 2>/dev/null ||
  die "commit $commit (herald $version) is not in this clone: fetch the full history, or set HERALD_PREVIOUS_DEB"
mkdir -p "$cache"
exec 9>"$cache/$name.lock"
command -v flock >/dev/null 2>&1 && flock 9
if [ -f "$cache/$name" ]; then echo "$cache/$name"; exit 0; fi
work=$(mktemp -d "${TMPDIR:-/var/tmp}/herald-previous.XXXXXX")
trap 'git -C "$repo" worktree remove --force "$work/src" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
echo "previous-deb: building herald $version from $commit (once; kept in $cache)" >&2
git -C "$repo" worktree add --detach "$work/src" "$commit" >/dev/null 2>&1 || die "git worktree add failed"
# That commit's own build: its Makefile, its packages, its make-deb.sh (no lintian here).
( cd "$work/src" && make --no-print-directory release > "$work/build.log" 2>&1 &&
  swift build --product generate-manual >> "$work/build.log" 2>&1 &&
  OUT_DIR="$work/out" scripts/packaging/make-deb.sh >> "$work/build.log" 2>&1 ) ||
  { tail -n 30 "$work/build.log" >&2; die "building herald $version failed"; }
[ -f "$work/out/$name" ] || die "the build made no $name"
mv "$work/out/$name" "$cache/$name.partial"
mv "$cache/$name.partial" "$cache/$name"
echo "$cache/$name"
