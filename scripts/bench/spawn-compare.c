/* Compares how long builds of `herald` take for `herald remind --spool DIR --in 2d x`: each
 * program given is run N times, interleaved (the order rotates each round), from posix_spawn
 * to waitpid, output to /dev/null; prints each one's median and 10th percentile. BENCHMARKS.md,
 * "Installed size", used it for the static, dynamic and PIE links of herald.
 *
 *   cc -O2 -o /tmp/spawn-compare scripts/bench/spawn-compare.c
 *   /tmp/spawn-compare 300 DIR ./herald-static ./herald-pie ...
 */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>

extern char **environ;

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: spawn-compare RUNS SPOOL HERALD...\n");
        return 64;
    }
    int runs = atoi(argv[1]);
    char *spool = argv[2];
    int programs = argc - 3;
    if (runs < 1) return 64;
    double *times = malloc(sizeof(double) * runs * programs);
    if (!times) return 1;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    for (int i = 0; i < runs; i++) {
        for (int j = 0; j < programs; j++) {
            int which = (i + j) % programs;  /* who goes first rotates */
            char *args[] = {argv[3 + which], "remind", "--spool", spool, "--in", "2d", "x", NULL};
            double start = now_ms();
            pid_t pid;
            if (posix_spawn(&pid, args[0], &actions, NULL, args, environ) != 0) { perror(args[0]); return 1; }
            int status;
            waitpid(pid, &status, 0);
            times[which * runs + i] = now_ms() - start;
        }
    }
    for (int j = 0; j < programs; j++) {
        qsort(times + j * runs, runs, sizeof(double), by_value);
        printf("%-40s median %.3f ms  p10 %.3f ms\n", argv[3 + j], times[j * runs + runs / 2], times[j * runs + runs / 10]);
    }
    return 0;
}
