"""A busy user's week compressed into ten minutes: heraldd under load and under faults.

    /usr/bin/python3 scripts/bench/soak --bin .build/release [--minutes 10] [--jobs N] [--seed S]
                                        [--output BENCHMARKS.md] [--keep]

(`make soak`. /usr/bin/python3 because it has python3-dbus and GLib; the notification server
below is written with them.)

What it starts, all private to the run and removed afterwards (also on failure or Ctrl-C):

- a dbus-daemon session bus whose configuration has no <standard_session_servicedirs/>, so
  nothing is activated on it;
- a notification server, a separate process (this program with `serve`, dbus-python on a GLib
  main loop), that owns org.freedesktop.Notifications, implements GetCapabilities ("actions",
  "body", ...), GetServerInformation, Notify (ids counting up from 1 in each incarnation, as
  real servers do) and CloseNotification, and appends one JSON line per Notify (wall and
  monotonic time, app name, summary, body, actions, hints, replaces_id, timeout) to a log,
  flushed per call. It acts as the user: a habit popup's Done is pressed (ActionInvoked
  "done") a moment after it appears; most other popups are dismissed (NotificationClosed,
  reason 2) after a second or so, some expire (reason 1), some are left on screen;
- heraldd (--spool, a config file, NOTIFY_SOCKET on a datagram socket read by this program,
  which waits for READY=1 from heraldd's pid; no sleeping and hoping).

Then, over --minutes, the workload (planned from --seed, so the same seed gives the same plan;
the choices made at run time, such as which shown job to snooze, come from the same generator):

- --jobs reminders (default 5,000 a minute: 50,000 in 10 minutes) due between the first and
  the last few percent of the run: most in `herald import` batches of a few thousand (each
  imported 5-30 s before its first job is due), 4 % by `herald remind --at/--in`, 4 % as job
  files written to tmp/ and renamed into new/. Each job's id (j000123) is in its title and text;
- a background queue (--background, default 1,000 a minute) due a week later, imported before
  heraldd first starts: a user's queue of future jobs, pending from start to end;
- `herald cancel` of not-yet-due jobs (2 % of the jobs; these must never show),
  `herald reschedule` of not-yet-due jobs (1 %; never shown before the new time),
  `herald snooze` of shown jobs (1 %; each adds one expected show);
- habits added (`herald habit add ... --every "*:*:0/30"`: due every 30 s), Done pressed by the
  server, `herald habit undo` before the next reminder so that it shows again;
- config reloads: the reminder template changes ("{title} [cN]") and heraldd gets SIGHUP; each
  reminder popup shown after the reload took effect (RELOADING=1 ... READY=1) must carry [cN];
- heraldd killed with SIGKILL every 40-100 s (scaled by minutes/10 in shorter runs) until half
  the run and restarted 0.2-3 s later; the notification server killed every 60-150 s and
  restarted 0.5-5 s later (at least once during the last heraldd's life);
- a quiet window 60 s after the last heraldd starts (35 s long in a full run), once it has
  worked under the run's load for a while: nothing comes due and nothing is done from the shell
  (habits go on), the user clears every popup, and heraldd's memory is measured idle (below).

After the last due time it waits for the queue to drain (no run job left in jobs/, nothing in
new/), clears the popups, measures, removes the habits, stops heraldd with SIGTERM, and checks:

- every job not cancelled was shown at least once (a popup of its own, or a line of a "N
  reminders while you were away" summary, as history.jsonl records it) and at least as often
  as expected (1 + its snoozes); a cancelled job never; a rescheduled one not before its new
  time; no background job; nothing missed or failed in history.jsonl;
- no job shown more often than expected + 1 + the number of heraldd kills (each kill may repeat
  the one popup in flight, README "At least once"; so may a server killed as it takes one);
- nothing left in new/, nothing in failed/;
- heraldd's VmRSS at the end within 10 % of the "before" value. Both are of the last heraldd,
  taken the same way: a 20-job probe import due a second later (heraldd calls malloc_trim after
  filing each batch, so memory it freed earlier does not count), shown; every popup cleared
  (the server closes them, as a user clearing the notification list); then idle (no popup for
  2 s, three samples 0.5 s apart within 0.5 %), with the same jobs pending (the background
  queue and the habits). Before: in the quiet window, with its start-up (catch-up summary,
  intake of what waited, the prune of history.jsonl) and a minute of the run's load behind it.
  After: at the end, some minutes, thousands of popups, hundreds of intake events, a
  notification-server restart and reloads later. Same process, same state, same load behind
  it: what grew is what the rest of its life added. A fresh heraldd is no fair baseline:
  heraldd's RSS rises with the load and the bursts of due popups it has handled (a catch-up
  after a restart, a server outage) and stays near that level, so a fresh one idles several
  MiB lower than one that has worked, leak or no leak (the first heraldd's RSS is reported);
- no file descriptor leaked: the last heraldd's /proc/PID/fd right after its READY=1 (and its
  first WATCHDOG=1) against the end (smallest of three looks 0.1 s apart each time: heraldd opens
  a socket for a moment for each message to the notify socket);
- WATCHDOG=1 (heraldd runs with WATCHDOG_USEC=30 s, as under the unit) never more than 30 s apart;
- no popup ending in history.jsonl that the server did not signal for that job, no popup
  replacing another job's in place, no CloseNotification for a popup of a job nobody acted on
  (stale ids after a server restart would show as these);
- heraldd never exited other than by our SIGKILLs, and exited 0 on the final SIGTERM;
- habits: each shown, Done presses recorded in their logs, none shown while its day was done;
- reloads: the popups carry the template in effect.

Exit status 0 when every check passes, 1 when one fails, 2 when the run could not be carried
out (a set-up error, a timeout), 130 on Ctrl-C. With --output FILE the result row goes into FILE
between `<!-- soak: begin -->` and `<!-- soak: end -->` (a "## Soak" section is added if absent).
The working directory (~/.cache/herald-soak-*: the spool, heraldd's logs, the server's
notify.jsonl and server-events.jsonl, actions.jsonl with every command the run gave) is removed
unless --keep.

The modules, one job each:

  __main__.py       the command line: options, the run's phases in order, exit status
  plan.py           Plan: everything the run will do, from the seed
  harness.py        Soak: the run's state, its herald commands, set-up, drain and clean-up
  processes.py      the bus, the notification server and heraldd: started, killed, watched
  server.py         the notification server itself (`soak serve`, a process of its own)
  server_log.py     what the server received, followed as the run goes
  workload.py       carrying out the plan: imports, reminders, cancels, snoozes, kills, ...
  memory.py         heraldd's memory measured idle, the same way both times
  checks.py         the checks after the run
  report.py         the result: the terminal report and the row for BENCHMARKS.md
  common.py         what every part uses: the error, log lines, times, job-id patterns
  (scripts/lib/herald_scripts: /proc readers, the private bus and systemd's notify socket stood
  in for, shared with the other scripts)
"""
