#include "herald_argv.h"

#include <stdlib.h>  /* defines __GLIBC__ on glibc */

/*
 * argc and argv for Swift's CommandLine, without the standard library's own way of finding
 * them in a statically linked program.
 *
 * On Linux the Swift runtime finds argv with a static constructor (CommandLine.cpp's
 * ArgvGrabber) that opens /proc/self/maps and sscanf's every line to find the stack, then
 * walks back from environ. In a short command such as `herald remind` that constructor was a
 * seventh of all the instructions the process ran (56,000 of 373,000, callgrind) and about
 * 0.04 ms of its wall time. glibc already hands argc, argv and envp to every function in
 * .init_array, in static and dynamic programs alike, so a constructor here keeps them, and
 * this file defines the two functions CommandLine.cpp would have provided. With these
 * definitions in the link, the linker has no reason to take CommandLine.cpp's object out of
 * libswiftCore.a, so its constructor is not there to run (the release build links the
 * standard library statically; with the shared library, as in debug builds, the library
 * keeps its own and these are merely unused). Were the object pulled in for another symbol,
 * the link would fail on the duplicate definition: loud, not wrong.
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
