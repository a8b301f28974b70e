"""What every part of the calendar bench uses: the error that ends a run, the progress line."""
import sys


class BenchError(Exception):
    """The run cannot go on (heraldd died, a wait timed out)."""


def say(message):
    print(f"calendar-bench: {message}", file=sys.stderr, flush=True)
