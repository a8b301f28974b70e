"""What /proc says about a process and the processes it started (heraldd starts one reader
per calendar source, and checks icons in a process of its own: their memory and CPU are its),
and what its file descriptors are."""
import collections
import os
import re
import time

CLK = os.sysconf("SC_CLK_TCK")


def children(pid):
    """The pids of the processes `pid` started (those still running), recursively."""
    out = []
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                kids = [int(k) for k in f.read().split()]
        except OSError:
            continue
        for kid in kids:
            out.append(kid)
            out += children(kid)
    return out


def status(pid, key):
    """A /proc/PID/status figure in KiB (VmRSS, VmHWM, ...), None when it is not there."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def family_status(pid, key):
    """`status` summed over the process and those it started (VmHWM: the sum of their peaks)."""
    return sum(status(p, key) or 0 for p in [pid] + children(pid))


def pss(pid):
    """The process's proportional set size in KiB (/proc/PID/smaps_rollup): pages it shares
    with others (a child running the same binary) counted once across them, not once each."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def family_pss(pid):
    """`pss` summed over the process and those it started: the memory they take together."""
    return sum(pss(p) or 0 for p in [pid] + children(pid))


def cpu_seconds(pid, family=True):
    """User + system CPU seconds of the process, and with `family` of the processes it started
    (those running, and those it has reaped)."""
    def own(p, reaped):
        try:
            with open(f"/proc/{p}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            return 0.0
        ticks = int(fields[11]) + int(fields[12]) + (int(fields[13]) + int(fields[14]) if reaped else 0)
        return ticks / CLK
    if not family:
        return own(pid, False)
    return own(pid, True) + sum(own(k, True) for k in children(pid))


def fd_snapshot(pid):
    """What each of the process's file descriptors is (socket, pipe, anon_inode:inotify, a path)."""
    out = {}
    base = f"/proc/{pid}/fd"
    try:
        for name in os.listdir(base):
            try:
                target = os.readlink(os.path.join(base, name))
            except OSError:
                continue
            out[int(name)] = re.sub(r"\[\d+\]$", "", target) if target.startswith(("socket:", "pipe:")) else target
    except OSError:
        return None
    return out


def fd_steady(pid, samples=3):
    """The smallest of a few snapshots 0.1 s apart: heraldd opens a socket for a moment for each
    message to the notify socket, which is no leak."""
    best = None
    for k in range(samples):
        snap = fd_snapshot(pid)
        if snap is not None and (best is None or len(snap) < len(best)):
            best = snap
        if k + 1 < samples:
            time.sleep(0.1)
    return best


def fd_kinds(snapshot):
    return collections.Counter(snapshot.values())
