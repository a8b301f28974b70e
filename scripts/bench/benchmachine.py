"""The machine a benchmark ran on, in one line for BENCHMARKS.md (shared by the soak and the
calendar bench, which put it under their rows)."""
import os
import platform


def machine():
    cpu = "unknown CPU"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    osname = ""
    try:
        with open("/etc/os-release") as f:
            osname = dict(l.rstrip("\n").split("=", 1) for l in f if "=" in l).get("PRETTY_NAME", "").strip('"')
    except OSError:
        pass
    with open("/proc/meminfo") as f:
        ram = int(f.readline().split()[1]) / 2**20
    u = platform.uname()
    return ", ".join(p for p in [osname, f"Linux {u.release} {u.machine}", cpu, f"{os.cpu_count()} cores",
                                 f"{ram:.1f} GiB RAM"] if p)
