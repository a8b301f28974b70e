/* The floor under heraldd's popups (BENCHMARKS.md, "Ratios to the floor"): what a C program
 * with libnotify and nothing else takes to do the same work against the same server.
 *
 *   burst PREFIX N [FIRST]
 *                      N popups one after another, each waiting for its reply as libnotify's
 *                      notify_notification_show does, numbered from FIRST (0); prints the wall
 *                      clock (ns) at the start. LANES=K (1 to 16, default 1): after the first,
 *                      the calls are made from K threads, each waiting for its reply, as
 *                      heraldd's show lanes do (a like-for-like floor for its two on the wire).
 *   timed PREFIX FILE  one popup at each instant of FILE (ns since the epoch, one a line, in
 *                      order), each waited for on a CLOCK_REALTIME timerfd armed absolutely.
 *
 * Summaries are "PREFIX-k", so the server's arrival times measure the floor the same way they
 * measure heraldd. herald-bench builds and runs it (make bench):
 *   cc -O2 -pthread -o notify-floor scripts/bench/notify-floor.c $(pkg-config --cflags --libs libnotify)
 */
#include <errno.h>
#include <libnotify/notify.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

/* Nothing to do on a click: the floor only needs libnotify to carry the buttons, as heraldd's do. */
static void pressed(NotifyNotification *n, char *action, gpointer data) { (void)n; (void)action; (void)data; }

/* The same Notify call heraldd makes for a reminder (its buttons, hints and app name, an empty
 * body), so that the server and the bus do the same work for both. The object is kept, as a
 * client that hears its buttons must keep it. */
static void show(const char *prefix, long k) {
    static const char *buttons[][2] = {
        {"done", "Done"}, {"snooze", "Snooze"}, {"snooze-300", "5 min"}, {"snooze-3600", "1 h"}, {"default", "Acknowledge"},
    };
    char summary[64];
    snprintf(summary, sizeof summary, "%s-%ld", prefix, k);
    NotifyNotification *n = notify_notification_new(summary, "", NULL);
    for (size_t b = 0; b < sizeof buttons / sizeof buttons[0]; b++)
        notify_notification_add_action(n, buttons[b][0], buttons[b][1], pressed, NULL, NULL);
    notify_notification_set_app_name(n, "Herald");
    notify_notification_set_urgency(n, NOTIFY_URGENCY_NORMAL);
    notify_notification_set_category(n, "x-herald.reminder");
    notify_notification_set_hint(n, "desktop-entry", g_variant_new_string("herald"));
    GError *error = NULL;
    if (!notify_notification_show(n, &error)) { fprintf(stderr, "notify-floor: %s\n", error->message); exit(1); }
}

/* The calls a burst's lanes share: each takes the next number until none is left. */
static struct { const char *prefix; long next, end; pthread_mutex_t lock; } shared = { .lock = PTHREAD_MUTEX_INITIALIZER };
static void *lane(void *unused) {
    (void)unused;
    for (;;) {
        pthread_mutex_lock(&shared.lock);
        long k = shared.next++;
        pthread_mutex_unlock(&shared.lock);
        if (k >= shared.end) return NULL;
        show(shared.prefix, k);
    }
}

/* A burst's N or FIRST: a whole number up to 10^9, so that FIRST + N cannot overflow. */
static long count(const char *text, const char *what) {
    char *end; errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || end == text || *end || v < 0 || v > 1000000000L) {
        fprintf(stderr, "notify-floor: %s %s is not a whole number from 0 to 1000000000\n", what, text);
        exit(64);
    }
    return v;
}

int main(int argc, char **argv) {
    if (argc != 4 && !(argc == 5 && argv[1][0] == 'b')) {
        fprintf(stderr, "usage: notify-floor burst PREFIX N [FIRST] | timed PREFIX FILE\n");
        return 64;
    }
    if (!notify_init("herald-floor")) { fprintf(stderr, "notify-floor: notify_init failed\n"); return 1; }
    const char *prefix = argv[2];
    if (argv[1][0] == 'b') {
        long n = count(argv[3], "N"), first = argc == 5 ? count(argv[4], "FIRST") : 0;
        struct timespec t; clock_gettime(CLOCK_REALTIME, &t);
        printf("%lld\n", (long long)t.tv_sec * 1000000000LL + t.tv_nsec);
        const char *lanes_text = getenv("LANES");
        long lanes = lanes_text ? count(lanes_text, "LANES") : 1;
        if (lanes < 1 || lanes > 16) { fprintf(stderr, "notify-floor: LANES %s is not from 1 to 16\n", lanes_text); return 64; }
        if (lanes == 1 || n == 0) {
            for (long k = first; k < first + n; k++) show(prefix, k);
        } else {
            show(prefix, first);  /* the first alone, as heraldd's */
            shared.prefix = prefix; shared.next = first + 1; shared.end = first + n;
            pthread_t threads[16];
            long started = 0;
            for (; started < lanes; started++)
                if (pthread_create(&threads[started], NULL, lane, NULL) != 0) break;
            if (started == 0) lane(NULL);
            for (long t = 0; t < started; t++) pthread_join(threads[t], NULL);
        }
    } else {
        FILE *f = fopen(argv[3], "r");
        if (!f) { perror(argv[3]); return 1; }
        int fd = timerfd_create(CLOCK_REALTIME, TFD_CLOEXEC);
        long long at; long k = 0; uint64_t ticks;
        while (fscanf(f, "%lld", &at) == 1) {
            struct itimerspec spec = { {0, 0}, { at / 1000000000LL, at % 1000000000LL } };
            if (timerfd_settime(fd, TFD_TIMER_ABSTIME, &spec, NULL) != 0) { perror("timerfd_settime"); return 1; }
            if (read(fd, &ticks, sizeof ticks) != sizeof ticks) { perror("read"); return 1; }
            show(prefix, k++);
        }
    }
    fflush(stdout);
    notify_uninit();
    return 0;
}
