#!/bin/sh
# Builds the Debian package herald_<version>-<revision>_amd64.deb from binaries that are already
# built (no Swift build here; `make deb` builds first).
#
#   scripts/packaging/make-deb.sh                         # binaries from .build/release, the .deb into the repo root
#   BUILD_DIR=/tmp/bin OUT_DIR=/tmp/out scripts/packaging/make-deb.sh
#
# The packaging metadata is in packaging/debian/: control (a debian/control, with the
# Depends computed here by dpkg-shlibdeps), changelog (its newest entry gives the Debian
# revision and the build date), copyright, and lintian-overrides. The upstream version is
# HeraldVersion.string; the changelog's newest entry must be for it.
#
# Needs dpkg-dev (dpkg-shlibdeps, dpkg-gencontrol, dpkg-parsechangelog) and binutils (strip):
# `scripts/dev/install-deps.sh deb`. Prints the path of the .deb on its last line.
set -eu

repo=$(cd "$(dirname "$0")/../.." && pwd)
# Paths given in the environment are relative to where we were started; the defaults to the repository.
absolute() { case "$1" in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
BUILD_DIR=$(absolute "${BUILD_DIR:-$repo/.build/release}")
OUT_DIR=$(absolute "${OUT_DIR:-$repo}")
GENERATE_MANUAL=$(absolute "${GENERATE_MANUAL:-$repo/.build/debug/generate-manual}")
cd "$repo"
MAKE=${MAKE:-make}
pkg=herald
meta=packaging/debian

die() { echo "make-deb: $*" >&2; exit 1; }

for tool in dpkg-deb dpkg-shlibdeps dpkg-gencontrol dpkg-parsechangelog strip readelf gzip; do
  command -v "$tool" >/dev/null 2>&1 || die "$tool is missing: run scripts/dev/install-deps.sh deb"
done
for bin in herald heraldd herald-loop-db herald-wake herald-runner; do
  [ -x "$BUILD_DIR/$bin" ] || die "no $BUILD_DIR/$bin: build first (make release), or set BUILD_DIR"
done

# heraldd carries no Foundation and no regex engine, and herald-loop-db no Swift at all: each
# would put megabytes back into the package (BENCHMARKS.md, "Installed size").
if nm "$BUILD_DIR/heraldd" 2>/dev/null | grep -q -e '20FoundationEssentials' -e '10Foundation' -e '17_StringProcessing'; then
  die "$BUILD_DIR/heraldd links Foundation or _StringProcessing: see BENCHMARKS.md, \"Installed size\""
fi
for helper in herald-loop-db herald-wake herald-runner; do
  if nm "$BUILD_DIR/$helper" 2>/dev/null | grep -q 'swift_'; then
    die "$BUILD_DIR/$helper links the Swift runtime: build it with 'make release' (the C compiler), not SwiftPM"
  fi
done

upstream=$(sed -n 's/.*static let string = "\([^"]*\)".*/\1/p' Sources/HeraldModel/System/HeraldVersion.swift)
[ -n "$upstream" ] || die "cannot read the version from Sources/HeraldModel/System/HeraldVersion.swift"
built=$("$BUILD_DIR/herald" --version)
[ "$built" = "$upstream" ] || die "$BUILD_DIR/herald is version $built but the source says $upstream: rebuild"
version=$(dpkg-parsechangelog -l "$meta/changelog" -S Version)
case "$version" in
  "$upstream"-*) ;;
  *) die "$meta/changelog's newest entry is $version, but herald is $upstream: add an entry for $upstream-1 (dch -c $meta/changelog -v $upstream-1)" ;;
esac
# Every file's time stamp, and the .deb's, is the changelog entry's date: the same inputs give
# the same package.
SOURCE_DATE_EPOCH=$(dpkg-parsechangelog -l "$meta/changelog" -S Timestamp)
export SOURCE_DATE_EPOCH

