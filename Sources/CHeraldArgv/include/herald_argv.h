#ifndef HERALD_ARGV_H
#define HERALD_ARGV_H

/* The process's argc and argv as glibc handed them to the program's constructors, or 0 and
   NULL before that (or on a C library that does not pass them). See herald_argv.c. */
int herald_argc(void);
char **herald_argv(void);

/* What this library hands Swift's standard library for CommandLine (its
   _swift_stdlib_getUnsafeArgvArgc), for tests: argv, and its count in *count. NULL with 0 where
   the runtime's own is used (not glibc). */
char **herald_argv_for_swift(int *count);

/* Sets what herald_argv_for_swift returns, as the runtime's _swift_stdlib_overrideUnsafeArgvArgc
   does for the REPL. A NULL argv clears it. For tests. */
void herald_override_argv_for_swift(char **argv, int argc);

#endif
