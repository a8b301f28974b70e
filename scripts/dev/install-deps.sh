#!/bin/sh
# Installs the Debian packages Herald needs, only those that are missing.
#   scripts/dev/install-deps.sh build       what `swift build` needs
#   scripts/dev/install-deps.sh test        what `make test` and `make bench` need (a private bus, a notification
#                                           server, `at` and faketime to compare enqueue times and time phrases with, ...)
#   scripts/dev/install-deps.sh screenshot  what `make screenshot` needs (a virtual X screen, dunst, ImageMagick)
#   scripts/dev/install-deps.sh profile     what `make order-file` needs (valgrind, binutils)
#   scripts/dev/install-deps.sh compat      what `make compat` needs (every notification server, KDE Plasma's, sway, grim)
#   scripts/dev/install-deps.sh deb         what `make deb` and `make test-deb` need (dpkg-dev, lintian, debootstrap)
set -eu

build="libnotify-dev libcanberra-dev libsqlite3-dev pkg-config tzdata"
test="$build fuse3 libfuse2 python3-fusepy dbus-daemon dbus-bin python3-dbus python3-dbusmock systemd procps at faketime sqlite3 make bsdutils pulseaudio pulseaudio-utils libcanberra-pulse sound-theme-freedesktop sox xvfb xfce4-notifyd xfconf at-spi2-core python3-pyatspi gir1.2-atspi-2.0 xdotool imagemagick fonts-dejavu-core adwaita-icon-theme python3-radicale khal vdirsyncer todoman python3-caldav curl python3-matplotlib gnome-shell gjs dconf-service dconf-gsettings-backend libglib2.0-bin"
screenshot="$build dbus-daemon dbus-bin xvfb dunst imagemagick fonts-dejavu-core adwaita-icon-theme"
profile="$build valgrind binutils python3"
compat="$test dunst notification-daemon mate-notification-daemon mako-notifier sway grim libnotify-bin plasma-workspace sway-notification-center"
deb="dpkg-dev binutils lintian debootstrap python3"

ORACLE_VERSION=3.8.2

case "${1:-test}" in
  build) wanted=$build ;;
  test) wanted=$test ;;
  screenshot) wanted=$screenshot ;;
  profile) wanted=$profile ;;
  compat) wanted=$compat ;;
  deb) wanted=$deb ;;
  *) echo "usage: $0 build|test|screenshot|profile|compat|deb" >&2; exit 64 ;;
esac

missing=""
for pkg in $wanted; do
  status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
  case "$status" in
    *"install ok installed"*) ;;
    *) missing="$missing $pkg" ;;
  esac
done
# The calendar tests compare alarm instants with python's recurring-ical-events (PyPI), in the
# python3 on PATH (Debian's is kept for dbusmock and pyatspi).
pip_missing=""
if [ "${1:-test}" = test ] || [ "${1:-test}" = compat ]; then
  python3 -c 'import recurring_ical_events' 2>/dev/null || pip_missing="recurring-ical-events==$ORACLE_VERSION"
fi
if [ -n "$pip_missing" ]; then
  echo "Installing from PyPI: $pip_missing"
  python3 -m pip install -q "$pip_missing"
fi
[ -z "$missing" ] && exit 0

echo "Installing missing packages:$missing"
if [ "$(id -u)" -eq 0 ]; then
  sudo=""
elif command -v sudo >/dev/null 2>&1; then
  sudo="sudo"
else
  echo "error: these Debian packages are missing and I am not root (and there is no sudo):$missing" >&2
  echo "       install them with: apt-get install$missing" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
# shellcheck disable=SC2086
# --no-install-recommends: gnome-shell alone would pull in a whole GNOME session (and
# plasma-workspace a whole Plasma one); the notification servers need none of it.
$sudo apt-get install -y -qq --no-install-recommends $missing
