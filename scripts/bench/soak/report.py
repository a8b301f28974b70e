"""The result: the report on the terminal and the row (with its section) for BENCHMARKS.md."""
import datetime as dt
import os
import subprocess
import sys

from .common import UTC, n
import benchmachine as shared  # noqa: E402 (scripts/bench is on sys.path)
from benchmachine import machine  # noqa: E402

BEGIN = "<!-- soak: begin -->"
END = "<!-- soak: end -->"


class Report:
    """Part of Soak (harness.py): the report and the Markdown row."""

    def report(self, r, wall):
        st, last = self.stats, self.last
        verdict = "pass" if not self.problems else "FAIL"
        lines = [
            f"heraldd {self.version()} from {self.bin}; {machine()}",
            f"work dir {self.work}; seed {self.args.seed}; {self.args.minutes:g} min of workload, {wall / 60:.1f} min in all",
            f"jobs due           {n(len(self.jobs))} ({n(st['imports'])} imports, {n(st['reminds'])} herald remind, "
            f"{n(st['files'])} files into new/), background queue {n(self.args.background)}",
            f"shown              {n(r['shown_jobs'])} of {n(r['expected'])} jobs not cancelled "
            f"({n(r['direct'])} popups of their own, {n(r['summarized'])} lines in {n(r['summaries'])} summaries; "
            f"{n(r['popups'])} Notify calls in all, {n(r['habit_popups'])} of them habits)",
            f"faults             {st['heraldd_kills']} heraldd SIGKILLs, {st['server_kills']} notification-server SIGKILLs "
            f"({self.server_runs} server runs), heraldd restart to READY=1 at most "
            f"{max(d['ready_s'] for d in self.daemons[1:]) if len(self.daemons) > 1 else 0:.2f} s",
            f"changes            {n(st['cancels'])} jobs cancelled ({st['cancel_commands']} commands), "
            f"{n(st['reschedules'])} reschedules, {n(st['snoozes'])} snoozes, {st['reloads']} reloads "
            f"({n(r['template_checked'])} popups checked for the template)",
            f"habits             {st['habits']} added, {st['done_presses']} Done presses, {r['recorded_done']} recorded "
            f"in their logs, {st['undos']} undone",
            f"extra shows        at most {r['max_extra']} for one job (allowed {r['allowed']}: 1 + heraldd kills); "
            f"{r['extra_jobs']} jobs shown more than expected, {r['extra_total']} extra shows in all",
            f"spool              {r['new_left']} in new/, {r['failed']} in failed/; history: "
            + ", ".join(f"{k} {n(v)}" for k, v in sorted(r['outcomes'].items())),
            f"memory             last heraldd (run {last['run']}) idle, popups cleared, holding the background queue "
            f"and the habits: VmRSS {self.rss_before / 1024:.1f} MiB in the quiet window, {self.rss_after / 1024:.1f} MiB "
            f"at the end: {r['rss_growth']:+.1%} (limit ±10 %), after {self.since_quiet()}; peak (VmHWM) "
            f"{self.hwm_before / 1024:.1f} → {self.hwm_after / 1024:.1f} MiB; idle on arrival, before the probe import "
            f"(whose filing ends with malloc_trim): {self.rss_before_untrimmed / 1024:.1f} and {self.rss_after_untrimmed / 1024:.1f} MiB; "
            f"at its READY=1 {last['rss_ready'] / 1024:.1f} MiB; the first heraldd idle with the background queue "
            f"{self.rss_first / 1024:.1f} MiB",
            f"descriptors        last heraldd: {r['fds_ready']} after READY=1, {r['fds_after']} at the end, having lived "
            f"{self.drained_at - last['ready']:.0f} s through {last['server_kills']} server restarts, "
            f"{n(last['intake'])} intake events, {last['reloads']} reloads",
            f"RSS over its life  " + ", ".join(f"+{t - last['ready']:.0f} s {rss / 1024:.1f} MiB ({n(pops - last['popups_at_ready'])} "
                                               f"popups, {n(pend)} pending, {fds} fds)"
                                               for t, rss, pops, fds, pend in self.series(last)),
            f"watchdog           WATCHDOG=1 at most {r['watchdog_gap']:.1f} s apart (WatchdogSec=30s)",
            f"heraldd log        " + (", ".join(f"{v} {k}" for k, v in sorted(r['levels'].items())) or "no warnings")
            + f"; final SIGTERM exit {self.final_exit}",
            f"harness            {n(st['cli_runs'])} herald commands ({st['cli_seconds_x1000'] / 1000:.0f} s), "
            f"the workload ran at most {st['max_lag_ms']} ms behind plan",
            f"verdict            {verdict}",
        ]
        print("\n".join(lines))
        if self.problems:
            print("\nProblems:")
            for p in self.problems:
                print("  - " + p)
        if self.notes:
            print(f"\nNotes ({len(self.notes)}; refusals that are expected, e.g. a job that fired meanwhile):")
            for note in self.notes[:10]:
                print("  - " + note)
        sys.stdout.flush()
        return verdict

    def since_quiet(self):
        """What the last heraldd went through between the two memory measurements."""
        last, q = self.last, self.quiet_counts
        return (f"{self.measured_at - self.quiet_at:.0f} s, {n(self.popups_end - q['popups'])} popups, "
                f"{n(last['intake'] - q['intake'])} intake events, {last['server_kills'] - q['server_kills']} "
                f"notification-server restart(s), {last['reloads'] - q['reloads']} reload(s)")

    def series(self, d, points=8):
        s = [x for x in d["rss_series"] if x[1] is not None]
        if len(s) <= points:
            return s
        return [s[round(k * (len(s) - 1) / (points - 1))] for k in range(points)]

    def version(self):
        try:
            return subprocess.run([self.heraldd, "--version"], capture_output=True, text=True, timeout=10).stdout.strip()
        except (OSError, subprocess.TimeoutExpired):
            return "?"

    def markdown(self, r, verdict, wall):
        st, last = self.stats, self.last
        cpu = machine()
        row = ("| " + " | ".join([
            dt.datetime.now(UTC).strftime("%Y-%m-%d %H:%M Z"),
            f"{os.cpu_count()} cores, {cpu.split(', ')[2] if len(cpu.split(', ')) > 2 else cpu}",
            f"{self.args.minutes:g}",
            n(len(self.jobs)),
            f"{n(r['shown_jobs'])} of {n(r['expected'])}",
            str(st["heraldd_kills"]),
            str(st["server_kills"]),
            n(st["snoozes"]),
            n(st["cancels"]),
            n(st["reschedules"]),
            n(st["done_presses"]),
            str(st["reloads"]),
            f"{r['max_extra']} (allowed {r['allowed']})",
            str(r["new_left"]),
            f"{self.rss_before / 1024:.1f} → {self.rss_after / 1024:.1f} MiB ({r['rss_growth']:+.1%})",
            f"{r['fds_ready']} → {r['fds_after']}",
            verdict]) + " |")
        q = self.quiet_counts
        out = [f"`scripts/bench/soak --minutes {self.args.minutes:g} --jobs {self.args.jobs} --seed {self.args.seed}` "
               f"(`make soak` runs 10 minutes), "
               f"heraldd {self.version()}, on {cpu}.", "",
               "| date | machine | minutes | jobs due | shown | heraldd kills | server restarts | snoozes | cancels | "
               "reschedules | habit Done presses | reloads | max extra shows per job | new/ left | RSS before → after | "
               "fds before → after | verdict |",
               "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|", row, "",
               f"- Shown: {n(r['direct'])} popups of their own and {n(r['summarized'])} lines of {n(r['summaries'])} "
               f"\"while you were away\" summaries (after restarts); {r['extra_jobs']} jobs were shown more than expected, "
               f"{r['extra_total']} extra shows in all (allowed per job: 1 + heraldd kills; a kill, or a server killed "
               f"as it took a popup, may repeat the popup in flight).",
               f"- RSS: the last heraldd, measured twice the same way, idle with its popups cleared and the same jobs "
               f"pending (the {n(self.args.background)}-job background queue and the habits), each time just after a "
               f"20-job probe import (heraldd hands freed memory back with malloc_trim after filing a batch): before, in "
               f"a quiet window {self.quiet_at - last['ready']:.0f} s after its start; after, at the end, "
               f"{self.since_quiet()} later. Same process, same state: what grew is what its life added. (A fresh "
               f"heraldd is no fair baseline: its RSS rises with its largest burst of due popups and stays there; "
               f"the first heraldd idled at {self.rss_first / 1024:.1f} MiB. Idle before the probe imports: "
               f"{self.rss_before_untrimmed / 1024:.1f} and {self.rss_after_untrimmed / 1024:.1f} MiB.) fds: the last "
               f"heraldd right after READY=1 and at the end.",
               f"- heraldd log: " + (", ".join(f"{v} {k}" for k, v in sorted(r['levels'].items())) or "no warnings")
               + f"; {wall / 60:.1f} min in all."]
        if self.problems:
            out.append("- Problems: " + "; ".join(p.split("\n")[0] for p in self.problems[:8]) + ".")
        return "\n".join(out)


DESCRIPTION = """## Soak

`make soak` (`scripts/bench/soak`, about 12 minutes) is a busy user's week compressed into ten
minutes, against the release binaries on a private session bus: 50,000 reminders come due
over the run (most from `herald import` batches of a few thousand, some from `herald remind
--at/--in`, some as files renamed into `new/`) on top of a 10,000-job queue due a week later;
meanwhile jobs are cancelled, rescheduled and snoozed from the shell, habits are added and
their Done pressed by the notification server (a Python process of the script's own that
acts as the user: it dismisses most popups), the configuration is reloaded with a changed
template, `heraldd` is killed with SIGKILL every 40–100 s (until half the run) and the
notification server every 60–150 s. Afterwards it checks that every job not cancelled was
shown at least 1 + its snoozes times and at most 1 + the number of `heraldd` kills more, that
no cancelled job was shown and no rescheduled one before its new time, that nothing is left
in `new/` or `failed/`, that `heraldd` never crashed, and that the last `heraldd`'s memory and
file descriptors did not grow (memory measured twice in its life, idle, with the same jobs
pending). It is not part of `make test`.
"""


def write_section(path, text):
    shared.write_section(path, text, BEGIN, END, DESCRIPTION)
