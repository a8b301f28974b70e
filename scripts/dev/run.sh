#!/bin/sh
# `make run`: start the release heraldd in the foreground, on the desktop if there is one.
set -eu
bin="$(cd "$(dirname "$0")/../.." && pwd)/.build/release"

bus="${DBUS_SESSION_BUS_ADDRESS:-}"
if [ -z "$bus" ] && [ -S "/run/user/$(id -u)/bus" ]; then
  bus="unix:path=/run/user/$(id -u)/bus"
  export DBUS_SESSION_BUS_ADDRESS="$bus"
fi

if [ -n "$bus" ]; then
  notifier=libnotify
  echo "heraldd: popups go to your desktop's notification server."
else
  notifier=console
  echo "heraldd: no D-Bus session bus here, so popups are printed in this terminal (--notifier console)."
fi
echo "Stop it with Ctrl-C. In another terminal, try:"
echo
echo "    $bin/herald remind --in 10s 'Hello from Herald'"
echo
exec "$bin/heraldd" --notifier "$notifier" "$@"
