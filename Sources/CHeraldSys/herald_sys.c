#define _GNU_SOURCE
#include "herald_sys.h"

#include <errno.h>
#include <malloc.h>
#include <sys/timerfd.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <sys/socket.h>
#include <spawn.h>
#include <stdio.h>
#include <pthread.h>
#include <string.h>

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

static int arm(int fd) {
    struct itimerspec spec = {0};
    spec.it_value.tv_sec = (time_t)0x7fffffff;  /* 2038: never fires; only the cancel matters */
    return timerfd_settime(fd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, &spec, NULL);
}

int herald_clock_change_fd(void) {
    int fd = timerfd_create(CLOCK_REALTIME, TFD_NONBLOCK | TFD_CLOEXEC);
    if (fd < 0) return -1;
    if (arm(fd) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

int herald_clock_change_rearm(int fd) { return arm(fd); }

int herald_contains(const void *haystack, size_t haystack_length, const void *needle, size_t needle_length) {
    return memmem(haystack, haystack_length, needle, needle_length) != NULL;
}

int herald_wake_timer_create(void) { return timerfd_create(CLOCK_REALTIME_ALARM, TFD_NONBLOCK | TFD_CLOEXEC); }

int herald_wake_timer_arm(int fd, int64_t seconds, int64_t nanoseconds) {
    struct itimerspec spec = {0};
    spec.it_value.tv_sec = (time_t)seconds;
    spec.it_value.tv_nsec = (long)nanoseconds;
    return timerfd_settime(fd, TFD_TIMER_ABSTIME, &spec, NULL);
}

int herald_clock_change_read(int fd) {
    uint64_t expirations;
    ssize_t n = read(fd, &expirations, sizeof expirations);
    if (n >= 0) return 0;
    if (errno == ECANCELED) return 1;
    if (errno == EAGAIN || errno == EINTR) return 0;
    return -1;
}

void herald_release_free_memory(void) { malloc_trim(0); }

void herald_tune_malloc(int arenas, int mmap_threshold) {
    mallopt(M_ARENA_MAX, arenas);
    mallopt(M_MMAP_THRESHOLD, mmap_threshold);
}

int herald_accept(int fd) {
    return accept4(fd, NULL, NULL, SOCK_CLOEXEC);
}

int herald_peer_uid(int fd, uid_t *uid) {
    struct ucred credentials;
    socklen_t length = sizeof credentials;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
    *uid = credentials.uid;
    return 0;
}

int herald_rename_noreplace(const char *from, const char *to) {
    return (int)syscall(SYS_renameat2, AT_FDCWD, from, AT_FDCWD, to, 1 /* RENAME_NOREPLACE */);
}

int herald_renameat2(int fromdir, const char *from, int todir, const char *to, unsigned flags) {
    return (int)syscall(SYS_renameat2, fromdir, from, todir, to, flags);
}

int herald_has_writer(int fd) {
    if (fcntl(fd, F_SETLEASE, F_RDLCK) != 0) return errno == EAGAIN || errno == EBUSY;
    fcntl(fd, F_SETLEASE, F_UNLCK);
    return 0;
}

int herald_spawn_close_from(posix_spawn_file_actions_t *actions, int lowest) {
    return posix_spawn_file_actions_addclosefrom_np(actions, lowest);
}

int herald_pipe_cloexec(int fds[2]) {
    return pipe2(fds, O_CLOEXEC);
}

int herald_open_unnamed(int dirfd) {
    return openat(dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
}

/* Whether linkat(AT_EMPTY_PATH) was refused once (before Linux 6.10 it needs
   CAP_DAC_READ_SEARCH): from then on the link goes through /proc/self/fd. */
static int empty_path_refused;

int herald_link_unnamed(int fd, int dirfd, const char *name) {
    if (!__atomic_load_n(&empty_path_refused, __ATOMIC_RELAXED)) {
        if (linkat(fd, "", dirfd, name, AT_EMPTY_PATH) == 0) return 0;
        if (errno != ENOENT && errno != EPERM) return -1;
        /* ENOENT is also what a missing directory entry gives: only a refusal of the empty
           path itself switches over, which the /proc way below tells apart. */
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    if (linkat(AT_FDCWD, path, dirfd, name, AT_SYMLINK_FOLLOW) == 0) {
        __atomic_store_n(&empty_path_refused, 1, __ATOMIC_RELAXED);
        return 0;
    }
    return -1;
}

int herald_syncfs(int fd) {
    return syncfs(fd);
}

int herald_name_this_thread(const char *name) {
    char short_name[16];
    strncpy(short_name, name, sizeof short_name - 1);
    short_name[sizeof short_name - 1] = '\0';
    return pthread_setname_np(pthread_self(), short_name);
}
