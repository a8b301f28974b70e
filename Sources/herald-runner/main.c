/* herald-runner: runs one scheduled command for heraldd and leaves its result behind.
 *
 * heraldd writes RUNDIR/N.spec and starts this program, as its child or as a systemd transient
 * unit. heraldd may be killed or restarted at any time, so the run must not depend on it: the
 * runner owns the command. It holds RUNDIR/N.lock for its whole life (the lock is how heraldd
 * tells a live run from a dead one), starts the command in a process group of its own, keeps
 * its stdout and stderr in N.log up to a cap, ends it at its timeout (SIGTERM, then SIGKILL),
 * passes on a cancel (SIGTERM, SIGINT or SIGHUP to the runner), and once the command is reaped
 * writes N.result atomically.
 *
 *   herald-runner [--lock-fd FD] [--detach] RUNDIR N
 *
 * N.spec is NUL-terminated strings in this order (RunFiles.Spec writes them): the header
 * "herald-run-spec 1", occurrence=, title=, notify= (heraldd's), timeout= and kill-after=
 * (seconds), max-output= (bytes), cwd=, umask= (octal), argc= and the arguments, envc= and the
 * NAME=VALUE strings.
 *
 * Exit status: 0 the result is written, 1 a system failure, 2 bad arguments or a bad spec,
 * 3 the run is already another runner's. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SPEC_MAX (1 << 20)
#define TEN_YEARS (10ULL * 36525 * 864) /* seconds in ten years of 365.25 days */
#define ERROR_MAX 1000

static const char *rundir;
static char *spec_path, *lock_path, *running_path, *log_path, *result_path, *tmp_path, *ended_path, *cancel_path;
static int have_lock, log_fd = -1, log_ok = 1;
static uint64_t max_output, logged;
/* Past its head, the output's last part is kept in a ring and written at the end, after the
 * note of what was cut: the lines a failing command ends with are usually why it failed. */
static uint64_t head_max;
static char *tail_ring;
static size_t tail_max, tail_len, tail_at;
static pid_t runner_pid;

static struct {
    int started, reaped, status; /* started: the command was exec'd, so its status means something */
    long long start, end;
    uint64_t bytes;
    int cut, timedout, cancelled;
    char error[ERROR_MAX + 1];
} result;

static long long now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts); /* cannot fail for this clock */
    return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int write_all(int fd, const char *data, size_t n) {
    while (n > 0) {
        ssize_t w = write(fd, data, n);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) return -1;
        data += w;
        n -= (size_t)w;
    }
    return 0;
}

/* result.error is one line heraldd can show: control characters (newlines too) become '?',
 * and a long text is cut at ERROR_MAX bytes, not inside a UTF-8 character. */
static void set_error(const char *text, size_t length) {
    if (length > ERROR_MAX) {
        length = ERROR_MAX;
        while (length > 0 && ((unsigned char)text[length] & 0xC0) == 0x80) length--;
    }
    for (size_t k = 0; k < length; k++) {
        unsigned char c = (unsigned char)text[k];
        result.error[k] = c < 0x20 || c == 0x7f ? '?' : (char)c;
    }
    result.error[length] = 0;
}

/* N.result.tmp, flushed, renamed over N.result: heraldd finds either no result or a whole one. */
static int write_result(void) {
    char text[ERROR_MAX + 512], code[16] = "";
    int signal_number = 0;
    if (result.started && result.reaped && WIFEXITED(result.status))
        snprintf(code, sizeof code, "%d", WEXITSTATUS(result.status));
    if (result.started && result.reaped && WIFSIGNALED(result.status)) signal_number = WTERMSIG(result.status);
    int length = snprintf(text, sizeof text,
                          "exit=%s\nsignal=%d\nstart=%lld\nend=%lld\nbytes=%llu\ncut=%d\ntimedout=%d\ncancelled=%d\nerror=%s\n",
                          code, signal_number, result.start, result.end, (unsigned long long)result.bytes, result.cut,
                          result.timedout, result.cancelled, result.error);
    if (length < 0 || (size_t)length >= sizeof text) { errno = EOVERFLOW; return -1; }
    int fd = open(tmp_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) return -1;
    int failed = write_all(fd, text, (size_t)length) != 0 || fsync(fd) != 0;
    int saved = errno;
    if (close(fd) != 0 && !failed) { failed = 1; saved = errno; }
    if (!failed && rename(tmp_path, result_path) != 0) { failed = 1; saved = errno; }
    if (failed) { unlink(tmp_path); errno = saved; return -1; }
    /* The rename is only durable once the directory is: without it a crash can lose the result. */
    int dir = open(rundir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0 || fsync(dir) != 0) fprintf(stderr, "herald-runner: cannot flush %s: %s\n", rundir, strerror(errno));
    if (dir >= 0) close(dir);
    return 0;
}

