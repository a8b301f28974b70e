"""The soak's command line: `/usr/bin/python3 scripts/bench/soak --bin .build/release ...`
(`make soak`), or `... serve ...` for the notification server. What it does: __init__.py."""
import argparse
import os
import signal
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
# Run as a folder, Python puts this folder first on sys.path; its parent goes there instead, so
# the modules load as the package `soak` and none of their names can hide a standard module.
if sys.path and os.path.abspath(sys.path[0]) == HERE:
    del sys.path[0]
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "..", "lib"))  # herald_scripts
sys.dont_write_bytecode = True  # no __pycache__ in the source tree

from soak import __doc__ as ABOUT  # noqa: E402
from soak.common import SoakError, say  # noqa: E402
from soak.harness import Soak  # noqa: E402
from soak.report import write_section  # noqa: E402
from soak.server import serve  # noqa: E402


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "serve":
        return serve(sys.argv[2:])
    p = argparse.ArgumentParser(description=ABOUT.split("\n\n")[0],
                                epilog="See scripts/bench/soak/__init__.py for what the run does and checks.")
    p.add_argument("--bin", required=True, help="the folder with herald and heraldd (.build/release)")
    p.add_argument("--minutes", type=float, default=10, help="length of the workload (default 10)")
    p.add_argument("--jobs", type=int, help="jobs due over the run (default 50,000 for 10 minutes, scaled by --minutes)")
    p.add_argument("--background", type=int, help="jobs due a week later, pending throughout (default 1,000 a minute)")
    p.add_argument("--seed", type=int, default=20261124, help="seed of the workload (default 20261124)")
    p.add_argument("--server-ids", choices=("restart", "continue"), default="restart",
                   help="whether each server run numbers its popups from 1, as real servers do (default), or continues")
    p.add_argument("--on-screen", type=float, default=0.10,
                   help="the share of reminder popups the server leaves on screen (default 0.10; the rest are "
                        "dismissed or expire)")
    p.add_argument("--output", help="write the result row into this Markdown file (BENCHMARKS.md)")
    p.add_argument("--keep", action="store_true", help="keep the working directory (spool, logs, the server's log)")
    args = p.parse_args()
    if args.minutes <= 0:
        p.error("--minutes must be above 0")
    if args.jobs is None:
        args.jobs = int(round(5000 * args.minutes))
    if args.background is None:
        args.background = int(round(1000 * args.minutes))
    if args.jobs < 50:
        p.error("--jobs must be at least 50")

    def interrupted(signum, frame):
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, interrupted)
    signal.signal(signal.SIGINT, interrupted)  # also when started with SIGINT ignored (a shell's background job)
    started = time.time()
    soak = None
    try:
        soak = Soak(args)
        soak.setup()
        soak.run_workload()
        soak.drain()
        r = soak.analyse()
    except KeyboardInterrupt:
        say("interrupted; cleaning up")
        if soak:
            soak.cleanup()
        return 130
    except SoakError as e:
        say(f"the run could not be completed: {e}")
        if soak:
            for problem in soak.problems:
                say("  - " + problem.split("\n")[0])
            soak.cleanup()
        return 2
    except BaseException:
        if soak:
            soak.cleanup()
        raise
    soak.cleanup()
    wall = time.time() - started
    verdict = soak.report(r, wall)
    if args.output:
        write_section(args.output, soak.markdown(r, verdict, wall))
        say(f"wrote the result into {args.output}")
    return 0 if verdict == "pass" else 1


if __name__ == "__main__":
    sys.exit(main())
