#!/usr/bin/python3
"""Test helper: a FUSE file system that behaves like a network mount that hangs.

  hangfs.py MOUNTPOINT

It lists one calendar file, `stuck.ics`, whose metadata answers at once but whose read never
returns (as an NFS or SSHFS mount whose server went away): whoever reads it waits for ever,
until killed. Stop it with `fusermount -u -z MOUNTPOINT`, then kill this process.
Needs python3-fusepy and libfuse2 (scripts/dev/install-deps.sh test).
"""
import errno
import stat
import sys
import threading

from fusepy import FUSE, Operations


class Hanging(Operations):
    def getattr(self, path, fh=None):
        if path == "/":
            return dict(st_mode=stat.S_IFDIR | 0o700, st_nlink=2)
        if path == "/stuck.ics":
            return dict(st_mode=stat.S_IFREG | 0o600, st_nlink=1, st_size=4096)
        raise OSError(errno.ENOENT, "")

    def readdir(self, path, fh):
        return [".", "..", "stuck.ics"]

    def open(self, path, flags):
        return 0

    def read(self, path, size, offset, fh):
        threading.Event().wait()  # never
        return b""


if __name__ == "__main__":
    FUSE(Hanging(), sys.argv[1], foreground=True, nothreads=False)