umask 022
work=$(mktemp -d "${TMPDIR:-/tmp}/herald-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
# dpkg-shlibdeps and dpkg-gencontrol want a source tree with debian/control and the package's
# files in debian/<package>.
mkdir -p "$work/debian"
cp "$meta/control" "$meta/changelog" "$work/debian/"
root=$work/debian/$pkg

# Man pages and completions, generated from the binaries by the Makefile's rule (into a
# directory of our own, so a concurrent `make man` cannot change them under us).
"$MAKE" --no-print-directory -s man BUILD_DIR="$BUILD_DIR" GENERATE_MANUAL="$GENERATE_MANUAL" \
  GENERATED="$work/generated" >/dev/null
gen=$work/generated

install -d "$root/usr/bin" "$root/usr/lib/herald" "$root/usr/lib/systemd/user" \
  "$root/usr/share/man/man1" "$root/usr/share/bash-completion/completions" \
  "$root/usr/share/zsh/vendor-completions" "$root/usr/share/fish/vendor_completions.d" \
  "$root/usr/share/herald" "$root/usr/share/applications" "$root/usr/share/doc/$pkg" \
  "$root/usr/share/lintian/overrides"

install -m 0755 "$BUILD_DIR/herald" "$BUILD_DIR/heraldd" "$root/usr/bin/"
# Only herald runs it (`herald habit import`); herald looks beside itself, then in ../lib/herald.
install -m 0755 "$BUILD_DIR/herald-loop-db" "$root/usr/lib/herald/"
# The one program given CAP_WAKE_ALARM (by the postinst: dpkg keeps no file capabilities).
install -m 0755 "$BUILD_DIR/herald-wake" "$root/usr/lib/herald/"
# Runs each run job's command (`herald run`): heraldd looks beside itself, then in ../lib/herald.
install -m 0755 "$BUILD_DIR/herald-runner" "$root/usr/lib/herald/"
# As dh_strip does for executables: the debug information goes, the symbol table too.
for bin in "$root/usr/bin/herald" "$root/usr/bin/heraldd" "$root/usr/lib/herald/herald-loop-db" "$root/usr/lib/herald/herald-wake" "$root/usr/lib/herald/herald-runner"; do
  strip --remove-section=.comment --remove-section=.note "$bin"
done
[ "$("$root/usr/bin/herald" --version)" = "$upstream" ] || die "the stripped herald does not run"
[ "$("$root/usr/bin/heraldd" --version)" = "$upstream" ] || die "the stripped heraldd does not run"
"$root/usr/lib/herald/herald-loop-db" 2>&1 | grep -q '^usage: herald-loop-db' || die "the stripped herald-loop-db does not run"

unit=$root/usr/lib/systemd/user/heraldd.service
sed -e 's|%h/.local/bin/heraldd|/usr/bin/heraldd|' -e '/^#   make install /d' systemd/heraldd.service > "$unit"
grep -qx 'ExecStart=/usr/bin/heraldd' "$unit" || die "systemd/heraldd.service has no ExecStart=%h/.local/bin/heraldd to rewrite"
chmod 0644 "$unit"
wake_unit=$root/usr/lib/systemd/user/herald-wake.service
sed -e 's|%h/.local/lib/herald/herald-wake|/usr/lib/herald/herald-wake|' -e '/^#   make install /d' -e '/^#   sudo setcap /d' \
  systemd/herald-wake.service > "$wake_unit"
grep -qx 'ExecStart=/usr/lib/herald/herald-wake' "$wake_unit" || die "systemd/herald-wake.service has no ExecStart= to rewrite"
chmod 0644 "$wake_unit"

install -m 0644 config/config.yaml "$root/usr/share/herald/config.yaml.example"
install -m 0644 schema/job-v1.schema.json "$root/usr/share/herald/job-v1.schema.json"
install -m 0644 config/herald.desktop "$root/usr/share/applications/herald.desktop"
for tool in herald heraldd; do
  # generate-manual writes paragraph breaks as empty lines, which groff warns about (lintian's
  # groff-message): write them as the mdoc paragraph macro, which renders the same.
  awk 'NF == 0 { if (prev != ".Pp") print ".Pp"; prev = ".Pp"; next } { print; prev = $0 }' "$gen/man/$tool.1" \
    | gzip -9n > "$root/usr/share/man/man1/$tool.1.gz"
  # A completion file is sourced, not run: no #! line (lintian's bash-completion-with-hashbang).
  sed '1{/^#!/d;}' "$gen/completions/$tool.bash" > "$root/usr/share/bash-completion/completions/$tool"
  chmod 0644 "$root/usr/share/bash-completion/completions/$tool"
  install -m 0644 "$gen/completions/_$tool" "$root/usr/share/zsh/vendor-completions/_$tool"
  install -m 0644 "$gen/completions/$tool.fish" "$root/usr/share/fish/vendor_completions.d/$tool.fish"
done
chmod 0644 "$root"/usr/share/man/man1/*.gz
install -m 0644 "$meta/copyright" "$root/usr/share/doc/$pkg/copyright"
gzip -9n < "$meta/changelog" > "$root/usr/share/doc/$pkg/changelog.Debian.gz"
chmod 0644 "$root/usr/share/doc/$pkg/changelog.Debian.gz"
# What lintian reports that cannot be fixed, each with the reason (comments in the file).
if [ -f "$meta/lintian-overrides" ]; then
  install -m 0644 "$meta/lintian-overrides" "$root/usr/share/lintian/overrides/$pkg"
else
  rmdir "$root/usr/share/lintian/overrides" "$root/usr/share/lintian"
fi

# Depends: from the shared libraries the dynamically linked binaries need (herald is static).
cd "$work"
dynamic=""
for bin in debian/$pkg/usr/bin/* debian/$pkg/usr/lib/herald/*; do
  if readelf -d "$bin" 2>/dev/null | grep -q '(NEEDED)'; then dynamic="$dynamic $bin"; fi
done
echo "misc:Depends=" > debian/$pkg.substvars
install -d -m 0755 debian/$pkg/DEBIAN
install -m 0755 "$repo/$meta/postinst" debian/$pkg/DEBIAN/postinst
# (The binaries carry SwiftPM's RUNPATH $ORIGIN, which dpkg-shlibdeps warns about and lintian
# accepts; heraldd's warning about libgdk_pixbuf comes from libnotify's pkg-config flags.)
# shellcheck disable=SC2086
dpkg-shlibdeps -Tdebian/$pkg.substvars $dynamic 2> shlibdeps.log || { cat shlibdeps.log >&2; die "dpkg-shlibdeps failed"; }
grep -v -e 'ORIGIN is used in RPATH' shlibdeps.log >&2 || true
dpkg-gencontrol -p$pkg -ldebian/changelog -cdebian/control -Tdebian/$pkg.substvars -Pdebian/$pkg -fdebian/files
cd "$repo"

(cd "$root" && find usr -type f | LC_ALL=C sort | xargs md5sum) > "$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/md5sums"
find "$root" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
mkdir -p "$OUT_DIR"
deb=$(cd "$OUT_DIR" && pwd)/${pkg}_${version}_amd64.deb
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "Depends: $(sed -n 's/^Depends: //p' "$root/DEBIAN/control")"
echo "$deb"
