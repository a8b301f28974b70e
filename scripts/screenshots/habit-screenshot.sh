#!/bin/sh
# Draws `herald habit show` (colour, as on a terminal) for the README: a throw-away spool with a
# habit and three months of history, its output captured through script(1) and rendered by
# scripts/screenshots/ansi-png.py. Usage: scripts/screenshots/habit-screenshot.sh BIN_DIR OUT.png
set -eu
bin=$1 out=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export HERALD_SPOOL="$dir/spool" HERALD_CONFIG="$dir/config.yaml" TZ=Europe/Berlin TERM=xterm-256color LANG=C.UTF-8
echo '{}' > "$HERALD_CONFIG"
"$bin/herald" habit add Gym --times 3/week --every 'Mon..Fri 18:00' > /dev/null
# Three months: Monday, Wednesday and Friday mostly, a skipped week, a few misses.
for back in $(seq 1 100); do
  day=$(date -d "-$back days" +%F)
  dow=$(date -d "-$back days" +%u)
  case "$back" in 40|41|42|43|44|45|46) "$bin/herald" habit skip Gym --date "$day" > /dev/null; continue;; esac
  if [ "$dow" = 1 ] || [ "$dow" = 3 ] || { [ "$dow" = 5 ] && [ $((back % 3)) != 0 ]; }; then
    "$bin/herald" habit done Gym --date "$day" > /dev/null
  fi
done
script -qec "$bin/herald habit show Gym --weeks 16" /dev/null | sed -n '/^ *[A-Z][a-z][a-z]/,$p' | python3 "$(dirname "$0")/ansi-png.py" "$out"
