"""What /proc says about a process: a /proc/PID/status figure, its file descriptors."""
import collections
import os
import re
import time


def proc_status(pid, key):
    """A /proc/PID/status figure in KiB."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


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
