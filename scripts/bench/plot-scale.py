#!/usr/bin/python3
"""Plots herald-bench --scale's figures (its --scale-json file) as a PNG for BENCHMARKS.md.

    /usr/bin/python3 scripts/bench/plot-scale.py docs/bench/scale.json docs/bench/scale.png

Four panels against the number of queued jobs (log scale): READY after a restart and RSS;
fire lateness p99 and max; the single-job CLI commands; the listing commands. Each panel
draws its targets as dashed lines.
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(source, target):
    with open(source) as f:
        rows = sorted(json.load(f), key=lambda r: r["jobs"])
    if not rows:
        sys.exit(f"plot-scale: {source} holds no figures")
    jobs = [r["jobs"] for r in rows]
    fig, axes = plt.subplots(2, 2, figsize=(12, 8.5))
    fig.suptitle("Herald at scale (herald-bench --scale)")

    def panel(ax, title, unit, series, targets=()):
        for key, label in series:
            values = [r.get(key) for r in rows]
            points = [(j, v) for j, v in zip(jobs, values) if v is not None]
            if points:
                ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=label)
        for value, label in targets:
            ax.axhline(value, linestyle="--", linewidth=1, color="grey")
            ax.annotate(label, (jobs[0], value), textcoords="offset points", xytext=(2, 3), fontsize=8, color="grey")
        ax.set_xscale("log")
        ax.set_xlabel("jobs queued")
        ax.set_ylabel(unit)
        ax.set_title(title)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)

    panel(axes[0][0], "Start and memory", "ms / MiB",
          [("readyMs", "READY after restart (ms)"), ("rssMiB", "RSS (MiB)")],
          [(5000, "READY target at 1M: 5 s"), (320, "RSS target at 1M: 320 MiB")])
    axes[0][0].set_yscale("log")
    panel(axes[0][1], "Fire lateness", "ms", [("latenessP99Ms", "p99"), ("latenessMaxMs", "max")], [(2, "p99 target: 2 ms")])
    panel(axes[1][0], "One job (median)", "ms",
          [("cancelMs", "cancel"), ("showMs", "show"), ("snoozeMs", "snooze"), ("rescheduleMs", "reschedule"), ("statusMs", "status")],
          [(50, "target: 50 ms"), (20, "status target: 20 ms")])
    panel(axes[1][1], "Listing (median)", "ms",
          [("listHeadMs", "list -n 20"), ("listNextMs", "list --next"), ("listAllMs", "list (all)"), ("listJSONMs", "list --json")],
          [(1000, "list (all) target: 1 s"), (50, "list -n target: 50 ms")])
    axes[1][1].set_yscale("log")
    fig.tight_layout()
    fig.savefig(target, dpi=100)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: plot-scale.py SCALE.json OUTPUT.png")
    main(sys.argv[1], sys.argv[2])
