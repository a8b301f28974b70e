/* The file system's floor for filing a batch (BENCHMARKS.md, "Intake throughput"): N files of
 * SIZE bytes made in one directory the way heraldd files a batch (an unnamed file in the
 * directory, written, fstat'ed, linked under its name), on THREADS threads, then one sync.
 * Nothing else: no parsing, no engine, no pack. What heraldd cannot beat with one file a job.
 *
 *   cc -O2 -pthread -o /tmp/file-floor scripts/bench/file-floor.c
 *   /tmp/file-floor DIR N [THREADS] [SIZE]      (DIR must not exist; it is left behind)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int dirfd_;
static long total, threads;
static size_t size = 120;

static void *work(void *arg) {
    long k = (long)arg;
    char buf[4096], name[64], proc[64];
    memset(buf, 'x', sizeof buf);
    for (long i = k; i < total; i += threads) {
        int fd = openat(dirfd_, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
        struct stat st;
        if (fd < 0 || write(fd, buf, size) != (ssize_t)size || fstat(fd, &st) != 0) { perror("file"); exit(1); }
        snprintf(name, sizeof name, "job-%ld@1790000000000000.json", i);
        snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
        if (linkat(AT_FDCWD, proc, dirfd_, name, AT_SYMLINK_FOLLOW) != 0) { perror("linkat"); exit(1); }
        close(fd);
    }
    return NULL;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: %s DIR N [THREADS] [SIZE]\n", argv[0]); return 2; }
    total = atol(argv[2]);
    threads = argc > 3 ? atol(argv[3]) : 2;
    if (argc > 4) size = (size_t)atol(argv[4]);
    if (total <= 0 || threads <= 0 || threads > 64 || size > 4096) { fprintf(stderr, "bad arguments\n"); return 2; }
    if (mkdir(argv[1], 0700) != 0) { perror(argv[1]); return 1; }
    dirfd_ = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    double t0 = now();
    pthread_t t[64];
    for (long k = 0; k < threads; k++) pthread_create(&t[k], NULL, work, (void *)k);
    for (long k = 0; k < threads; k++) pthread_join(t[k], NULL);
    double t1 = now();
    sync();
    double t2 = now();
    printf("files=%ld threads=%ld size=%zu create+write+link=%.2fs sync=%.2fs total=%.6fs\n", total, threads, size, t1 - t0, t2 - t1, t2 - t0);
    return 0;
}
