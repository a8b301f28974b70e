"""What every part of the soak uses: its error, its log line, times, and the patterns that
find a job's id in a popup."""
import datetime as dt
import re
import sys

KEY = re.compile(r"\b[jm]\d{6}\b")   # j: the run's jobs; m: the probes of the two memory measurements
BG_KEY = re.compile(r"\bbg\d{6}\b")
SUMMARY = re.compile(r"^(\d+) \S+ while you were away")
UTC = dt.timezone.utc


class SoakError(Exception):
    """The run cannot go on (a set-up error, a timeout)."""


def say(message):
    print(f"soak: {message}", file=sys.stderr, flush=True)


def iso(t):
    return dt.datetime.fromtimestamp(t, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def parse_iso(s):
    return dt.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()



def n(x):
    return f"{x:,}"
