"""systemd's notify socket, stood in for: heraldd's READY=1, RELOADING=1 and WATCHDOG=1 with
the pid that sent each."""
import socket
import struct
import threading
import time


class NotifySocket:
    """Stands in for systemd's notify socket: every datagram, with its sender's pid
    (SCM_CREDENTIALS) and the wall time it arrived."""

    def __init__(self, path):
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
        self.sock.bind(path)
        self.messages = []  # (wall time, pid, text)
        self.cond = threading.Condition()
        self.thread = threading.Thread(target=self._run, name="notify-socket", daemon=True)
        self.thread.start()

    def _run(self):
        space = socket.CMSG_SPACE(struct.calcsize("iII"))
        while True:
            try:
                data, ancillary, _, _ = self.sock.recvmsg(8192, space)
            except OSError:
                return
            t = time.time()
            if not data:
                return
            pid = None
            for level, kind, cdata in ancillary:
                if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS:
                    pid = struct.unpack("iII", cdata[:struct.calcsize("iII")])[0]
            with self.cond:
                self.messages.append((t, pid, data.decode(errors="replace")))
                self.cond.notify_all()

    def mark(self):
        with self.cond:
            return len(self.messages)

    def wait(self, pid, line, since, timeout, proc=None):
        """The wall time of the first message from `pid` (None: from anyone) after index `since`
        holding `line`."""
        deadline = time.monotonic() + timeout
        k = since
        with self.cond:
            while True:
                for k in range(k, len(self.messages)):
                    t, sender, text = self.messages[k]
                    if (pid is None or sender == pid) and line in text.split("\n"):
                        return t
                k = len(self.messages)
                if proc is not None and proc.poll() is not None:
                    return None
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self.cond.wait(min(left, 0.1))

    def close(self):
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()