/* Ends the runner before the command has run. Once the lock is held the reason also goes into
 * N.result, so heraldd learns why the run did nothing instead of finding a dead run; before
 * that, N.result may be another runner's, and the reason only goes to stderr. */
static void fail(int code, const char *format, ...) __attribute__((format(printf, 2, 3), noreturn));
static void fail(int code, const char *format, ...) {
    char text[PATH_MAX + 256];
    va_list args;
    va_start(args, format);
    vsnprintf(text, sizeof text, format, args);
    va_end(args);
    fprintf(stderr, "herald-runner: %s\n", text);
    if (have_lock) {
        set_error(text, strlen(text));
        result.start = result.end = now_us();
        if (write_result() != 0) {
            fprintf(stderr, "herald-runner: cannot write %s: %s\n", result_path, strerror(errno));
            exit(1);
        }
    }
    exit(code);
}

struct spec {
    uint64_t timeout, kill_after, umask;
    char *cwd, **argv, **envp;
};

static char *next_string(char **at, char *end) {
    if (*at >= end) return NULL;
    char *nul = memchr(*at, 0, (size_t)(end - *at));
    if (nul == NULL) return NULL;
    char *s = *at;
    *at = nul + 1;
    return s;
}

/* The next string, or the end of the run with what was missing in its place. */
static char *need(char **at, char *end, const char *what) {
    char *s = next_string(at, end);
    if (s == NULL && *at < end) fail(2, "spec: the file ends inside a string (no NUL after it) where %s should be", what);
    if (s == NULL) fail(2, "spec: %s is missing", what);
    return s;
}

/* The next string, which must be KEY=VALUE: its VALUE. */
static char *value(char **at, char *end, const char *key) {
    char *s = need(at, end, key);
    size_t k = strlen(key);
    if (strncmp(s, key, k) != 0 || s[k] != '=') fail(2, "spec: expected %s=... but found another string", key);
    return s + k + 1;
}

/* strtoull alone takes spaces, signs and overflow silently: each is refused here. */
static uint64_t number(char **at, char *end, const char *key, int base, uint64_t max) {
    char *digits = value(at, end, key), *rest;
    errno = 0;
    unsigned long long v = strtoull(digits, &rest, base);
    if (digits[0] < '0' || digits[0] > '9' || errno != 0 || *rest != 0 || v > max) {
        if (base == 8) fail(2, "spec: %s= is not an octal number from 0 to %llo", key, (unsigned long long)max);
        fail(2, "spec: %s= is not a number from 0 to %llu", key, (unsigned long long)max);
    }
    return v;
}

static void parse_spec(char *data, size_t size, struct spec *spec) {
    char *at = data, *end = data + size, *s, what[64];
    if (strcmp(need(&at, end, "the herald-run-spec 1 header"), "herald-run-spec 1") != 0)
        fail(2, "spec: not a herald-run-spec 1 file");
    value(&at, end, "occurrence"); /* informational (heraldd's): only their places are checked */
    value(&at, end, "title");
    value(&at, end, "notify");
    spec->timeout = number(&at, end, "timeout", 10, TEN_YEARS);
    spec->kill_after = number(&at, end, "kill-after", 10, TEN_YEARS);
    max_output = number(&at, end, "max-output", 10, 1ULL << 30);
    /* A quarter of the room (at most 64 KiB) for the end of the output. */
    tail_max = max_output / 4 < 65536 ? (size_t)(max_output / 4) : 65536;
    head_max = max_output - tail_max;
    if (tail_max > 0 && (tail_ring = malloc(tail_max)) == NULL) fail(1, "out of memory");
    if ((spec->cwd = value(&at, end, "cwd"))[0] != '/') fail(2, "spec: cwd= is not an absolute path");
    spec->umask = number(&at, end, "umask", 8, 0777);
    uint64_t count = number(&at, end, "argc", 10, 4096);
    if (count == 0) fail(2, "spec: argc= is 0: there is no program");
    if ((spec->argv = calloc(count + 1, sizeof *spec->argv)) == NULL) fail(1, "out of memory");
    for (uint64_t k = 0; k < count; k++) {
        snprintf(what, sizeof what, "argument %llu of %llu", (unsigned long long)k + 1, (unsigned long long)count);
        spec->argv[k] = need(&at, end, what);
    }
    if (spec->argv[0][0] == 0) fail(2, "spec: the program (the first argument) is empty");
    count = number(&at, end, "envc", 10, 8192);
    if ((spec->envp = calloc(count + 1, sizeof *spec->envp)) == NULL) fail(1, "out of memory");
    for (uint64_t k = 0; k < count; k++) {
        snprintf(what, sizeof what, "environment string %llu of %llu", (unsigned long long)k + 1, (unsigned long long)count);
        if ((s = spec->envp[k] = need(&at, end, what))[0] == '=' || strchr(s, '=') == NULL)
            fail(2, "spec: environment string %llu is not NAME=VALUE", (unsigned long long)k + 1);
    }
    if (at != end) fail(2, "spec: there is more after the last environment string");
}

