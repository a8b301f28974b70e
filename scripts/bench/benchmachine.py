"""What the soak and the calendar bench share: the machine a benchmark ran on, in one line, and
writing a section of BENCHMARKS.md between its markers."""
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


def write_section(path, text, begin, end, heading):
    """Replaces the text between `begin` and `end` in `path` (appended after `heading` if absent)."""
    old = open(path, encoding="utf-8").read() if os.path.exists(path) else ""
    block = begin + "\n" + text.rstrip("\n") + "\n" + end
    if begin in old and end in old:
        new = old[:old.index(begin)] + block + old[old.index(end) + len(end):]
    else:
        new = old.rstrip("\n") + "\n\n" + heading + "\n" + block + "\n"
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.write(new)
    os.replace(path + ".tmp", path)
