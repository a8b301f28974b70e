/* herald-wake: holds the one timer that wakes the machine from suspend for heraldd.
 *
 * Arming a CLOCK_REALTIME_ALARM timer needs CAP_WAKE_ALARM at every call. heraldd runs with
 * NoNewPrivileges= and without capabilities, so on systems whose user manager cannot hand
 * the capability to a unit (systemd < 254, Debian 12) this small program gets it instead, as a
 * file capability, and runs as its own user unit (herald-wake.service) without
 * NoNewPrivileges. It keeps CAP_WAKE_ALARM and drops every other capability, listens on a
 * socket only its user can reach, and understands three lines from heraldd:
 *
 *   arm SECONDS NANOSECONDS   wake at this wall-clock instant (absolute, UTC)
 *   disarm                    wake at no time
 *   state                     answers "armed SECONDS NANOSECONDS" or "disarmed"
 *
 * each answered by "ok", a state line, or "error REASON". Nothing else is read or done. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/capability.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static int keep_only_wake_alarm(void) {
    struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct data[2];
    memset(data, 0, sizeof data);
    data[CAP_TO_INDEX(CAP_WAKE_ALARM)].effective = CAP_TO_MASK(CAP_WAKE_ALARM);
    data[CAP_TO_INDEX(CAP_WAKE_ALARM)].permitted = CAP_TO_MASK(CAP_WAKE_ALARM);
    if (syscall(SYS_capset, &header, data) != 0) return -1;
    return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
}

/* Set when a client does not take its answers: it is dropped rather than waited for (a
 * client that only writes would otherwise block the helper for everyone). */
static int client_stuck = 0;

static void answer(int fd, const char *line) {
    size_t n = strlen(line);
    while (n > 0) {
        ssize_t w = send(fd, line, n, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w <= 0) { client_stuck = 1; return; }
        line += w;
        n -= (size_t)w;
    }
}

/* A fresh timer in place of `*timer`: disarming with a zero value stops an alarm timer, but
 * timerfd_gettime and fdinfo go on showing its old expiry; a new one shows none. */
static int replace_timer(int *timer) {
    int fresh = timerfd_create(CLOCK_REALTIME_ALARM, TFD_NONBLOCK | TFD_CLOEXEC);
    if (fresh < 0) return -1;
    close(*timer);  /* *timer is the one owner: the old timer goes as the new one takes its place */
    *timer = fresh;
    return 0;
}

/* One request line; the answer goes to `client`. */
static void handle(int *timerp, int client, char *line) {
    int timer = *timerp;
    char reply[96];
    long long seconds = 0, nanoseconds = 0;
    char extra = 0;
    if (strcmp(line, "disarm") == 0) {
        if (replace_timer(timerp) != 0) {
            snprintf(reply, sizeof reply, "error %s\n", strerror(errno));
            return answer(client, reply);
        }
        fprintf(stderr, "herald-wake: disarmed\n");
        return answer(client, "ok\n");
    }
    if (strcmp(line, "state") == 0) {
        struct itimerspec now;
        if (timerfd_gettime(timer, &now) != 0) {
            snprintf(reply, sizeof reply, "error %s\n", strerror(errno));
        } else if (now.it_value.tv_sec == 0 && now.it_value.tv_nsec == 0) {
            snprintf(reply, sizeof reply, "disarmed\n");
        } else {
            struct timespec real;
            clock_gettime(CLOCK_REALTIME, &real);
            long long ns = (long long)real.tv_nsec + now.it_value.tv_nsec;
            snprintf(reply, sizeof reply, "armed %lld %lld\n", (long long)real.tv_sec + now.it_value.tv_sec + ns / 1000000000LL,
                     ns % 1000000000LL);
        }
        return answer(client, reply);
    }
    /* Up to the kernel's largest time (KTIME_MAX, in 2262): beyond it an alarm is clamped there. */
    if (sscanf(line, "arm %lld %lld%c", &seconds, &nanoseconds, &extra) == 2 && seconds > 0 && seconds < 9223372035LL
        && nanoseconds >= 0 && nanoseconds < 1000000000LL) {
        struct itimerspec at = {{0, 0}, {(time_t)seconds, (long)nanoseconds}};
        if (timerfd_settime(timer, TFD_TIMER_ABSTIME, &at, NULL) != 0) {
            snprintf(reply, sizeof reply, "error %s\n", strerror(errno));
            return answer(client, reply);
        }
        fprintf(stderr, "herald-wake: armed for %lld\n", seconds);
        return answer(client, "ok\n");
    }
    answer(client, "error not arm SECONDS NANOSECONDS, disarm or state\n");
}

static int listen_on(const char *path) {
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof address.sun_path) { errno = ENAMETOOLONG; return -1; }
    strcpy(address.sun_path, path);
    struct stat st;
    /* A socket left by an earlier run is replaced; anything else at the path is not touched. */
    if (lstat(path, &st) == 0) {
        if (!S_ISSOCK(st.st_mode)) { errno = EEXIST; return -1; }
        unlink(path);
    }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    mode_t old = umask(077);
    int bound = bind(fd, (struct sockaddr *)&address, sizeof address);
    umask(old);
    if (bound != 0 || listen(fd, 4) != 0) return -1;  /* the caller exits: the descriptor goes with it */
    return fd;
}