static void read_spec(struct spec *spec) {
    /* O_NONBLOCK: opening a FIFO put in the spec's place must not hang the runner. */
    int fd = open(spec_path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    struct stat st;
    if (fd < 0) fail(2, "spec: cannot open %s: %s", spec_path, strerror(errno));
    if (fstat(fd, &st) != 0) fail(1, "cannot inspect %s: %s", spec_path, strerror(errno));
    if (!S_ISREG(st.st_mode)) fail(2, "spec: %s is not a regular file", spec_path);
    char *data = malloc(SPEC_MAX + 1);
    size_t size = 0;
    if (data == NULL) fail(1, "out of memory");
    for (;;) {
        ssize_t r = read(fd, data + size, SPEC_MAX + 1 - size);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) fail(1, "cannot read %s: %s", spec_path, strerror(errno));
        if (r == 0) break;
        size += (size_t)r;
        if (size > SPEC_MAX) fail(2, "spec: %s is larger than 1 MiB", spec_path);
    }
    close(fd);
    parse_spec(data, size, spec);
}

/* In the child, before exec: the reason goes to the runner through the exec-error pipe. NAME is
 * capped so the message always fits in the pipe and the write cannot block. */
static void child_fail(int fd, const char *what, const char *name, int code) {
    const char *reason = strerror(errno);
    if (write_all(fd, what, strlen(what)) == 0 && write_all(fd, name, strnlen(name, ERROR_MAX)) == 0
        && write_all(fd, ": ", 2) == 0)
        write_all(fd, reason, strlen(reason));
    _exit(code);
}

static void run_command(const struct spec *spec, int output, int report) {
    sigset_t none;
    sigemptyset(&none);
    /* The command starts as from a fresh login: every signal at its default (ignored ones are
     * inherited through exec), none blocked, in its own process group so it can be ended whole. */
    for (int s = 1; s < NSIG; s++) signal(s, SIG_DFL); /* fails harmlessly for KILL, STOP and glibc's own */
    sigprocmask(SIG_SETMASK, &none, NULL);
    setpgid(0, 0);
    /* Should the runner die (SIGKILL, the OOM killer), nobody would log, time or stop the
     * command any more: it goes with it. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != runner_pid) _exit(1);
    int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (null < 0) child_fail(report, "cannot open ", "/dev/null", 1);
    if (dup2(null, 0) < 0 || dup2(output, 1) < 0 || dup2(output, 2) < 0) child_fail(report, "cannot set up ", "output", 1);
    umask((mode_t)spec->umask);
    if (chdir(spec->cwd) != 0) child_fail(report, "cannot enter directory ", spec->cwd, 1);
    environ = spec->envp; /* execvp looks the program up in the job's own PATH */
    execvp(spec->argv[0], spec->argv);
    child_fail(report, "cannot run ", spec->argv[0], 127);
}

/* One read of the command's output: into the log up to its head, past that into the tail ring,
 * the rest only counted (the pipe is still emptied, or the command would block on it). 1: read
 * some, 0: end of the output, -1: nothing now. */
