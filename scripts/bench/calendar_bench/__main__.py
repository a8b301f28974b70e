"""The calendar bench's command line: `python3 scripts/bench/calendar_bench --bin .build/release`
(part of `make bench`). What it measures and checks: __init__.py."""
import argparse
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
# Run as a folder, Python puts this folder first on sys.path; its parent goes there instead, so
# the modules load as the package `calendar_bench` and none can hide a standard module.
if sys.path and os.path.abspath(sys.path[0]) == HERE:
    del sys.path[0]
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "..", "lib"))  # herald_scripts
sys.dont_write_bytecode = True  # no __pycache__ in the source tree

from calendar_bench import __doc__ as ABOUT  # noqa: E402
from calendar_bench.common import BenchError, say  # noqa: E402
from calendar_bench.measure import run  # noqa: E402
from calendar_bench.report import report, write_section  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=ABOUT.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bin", required=True, help="the folder with heraldd (.build/release, .build/debug)")
    p.add_argument("--items", type=int, default=10_000, help="items in the calendar (default 10000)")
    p.add_argument("--recurring", type=int, default=1_000, help="of them, how many repeat (default 1000)")
    p.add_argument("--edits", type=int, default=5, help="items edited one after another (default 5)")
    p.add_argument("--timeout", type=float, default=120, help="seconds any one wait may take (default 120)")
    p.add_argument("--seed", type=int, default=9074, help="seed of the calendar's contents")
    p.add_argument("--markdown", action="store_true", help="print rows for BENCHMARKS.md")
    p.add_argument("--output", help="also write the rows into this file's calendar-bench section (BENCHMARKS.md)")
    p.add_argument("--keep", action="store_true", help="keep the working directory")
    args = p.parse_args()
    if not 0 <= args.recurring <= args.items:
        p.error("--recurring must be between 0 and --items")
    base = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"))
    os.makedirs(base, exist_ok=True)
    work = os.path.realpath(tempfile.mkdtemp(prefix="herald-calendar-bench-", dir=base))
    problems = []
    try:
        r = run(args, work, problems)
    except BenchError as e:
        print(f"calendar-bench: {e}", file=sys.stderr)
        for p_ in problems:
            print("  - " + p_, file=sys.stderr)
        return 2
    finally:
        if args.keep:
            say(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    report(args, r, problems)
    if args.output:
        # The same rows again, into the section of BENCHMARKS.md between the markers.
        import contextlib, io
        args.markdown = True
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            report(args, r, [])  # problems were printed above
        write_section(args.output, buf.getvalue())
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
