"""The run's plan, made from the seed before the workload starts."""


class Plan:
    """Everything the run will do, with times in seconds from the workload's start, from the seed.

    The kills of heraldd come first (until half the run), so the last heraldd's life is known.
    Shortly after it starts comes a quiet window, as in a user's day: nothing comes due and
    nothing is done from the shell, so that it can be measured idle, holding the same jobs as at
    the end (the background queue and the habits), once its start-up is behind it."""

    def __init__(self, args, rng):
        T = args.minutes * 60.0
        s = min(1.0, args.minutes / 10.0)           # interval scale for shorter runs
        lead = max(s, 0.2)
        self.T, self.scale, self.lead = T, s, lead
        self.first_due = max(5.0, 0.03 * T)
        self.last_due = T - max(5.0, 0.03 * T)
        self.events = []  # (t, kind, payload)
        self.jobs = {}    # id -> dict(due, via)

        # heraldd killed every 40-100 s until half the run, down 0.2-3 s each time.
        self.kills = []
        t = rng.uniform(40, 100) * s
        while t <= 0.5 * T:
            self.kills.append((t, rng.uniform(0.2, 3.0)))
            t += rng.uniform(40, 100) * s
        last_restart = (self.kills[-1][0] + self.kills[-1][1]) if self.kills else 0.0
        for t, down in self.kills:
            self.events.append((t, "kill-heraldd", {"down": down}))

        # The quiet window [qs, qe]: 60 s after the last restart (scaled), once that heraldd has
        # worked under the run's load for a while (its RSS has reached the level that load keeps it
        # at), 35 s long; no job due from qs until 10 s after qe; whatever would be issued in it
        # waits until qe.
        self.qs = max(self.first_due, last_restart + 60 * lead)
        self.qe = self.qs + 35 * lead
        gap = (self.qe + 10 * lead) - self.qs
        self.events.append((self.qs, "quiet", {}))

        def place(u):
            """A due time from the compressed range [first_due, last_due - gap] around the window."""
            return u if u < self.qs else u + gap

        def issue(when, kind, payload, margin=0.0):
            if self.qs - margin <= when < self.qe:
                when = self.qe + rng.uniform(0, 2 * lead)
            self.events.append((max(0.0, when), kind, payload))

        N = args.jobs
        n_remind, n_file = round(0.04 * N), round(0.04 * N)
        n_import = N - n_remind - n_file
        ids = [f"j{k:06d}" for k in range(N)]
        rng.shuffle(ids)
        it = iter(ids)
        lo, hi = self.first_due, self.last_due - gap

        # Batches of a few thousand (4-8 % of the imported jobs each), each covering a slice of
        # the due range in proportion to its size (cut at the window), imported 5-30 s before
        # the slice begins.
        sizes, left = [], n_import
        while left > 0:
            k = min(left, max(1, int(rng.uniform(0.04, 0.08) * n_import)))
            sizes.append(k)
            left -= k
        slices, a = [], lo
        for size in sizes:
            width = (hi - lo) * size / n_import
            if a < self.qs < a + width:
                cut = round(size * (self.qs - a) / width)
                slices += [(a, self.qs, cut), (self.qs, a + width, size - cut)]
            else:
                slices.append((a, a + width, size))
            a += width
        for b, (a, z, size) in enumerate(x for x in slices if x[2] > 0):
            lines = []
            for _ in range(size):
                jid = next(it)
                self.jobs[jid] = {"due": place(rng.uniform(a, z)), "via": "import"}
                lines.append(jid)
            issue(place(a) - rng.uniform(5, 30) * lead, "import", {"batch": b, "ids": lines})
        for via, count in (("remind", n_remind), ("file", n_file)):
            for _ in range(count):
                jid = next(it)
                due = place(rng.uniform(lo, hi))
                when = due - rng.uniform(3, 40) * lead
                if self.qs <= when < self.qe:
                    when = self.qe + rng.uniform(0, 2 * lead)
                when = max(0.0, when)
                if due - when < 2:
                    due = when + 2
                self.jobs[jid] = {"due": due, "via": via}
                mode = "in" if via == "remind" and rng.random() < 0.5 else "at"
                self.events.append((when, via, {"id": jid, "mode": mode}))

        # Cancels (2 % of the jobs, 1-5 a command), reschedules and snoozes (1 % each).
        end_ops = self.last_due - 10 * lead
        cancelled = 0
        while cancelled < round(0.02 * N):
            k = rng.randint(1, 5)
            issue(rng.uniform(2, end_ops), "cancel", {"count": k})
            cancelled += k
        for _ in range(round(0.01 * N)):
            issue(rng.uniform(2, end_ops), "reschedule", {"mode": "in" if rng.random() < 0.3 else "at"})
        for _ in range(round(0.01 * N)):
            issue(rng.uniform(self.first_due + 3, end_ops), "snooze", {})

        # Habits: due every 30 s (half of them at :00/:30, half at :15/:45), added in the first half.
        self.habits = []
        for h in range(max(2, round(args.minutes))):
            name = f"Soak habit {h + 1}"
            every = "*:*:0/30" if h % 2 == 0 else "*:*:15/30"
            self.habits.append((name, every, 0 if h % 2 == 0 else 15))
            issue(rng.uniform(0, 0.5 * T), "habit", {"name": name, "every": every})

        # Reloads every 45-90 s.
        t = rng.uniform(45, 90) * s
        while t < T - 5 * lead:
            issue(t, "reload", {})
            t += rng.uniform(45, 90) * s

        # The notification server killed every 60-150 s until 92 % of the run, down 0.5-5 s;
        # at least once after the quiet window (while the last heraldd runs).
        server_kills = []
        t = rng.uniform(60, 150) * s
        while t <= 0.92 * T:
            if not self.qs - 10 * lead <= t < self.qe:
                server_kills.append(t)
            t += rng.uniform(60, 150) * s
        after = self.qe + 5 * lead
        if not any(after < k < 0.92 * T for k in server_kills):
            server_kills.append(rng.uniform(after, max(after + 1, 0.85 * T)))
        for t in server_kills:
            self.events.append((t, "kill-server", {"down": rng.uniform(0.5, 5.0)}))
        self.events.sort(key=lambda e: e[0])