static int pump(int fd) {
    static char buffer[65536];
    ssize_t n = read(fd, buffer, sizeof buffer);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return -1;
    if (n < 0) fprintf(stderr, "herald-runner: cannot read the output: %s\n", strerror(errno));
    if (n <= 0) return 0;
    result.bytes += (uint64_t)n;
    size_t keep = head_max - logged < (uint64_t)n ? (size_t)(head_max - logged) : (size_t)n;
    if (keep > 0 && log_ok && write_all(log_fd, buffer, keep) != 0) {
        log_ok = 0;
        fprintf(stderr, "herald-runner: cannot write %s: %s; the output goes unlogged\n", log_path, strerror(errno));
    }
    logged += keep;
    for (size_t k = keep; k < (size_t)n && tail_max > 0; k++) {
        tail_ring[(tail_at + tail_len) % tail_max] = buffer[k];
        if (tail_len < tail_max) tail_len++; else tail_at = (tail_at + 1) % tail_max;
    }
    return 1;
}

/* A zero it_value disarms a timerfd, so "at once" is one nanosecond. */
static int arm(int timer, uint64_t seconds) {
    struct itimerspec at = {{0, 0}, {(time_t)seconds, seconds == 0 ? 1 : 0}};
    return timerfd_settime(timer, 0, &at, NULL);
}

static char *make_path(const char *n, const char *suffix) {
    char *path;
    if (asprintf(&path, "%s/%s%s", rundir, n, suffix) < 0) fail(1, "out of memory");
    return path;
}