int main(int argc, char **argv) {
    const char *path = NULL;
    char fallback[PATH_MAX];
    int check = 0;
    for (int k = 1; k < argc; k++) {
        if (strcmp(argv[k], "--socket") == 0 && k + 1 < argc) path = argv[++k];
        else if (strcmp(argv[k], "--check") == 0) check = 1;
        else if (strcmp(argv[k], "--help") == 0 || strcmp(argv[k], "-h") == 0) {
            printf("usage: herald-wake [--socket PATH] [--check]\n"
                   "Holds the timer that wakes the machine from suspend for heraldd (needs CAP_WAKE_ALARM).\n"
                   "The socket defaults to $XDG_RUNTIME_DIR/herald-wake.sock; --check only says whether\n"
                   "the timer can be held here.\n");
            return 0;
        } else {
            fprintf(stderr, "herald-wake: unknown argument '%s' (see --help)\n", argv[k]);
            return 2;
        }
    }
    int timer = timerfd_create(CLOCK_REALTIME_ALARM, TFD_NONBLOCK | TFD_CLOEXEC);
    if (timer < 0) {
        fprintf(stderr, "herald-wake: cannot make a wake-from-suspend timer: %s%s\n", strerror(errno),
                errno == EPERM ? " (this program needs CAP_WAKE_ALARM: sudo setcap cap_wake_alarm+ep on it)" : "");
        return 1;
    }
    if (keep_only_wake_alarm() != 0) {
        fprintf(stderr, "herald-wake: cannot drop the other capabilities: %s\n", strerror(errno));
        return 1;
    }
    struct itimerspec none = {0};
    if (timerfd_settime(timer, TFD_TIMER_ABSTIME, &none, NULL) != 0) {
        fprintf(stderr, "herald-wake: cannot arm a wake-from-suspend timer: %s\n", strerror(errno));
        return 1;
    }
    if (check) { printf("herald-wake: can wake the machine from suspend\n"); return 0; }
    if (path != NULL && path[0] != '/') {
        fprintf(stderr, "herald-wake: --socket '%s' is not an absolute path\n", path);
        return 2;
    }
    if (path == NULL) {
        const char *runtime = getenv("XDG_RUNTIME_DIR");
        if (runtime == NULL || runtime[0] != '/') {
            fprintf(stderr, "herald-wake: XDG_RUNTIME_DIR is not set; give --socket PATH\n");
            return 2;
        }
        snprintf(fallback, sizeof fallback, "%s/herald-wake.sock", runtime);
        path = fallback;
    }
    signal(SIGPIPE, SIG_IGN);
    int listener = listen_on(path);
    if (listener < 0) {
        fprintf(stderr, "herald-wake: cannot listen on %s: %s\n", path, strerror(errno));
        return 1;
    }
    fprintf(stderr, "herald-wake: ready\n");
    int client = -1;
    char line[128];
    size_t used = 0;
    for (;;) {
        struct pollfd fds[3] = {{listener, POLLIN, 0}, {timer, POLLIN, 0}, {client, POLLIN, 0}};
        if (poll(fds, client >= 0 ? 3 : 2, -1) < 0) {
            if (errno == EINTR) continue;
            return 1;
        }
        if (fds[1].revents & POLLIN) {
            uint64_t expirations;
            if (read(timer, &expirations, sizeof expirations) > 0) fprintf(stderr, "herald-wake: the wake time came\n");
        }
        if (fds[0].revents & POLLIN) {
            int next = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
            struct ucred peer;
            socklen_t length = sizeof peer;
            if (next >= 0 && (getsockopt(next, SOL_SOCKET, SO_PEERCRED, &peer, &length) != 0 || peer.uid != getuid())) {
                close(next);  /* only its own user arms it (the socket's mode says so too) */
                next = -1;
            }
            if (next >= 0) {
                /* One heraldd at a time: a new connection replaces the old one. */
                if (client >= 0) close(client);
                client = next;
                used = 0;
            }
            continue;
        }
        if (client >= 0 && (fds[2].revents & (POLLIN | POLLHUP | POLLERR))) {
            ssize_t n = recv(client, line + used, sizeof line - 1 - used, 0);
            if (n <= 0) { close(client); client = -1; used = 0; continue; }
            used += (size_t)n;
            char *newline;
            while (client >= 0 && (newline = memchr(line, '\n', used)) != NULL) {
                *newline = 0;
                if (memchr(line, 0, (size_t)(newline - line)) != NULL) {
                    answer(client, "error a NUL byte in the line\n");
                } else {
                    handle(&timer, client, line);
                }
                size_t rest = used - (size_t)(newline + 1 - line);
                memmove(line, newline + 1, rest);
                used = rest;
                if (client_stuck) {
                    close(client);
                    client = -1;
                    used = 0;
                    client_stuck = 0;
                }
            }
            if (client < 0) continue;
            if (used == sizeof line - 1) {  /* a line longer than any request: the client goes */
                answer(client, "error line too long\n");
                close(client);
                client = -1;
                used = 0;
            }
        }
    }
}
