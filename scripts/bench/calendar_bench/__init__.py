"""Measure heraldd against the calendar targets of the issue:

    "A 10,000-item calendar (1,000 recurring) loads in <= 1 s and adds <= 30 MiB to
    heraldd's RSS; an edit is picked up in <= 1 s."

    python3 scripts/bench/calendar_bench --bin .build/release [--items 10000] [--recurring 1000] [--markdown]

Why a script of its own: herald-bench (make bench) drives plain jobs; the calendar path is
different (heraldd reads a vdir, plans one job per item and files them through new/), and its
cost grows with the calendar, not the queue. This drives the real heraldd binary as a user
would run it, with nothing but the Python standard library.

What it does:

1. Writes a vdir as khal and vdirsyncer leave one: one collection folder (cal/personal/)
   with --items .ics files, one VEVENT each (SUMMARY, LOCATION, a one-sentence DESCRIPTION,
   DTSTART/DTEND with TZID=Europe/Berlin and the VTIMEZONE khal writes, DTSTAMP, UID,
   SEQUENCE, one VALARM with TRIGGER:-PT15M). One-off events are spread over the next 60
   days; --recurring of them started in 2019 and repeat (FREQ=DAILY,
   WEEKLY;BYDAY=MO,WE,FR, MONTHLY;BYMONTHDAY=15 and YEARLY in turn), so heraldd has
   seven years of occurrences to walk. Alarm times keep clear of "now" and of the 35-day
   planning horizon, so the expected jobs are known exactly: the script expands the same
   rules itself and knows each job's id (FNV-1a of source, file and UID, as
   CalendarPlanner.jobID) and first alarm, i.e. the name of its file in jobs/.
2. Starts heraldd (console notifier) on an empty spool with a config without calendars,
   waits for its "Ready" log line and reads VmRSS from /proc/PID/status: the baseline.
3. Adds the vdir to the config (written atomically) and sends SIGHUP. "load" is SIGHUP to
   heraldd's "Calendar planned" log line (config reload, reading and parsing every file,
   expanding, planning, writing the batch into new/); "filed" is SIGHUP until every expected
   job is in jobs/ (heraldd has taken the batch in, so the alarms will fire). Then VmRSS
   once heraldd has settled (1 s after filing): the delta to the baseline is what the
   calendar costs to hold; VmHWM is the peak on the way.
4. Edit pickup, --edits times with different items: the item's .ics is rewritten as an
   editor does (temporary file, rename) with DTSTART and DTEND an hour later; the time is
   from the rename until jobs/ holds the job under its new name (cal-ID@<first alarm in
   microseconds>.json), polled every 10 ms. Median and max are reported, with how long
   each re-plan took by heraldd's log: heraldd plans the source again 100 ms after the last
   event, re-reading only the files that changed (the others' alarms are kept from before).
5. Stops heraldd with SIGTERM and prints the figures (--markdown: rows in the format of
   BENCHMARKS.md and the machine line).

It also checks what it measured: the jobs heraldd filed are exactly the expected ones (no id
missing, doubled or unexpected, each at its first alarm), new/ and failed/ are empty, no popup
was shown, every plan after an edit changed exactly one job, and heraldd logged no warning or
error. Anything wrong is listed after the table and the exit status is 1 (2: the run could
not finish). The working directory is a fresh ~/.cache/herald-calendar-bench-* (the disk, where
a user's spool and calendars are), removed afterwards unless --keep; heraldd's log is kept
there as heraldd.log.

The calendar files are in the page cache when heraldd reads them (they were just written;
os.sync() is called before each timed phase so their writeback does not land in the
timings): this is a warm load, as after a sync by vdirsyncer.

The modules, one job each:

  __main__.py  the command line: options, the working directory, exit status
  vdir.py      the calendar: .ics files as khal writes them, and the jobs heraldd should file
  heraldd.py   heraldd in the foreground: its log lines, its memory, its jobs/
  measure.py   the run: the baseline, the load, the edits, and the checks of what was filed
  report.py    the figures against their targets, on the terminal and for BENCHMARKS.md
  common.py    the error that ends a run, and the progress line
"""