int main(int argc, char **argv) {
    int lock_fd = -1, detach = 0, k = 1;
    for (; k < argc && argv[k][0] == '-'; k++) {
        char *rest;
        if (strcmp(argv[k], "--lock-fd") == 0 && k + 1 < argc) {
            errno = 0;
            long fd = strtol(argv[++k], &rest, 10);
            if (argv[k][0] < '0' || argv[k][0] > '9' || errno != 0 || *rest != 0 || fd > INT_MAX)
                fail(2, "--lock-fd '%s' is not a descriptor number", argv[k]);
            lock_fd = (int)fd;
        } else if (strcmp(argv[k], "--detach") == 0) {
            detach = 1;
        } else {
            fail(2, "unknown argument '%s'", argv[k]);
        }
    }
    if (argc - k != 2) fail(2, "usage: herald-runner [--lock-fd FD] [--detach] RUNDIR N (runs RUNDIR/N.spec for heraldd)");
    rundir = argv[k];
    const char *n = argv[k + 1];
    size_t digits = strlen(n);
    /* Digits without a leading zero: one run has one spelling, so one set of file names. */
    if (digits < 1 || digits > 9 || strspn(n, "0123456789") != digits || n[0] == '0')
        fail(2, "N '%s' is not a run number from 1 to 999999999", n);
    if (rundir[0] != '/') fail(2, "RUNDIR '%.*s' is not an absolute path", PATH_MAX, rundir);
    if (strlen(rundir) + 1 + digits + strlen(".result.tmp") >= PATH_MAX) fail(2, "RUNDIR is too long");
    spec_path = make_path(n, ".spec"), lock_path = make_path(n, ".lock"), running_path = make_path(n, ".running");
    log_path = make_path(n, ".log"), result_path = make_path(n, ".result"), tmp_path = make_path(n, ".result.tmp");
    ended_path = make_path(n, ".ended"), cancel_path = make_path(n, ".cancel");

    /* Descriptors 0-2 open (on /dev/null if they were closed): a pipe made below must not take
     * the number of stdout or stderr, which the child replaces with the output pipe. */
    for (;;) {
        int fd = open("/dev/null", O_RDWR);
        if (fd < 0) fail(1, "cannot open /dev/null: %s", strerror(errno));
        if (fd > 2) { close(fd); break; }
    }
    /* A cancel must still leave a result, so the signals that would end the runner are blocked
     * from the start and read from a signalfd later. SIGCHLD goes back to its default: inherited
     * as ignored, the kernel would reap the command before the runner could. */
    sigset_t mask;
    sigemptyset(&mask);
    int handled[] = {SIGCHLD, SIGTERM, SIGINT, SIGHUP};
    for (size_t s = 0; s < sizeof handled / sizeof *handled; s++) {
        signal(handled[s], SIG_DFL);
        sigaddset(&mask, handled[s]);
    }
    signal(SIGPIPE, SIG_IGN);
    if (sigprocmask(SIG_BLOCK, &mask, NULL) != 0) fail(1, "cannot block signals: %s", strerror(errno));

    if (lock_fd >= 0) {
        struct stat held, named;
        int flags = fcntl(lock_fd, F_GETFD);
        if (flags < 0 || fcntl(lock_fd, F_SETFD, flags | FD_CLOEXEC) != 0 || fstat(lock_fd, &held) != 0)
            fail(2, "--lock-fd %d: %s", lock_fd, strerror(errno));
        if (lstat(lock_path, &named) != 0 || held.st_dev != named.st_dev || held.st_ino != named.st_ino)
            fail(2, "--lock-fd %d is not %s", lock_fd, lock_path);
    } else if ((lock_fd = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600)) < 0) {
        fail(1, "cannot open %s: %s", lock_path, strerror(errno));
    }
    /* On heraldd's descriptor this only confirms the lock it took (a flock belongs to the open
     * file, which the runner shares); on the runner's own it takes the lock or finds it taken. */
    /* A look at the lock (herald list, heraldd's isLive) holds it shared for an instant: a lock
     * found busy is tried again for up to 200 ms before it counts as another runner's. */
    for (int tries = 0; flock(lock_fd, LOCK_EX | LOCK_NB) != 0;) {
        if (errno == EINTR) continue;
        if (errno != EWOULDBLOCK) fail(1, "cannot lock %s: %s", lock_path, strerror(errno));
        if (++tries > 200) fail(3, "run %s in %s is already another runner's", n, rundir);
        struct timespec pause = {0, 1000000};
        nanosleep(&pause, NULL);
    }
    have_lock = 1;
    /* Detaching after the lock: when heraldd reaps the parent, the lock is already held. */
    if (detach) {
        pid_t pid = fork();
        if (pid < 0) fail(1, "cannot detach: %s", strerror(errno));
        if (pid > 0) _exit(0);
    }
    if (setsid() < 0 && errno != EPERM) fail(1, "cannot start a session: %s", strerror(errno));

    /* A run is started once: one whose start or end is on disk is never started again, whoever asks. */
    if (access(running_path, F_OK) == 0 || access(result_path, F_OK) == 0 || access(ended_path, F_OK) == 0) {
        fprintf(stderr, "herald-runner: %s shows this run was started before; a run is never started twice\n", running_path);
        exit(3);
    }
    struct spec spec;
    read_spec(&spec);
    if ((log_fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600)) < 0)
        fail(1, "cannot open %s: %s", log_path, strerror(errno));
    int signals = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
    if (signals < 0) fail(1, "cannot read signals: %s", strerror(errno));
    int timer = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
    if (timer < 0) fail(1, "cannot make a timer: %s", strerror(errno));
    int output[2], report[2];
    if (pipe2(output, O_CLOEXEC) != 0 || pipe2(report, O_CLOEXEC) != 0 || fcntl(output[0], F_SETFL, O_NONBLOCK) != 0)
        fail(1, "cannot make a pipe: %s", strerror(errno));

    result.start = now_us();
    char running[80];
    int length = snprintf(running, sizeof running, "pid=%d\nstart=%lld\n", (int)getpid(), result.start);
    int fd = open(running_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0 || write_all(fd, running, (size_t)length) != 0 || close(fd) != 0)
        fail(1, "cannot write %s: %s", running_path, strerror(errno));
    /* Cancelled while heraldd was starting it (N.cancel, `herald cancel`): looked for only now
     * that N.running is written, so a canceller that finds no N.running is sure to be seen. */
    if (access(cancel_path, F_OK) == 0) {
        static const char why[] = "cancelled before it started";
        result.cancelled = 1;
        set_error(why, sizeof why - 1);
        result.end = now_us();
        if (write_result() != 0) fail(1, "cannot write %s: %s", result_path, strerror(errno));
        return 0;
    }
    runner_pid = getpid();
    pid_t child = fork();
    if (child < 0) fail(1, "cannot start a process: %s", strerror(errno));
    if (child == 0) run_command(&spec, output[1], report[1]);
    setpgid(child, child); /* as the child does: whichever runs first, the group is there for kill(-child) */
    close(output[1]);
    close(report[1]);

    const char *broke = NULL; /* the call that failed when the runner has to give up on the command */
    int broke_errno = 0, term_sent = 0, output_open = 1;
    if (spec.timeout > 0 && arm(timer, spec.timeout) != 0) broke = "timerfd_settime", broke_errno = errno;
    while (!result.reaped && broke == NULL) {
        struct pollfd fds[3] = {{signals, POLLIN, 0}, {timer, POLLIN, 0}, {output_open ? output[0] : -1, POLLIN, 0}};
        if (poll(fds, 3, -1) < 0) {
            if (errno != EINTR) broke = "poll", broke_errno = errno;
            continue;
        }
        if (fds[2].revents != 0 && pump(output[0]) == 0) output_open = 0;
        uint64_t ticks;
        int ending = 0; /* 1: the command must be asked to end now */
        /* The timer is one-shot: it fires once for the timeout, then once more for kill-after. */
        if ((fds[1].revents & POLLIN) && read(timer, &ticks, sizeof ticks) == sizeof ticks) {
            if (!term_sent) result.timedout = ending = 1;
            else kill(-child, SIGKILL);
        }
        struct signalfd_siginfo info;
        while (read(signals, &info, sizeof info) == sizeof info) {
            if (info.ssi_signo != SIGCHLD) {
                if (!term_sent && !ending) result.cancelled = ending = 1;
                continue;
            }
            pid_t r = waitpid(child, &result.status, WNOHANG);
            if (r == child) {
                result.reaped = 1;
                result.end = now_us();
            } else if (r < 0 && errno != EINTR) {
                broke = "waitpid";
                broke_errno = errno;
            }
        }
        if (ending && !result.reaped) {
            /* SIGCONT as systemd sends it: a stopped process would not see the SIGTERM. */
            kill(-child, SIGTERM);
            kill(-child, SIGCONT);
            term_sent = 1;
            if (arm(timer, spec.kill_after) != 0) kill(-child, SIGKILL); /* no delay to wait out: it goes now */
        }
    }
    if (broke != NULL) {
        char text[200];
        snprintf(text, sizeof text, "runner: %s failed: %s", broke, strerror(broke_errno));
        fprintf(stderr, "herald-runner: %s; killing the command\n", text);
        set_error(text, strlen(text));
        kill(-child, SIGKILL);
        while (!result.reaped) {
            if (waitpid(child, &result.status, 0) == child) result.reaped = 1;
            else if (errno != EINTR) break;
        }
        result.end = now_us();
    }
    /* A group told to end gets its SIGKILL now that its leader is gone (members that ignore
     * SIGTERM would outlive a timeout or a cancel). */
    if (term_sent) kill(-child, SIGKILL);
    /* What is in the pipe now, and no more: processes left in the group may hold it open and
     * keep writing, so at most what one pipe holds is read. */
    for (int reads = 0; output_open && reads < 16 && pump(output[0]) == 1; reads++) continue;
    /* The child is dead, so its end of the exec-error pipe is closed: this read cannot block. */
    char reason[2 * ERROR_MAX];
    size_t got = 0;
    while (result.reaped && got < sizeof reason) {
        ssize_t r = read(report[0], reason + got, sizeof reason - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += (size_t)r;
    }
    if (got > 0) set_error(reason, got);
    result.started = result.reaped && got == 0;
    if (result.bytes > max_output) {
        char note[160];
        result.cut = 1;
        length = snprintf(note, sizeof note, "\n[herald: output cut: %llu bytes of %llu left out here; the last %llu follow]\n",
                          (unsigned long long)(result.bytes - logged - tail_len), (unsigned long long)result.bytes,
                          (unsigned long long)tail_len);
        if (log_ok && write_all(log_fd, note, (size_t)length) != 0)
            fprintf(stderr, "herald-runner: cannot write %s: %s\n", log_path, strerror(errno));
    }
    /* The ring, oldest byte first (all of the rest when nothing was cut). */
    if (tail_len > 0 && log_ok) {
        size_t first = tail_len < tail_max - tail_at ? tail_len : tail_max - tail_at;
        if (write_all(log_fd, tail_ring + tail_at, first) != 0 || write_all(log_fd, tail_ring, tail_len - first) != 0)
            fprintf(stderr, "herald-runner: cannot write %s: %s\n", log_path, strerror(errno));
    }
    if (close(log_fd) != 0) fprintf(stderr, "herald-runner: cannot write %s: %s\n", log_path, strerror(errno));
    if (write_result() != 0) {
        fprintf(stderr, "herald-runner: cannot write %s: %s\n", result_path, strerror(errno));
        return 1;
    }
    return 0;
}
