/*
 * The fuzzed spawner never runs a program a fuzzed frame names (docs/fuzzing.md). Every fuzz build
 * links with `-Wl,--wrap=execve`, so each execve of the spawner lands in __wrap_execve (fake-exec.c):
 *
 *   /bin/true, /usr/bin/true  the real /bin/true, with no argument and an empty environment
 *   .../fuzz-fake             no exec: the fake command below runs in the forked child
 *   .../fuzz-wrap-probe       fails with EXDEV: proves the wrap is in place before anything is fuzzed
 *   .../fuzz-eacces, -enotdir, -eio   fail with that errno
 *   anything else             fails with ENOENT, as a path that does not exist
 *
 * The fake command first checks the state the spawner must start a command in (its own session and
 * group, no blocked signal, default dispositions, pipes on 0-2, every other descriptor close-on-exec),
 * closes what exec would close, then follows its script, argv[1]: letters, each with an optional number:
 *   o<n> / e<n>  write n bytes (a fixed pattern) to stdout / stderr
 *   c            copy stdin to stdout until EOF        r   read stdin to EOF, discarding it
 *   z            close stdout and stderr               x<n> exit n % 64 here
 *   k<n>         kill itself with one of SIGTERM, SIGKILL, SIGINT, SIGHUP (n % 4)
 *   b            go on in the background: fork, the command exits 0 here and a process of its group,
 *                holding its pipes, runs the rest of the script (its output may come after the EXIT)
 * Other bytes are skipped; at most FAKE_MAX_OPS letters count and FAKE_MAX_OUT bytes are written in all.
 * The end of the script is exit 0. fake_expect() computes what a script does, for the checks.
 */
#ifndef HOOKD_FUZZ_FAKE_EXEC_H
#define HOOKD_FUZZ_FAKE_EXEC_H

#include <stddef.h>

#define FAKE_NAME "fuzz-fake"
#define FAKE_PROBE_NAME "fuzz-wrap-probe"
/* The errno of the probe: one a real execve of a missing path never gives. */
#define FAKE_PROBE_ERRNO EXDEV
/* The fake command's exit code when it started in a wrong state (its stderr says which). */
#define FAKE_BAD_STATE 199
#define FAKE_MAX_OPS 32
#define FAKE_MAX_OUT (256 * 1024)

struct fake_expect {
    unsigned char *out[2]; /* stdout, stderr */
    size_t len[2];
    int signaled; /* 1: killed by `code` */
    int code;
    int background; /* a `b`: output may follow the exit */
};

/* What the fake command does with this script and these stdin bytes. */
void fake_expect(const char *script, const unsigned char *in, size_t in_len, struct fake_expect *e);
void fake_expect_free(struct fake_expect *e);

#endif
