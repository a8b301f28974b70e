"""Regenerates the iCalendar alarm corpus: `python3 scripts/oracles/make_ical_corpus`. What it
writes and checks: __init__.py."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# Run as a folder, Python puts this folder first on sys.path; its parent goes there instead, so
# the modules load as the package `make_ical_corpus` and none can hide a standard module.
if sys.path and os.path.abspath(sys.path[0]) == HERE:
    del sys.path[0]
sys.path.insert(0, os.path.dirname(HERE))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree

from make_ical_corpus.bulk import bulk  # noqa: E402
from make_ical_corpus.check import check  # noqa: E402
from make_ical_corpus.files import (all_day, bare_iana, basic, floating, outlook_zones, overrides,  # noqa: E402
                                    rdate_exdate, rrule_byparts, rrule_freq, silent, todos, zones)
from make_ical_corpus.writer import OUT, SILENT  # noqa: E402


def main():
    for dirpath, _, names in os.walk(OUT):
        for name in names:
            if name.endswith(".ics"):
                os.remove(os.path.join(dirpath, name))
    basic(); rrule_freq(); rrule_byparts(); rdate_exdate(); overrides(); all_day(); floating()
    zones(); outlook_zones(); todos(); silent(); bare_iana(); bulk()
    with open(os.path.join(OUT, "expected-silent.txt"), "w") as f:
        f.write("".join(uid + "\n" for uid in SILENT))
    problems = check()
    for p in problems:
        print("PROBLEM:", p, file=sys.stderr)
    sys.exit(1 if problems else 0)



if __name__ == "__main__":
    main()
