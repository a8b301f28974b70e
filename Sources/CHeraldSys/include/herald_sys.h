#ifndef HERALD_SYS_H
#define HERALD_SYS_H

#include <spawn.h>
#include <stdint.h>
#include <sys/types.h>

/* The few Linux calls Swift's Glibc module does not export. */

/// A CLOCK_REALTIME timerfd (non-blocking, close-on-exec) armed far in the future with
/// TFD_TIMER_CANCEL_ON_SET: reading it fails with ECANCELED once the clock is set (a step,
/// an NTP jump, a resume from suspend). Returns the fd, or -1 with errno.
int herald_clock_change_fd(void);

/// Re-arms such a timerfd after it reported a change. Returns 0, or -1 with errno.
int herald_clock_change_rearm(int fd);

/// Reads the timerfd: 1 when the clock was set (ECANCELED), 0 when nothing happened
/// (EAGAIN or an expiry), -1 on another error.
int herald_clock_change_read(int fd);

/// A CLOCK_REALTIME_ALARM timerfd (non-blocking, close-on-exec): one that wakes the machine
/// from suspend. Needs CAP_WAKE_ALARM. Returns the fd, or -1 with errno.
int herald_wake_timer_create(void);

/// Arms it for the absolute wall-clock instant `seconds`.`nanoseconds` (both 0: disarms).
/// Needs CAP_WAKE_ALARM at every call. Returns 0, or -1 with errno.
int herald_wake_timer_arm(int fd, int64_t seconds, int64_t nanoseconds);

/// memmem(3): whether `needle` occurs in `haystack` (1 or 0).
int herald_contains(const void *haystack, size_t haystack_length, const void *needle, size_t needle_length);

/// Returns memory malloc holds but no longer uses to the system (malloc_trim(3)).
void herald_release_free_memory(void);

/* mallopt: at most `arenas` malloc arenas, and blocks of `mmap_threshold` bytes or more mapped
 * on their own (a fixed threshold: glibc's moving one keeps large freed tables in the heap). */
void herald_tune_malloc(int arenas, int mmap_threshold);

/* renameat2(RENAME_NOREPLACE): fails with EEXIST instead of replacing `to`. Returns 0, or -1. */
int herald_rename_noreplace(const char *from, const char *to);

/* renameat2(2): `flags` 0, RENAME_NOREPLACE (1) or RENAME_EXCHANGE (2). Returns 0, or -1 with errno. */
int herald_renameat2(int fromdir, const char *from, int todir, const char *to, unsigned flags);

/* Whether some process has the file open for writing: a read lease (F_SETLEASE F_RDLCK), which
   the kernel refuses while the file has a writer, is taken and given back. 1 or 0. */
int herald_has_writer(int fd);

/* accept4(SOCK_CLOEXEC): a connection from a listening socket, blocking. Returns the fd or -1. */
int herald_accept(int fd);

/* The uid of the process at the other end of a Unix socket (SO_PEERCRED). Returns 0, or -1. */
int herald_peer_uid(int fd, uid_t *uid);

/* posix_spawn_file_actions_addclosefrom_np: the child closes every descriptor from `lowest` on
   (after the file actions before it). Returns 0, or an error number. */
int herald_spawn_close_from(posix_spawn_file_actions_t *actions, int lowest);

/* pipe2(O_CLOEXEC): a pipe no other child inherits. Returns 0, or -1 with errno. */
int herald_pipe_cloexec(int fds[2]);

/* An unnamed regular file in the directory open as `dirfd` (O_TMPFILE, write-only, close-on-exec,
   mode 0600): it has no name until herald_link_unnamed gives it one, and it is gone if the process
   dies first. Returns the fd, or -1 with errno (EOPNOTSUPP, EISDIR or EINVAL where the kernel or
   the file system has no O_TMPFILE). */
int herald_open_unnamed(int dirfd);

/* Gives the unnamed file open as `fd` the name `name` in the directory open as `dirfd`
   (linkat AT_EMPTY_PATH; where the kernel keeps that for privileged callers, through
   /proc/self/fd). Never replaces a name: EEXIST. Returns 0, or -1 with errno. */
int herald_link_unnamed(int fd, int dirfd, const char *name);

/* syncfs(2): writes out the file system holding `fd`. Returns 0, or -1 with errno. */
int herald_syncfs(int fd);

/* pthread_setname_np for the calling thread (at most 15 bytes are kept). Returns 0 or an errno. */
int herald_name_this_thread(const char *name);

#endif
