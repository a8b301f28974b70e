#include "herald_argv.h"

#include <stdlib.h>  /* defines __GLIBC__ on glibc */

/*
 * argc and argv for Swift's CommandLine, kept by a constructor (glibc passes them to every
 * .init_array function), so that the standard library's own constructor, which scans
 * /proc/self/maps at every start of a static program, is not linked in (BENCHMARKS.md,
 * "CLI start"). A duplicate definition would fail the link, not misbehave.
 */

#if defined(__GLIBC__) && defined(__linux__)

static int savedArgc;
static char **savedArgv;

static char **overrideArgv;
static int overrideArgc;

/* glibc calls .init_array functions as f(argc, argv, envp). */
__attribute__((constructor)) static void herald_keep_argv(int argc, char **argv, char **envp) {
    (void)envp;
    savedArgc = argc;
    savedArgv = argv;
}

/* The standard library's hook (swift/stdlib/public/CommandLineSupport): argv and its count,
   owned by the process. Same calling convention as the runtime's declaration. */
__attribute__((swiftcall, used, visibility("hidden")))
char **_swift_stdlib_getUnsafeArgvArgc(int *outArgLen) {
    if (overrideArgv) {
        *outArgLen = overrideArgc;
        return overrideArgv;
    }
    *outArgLen = savedArgc;
    return savedArgv;
}

/* For tools that set CommandLine's arguments themselves (the REPL and JIT). */
__attribute__((swiftcall, used, visibility("hidden")))
void _swift_stdlib_overrideUnsafeArgvArgc(char **argv, int argc) {
    overrideArgv = argv;
    overrideArgc = argc;
}

char **herald_argv_for_swift(int *count) { return _swift_stdlib_getUnsafeArgvArgc(count); }
void herald_override_argv_for_swift(char **argv, int argc) { _swift_stdlib_overrideUnsafeArgvArgc(argv, argc); }

#else

char **herald_argv_for_swift(int *count) { *count = 0; return 0; }
void herald_override_argv_for_swift(char **argv, int argc) { (void)argv; (void)argc; }

#endif
