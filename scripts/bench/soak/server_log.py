"""What the notification server received, read from its logs as the run goes (notify.jsonl:
every Notify; server-events.jsonl: closes, button presses, clear-alls)."""
import collections
import json
import time

from .common import KEY


class ServerLog:
    """Part of Soak (harness.py): following the server's logs."""

    def init_tracking(self):
        self.log_offset = 0
        self.log_rest = b""
        self.events_offset = 0
        self.events_rest = b""
        self.shown_at = {}          # job id -> wall time of its first own popup
        self.shown_list = []        # the same ids, in the order they were first shown
        self.last_notify = time.time()
        self.popups_seen = 0
        self.clears_seen = 0
        self.shown_count = collections.Counter()
        self.probes = {}            # the memory probes' ids -> due

    def read_new(self, path, offset_attr, rest_attr):
        try:
            with open(path, "rb") as f:
                f.seek(getattr(self, offset_attr))
                data = f.read()
        except FileNotFoundError:
            return []
        setattr(self, offset_attr, getattr(self, offset_attr) + len(data))
        data = getattr(self, rest_attr) + data
        lines = data.split(b"\n")
        setattr(self, rest_attr, lines[-1])
        out = []
        for line in lines[:-1]:
            try:
                out.append(json.loads(line))
            except ValueError:
                pass
        return out

    def poll_server_logs(self):
        for rec in self.read_new(self.notify_log, "log_offset", "log_rest"):
            self.last_notify = rec["t"]
            self.popups_seen += 1
            if rec["hints"].get("category") == "x-herald.reminder":
                for key in set(KEY.findall(rec["summary"] + "\n" + rec["body"])):
                    self.shown_count[key] += 1
                    if key.startswith("m"):
                        continue
                    if key not in self.shown_at:
                        self.shown_at[key] = rec["t"]
                        self.shown_list.append(key)
        for ev in self.read_new(self.events_log, "events_offset", "events_rest"):
            if ev.get("ev") == "clear-all":
                self.clears_seen += 1
            if ev.get("ev") == "action" and ev.get("key") == "done" and ev.get("category") == "x-herald.habit":
                self.stats["done_presses"] += 1
                self.schedule_undo(ev["summary"], ev["t"])

    @staticmethod
    def read_all(path):
        out = []
        with open(path, encoding="utf-8") as f:
            for line in f:
                try:
                    out.append(json.loads(line))
                except ValueError:
                    pass
        return out
