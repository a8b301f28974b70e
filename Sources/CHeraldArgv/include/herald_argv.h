#ifndef HERALD_ARGV_H
#define HERALD_ARGV_H

/* What this library hands Swift's standard library for CommandLine (its
   _swift_stdlib_getUnsafeArgvArgc), for tests: argv as glibc passed it to the program's
   constructors, and its count in *count. NULL with 0 where the runtime's own is used (not
   glibc). See herald_argv.c. */
char **herald_argv_for_swift(int *count);

/* Sets what herald_argv_for_swift returns, as the runtime's _swift_stdlib_overrideUnsafeArgvArgc
   does for the REPL. A NULL argv clears it. For tests. */
void herald_override_argv_for_swift(char **argv, int argc);

#endif
