/*
 * What the fuzz targets of the spawner know about its protocol (native/hookd-spawner.c documents it;
 * docs/fuzzing.md): how the spawner splits and judges the daemon's frames, well-formed streams of them,
 * mutations that know their fields, and a checker of everything the spawner sends back.
 *
 * Written from the protocol, not from the spawner's code: a disagreement is a finding on one side.
 */
#ifndef HOOKD_FUZZ_SPAWNER_MODEL_H
#define HOOKD_FUZZ_SPAWNER_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "fake-exec.h"
#include "fuzz.h"

#define SP_HELLO "hookd-spawner 1"
#define SP_MAX_FRAME (48UL * 1024 * 1024)
#define SP_MAX_STRINGS 65536UL
/* The largest frame the spawner sends (an OUT frame of 64 KiB). */
#define SP_MAX_OUT_FRAME (64UL * 1024 + 6)
/* Fuzz inputs stay small: many cases, no pipe ever fills with a whole case. */
#define SP_MAX_INPUT (48 * 1024)
/* Frames of one input the model follows (an input of 9-byte RELEASEs has at most this many). */
#define SP_MAX_FRAMES (SP_MAX_INPUT / 9 + 2)

enum sp_kind {
    SP_SPAWN,   /* a SPAWN the spawner takes (unless its id is in use) */
    SP_RELEASE, /* a RELEASE */
    SP_BAD,     /* the spawner ends with exit code 2 once this frame (or its header) is read */
    SP_PARTIAL  /* the input ends inside this frame */
};

struct sp_frame {
    size_t off, end; /* bytes [off, end) of the input: the header and what the spawner reads of it */
    enum sp_kind kind;
    unsigned char type;
    uint32_t id;
    const char *why; /* SP_BAD: what is wrong */
    /* SP_SPAWN */
    uint32_t argc, envc, inlen;
    const char *path, *cwd, *script; /* script: argv[1], or NULL */
    int has_path_env;                /* a PATH= in its environment */
    const unsigned char *in;         /* its stdin bytes */
};

/* Splits an input as the spawner reads it. Strict: stops after the first SP_BAD frame (the spawner ends
 * there). Lenient (for mutations): goes on past a bad frame whose length is in range. */
size_t sp_split(const unsigned char *d, size_t n, struct sp_frame *f, size_t max, int lenient);

/* A well-formed stream: SPAWNs of the fake command, /bin/true and missing programs, RELEASEs, now and
 * then a frame the spawner must refuse. */
void sp_generate(struct fz_rng *r, struct fz_buf *out);
/* A mutation of one frame's fields (lengths, counts, type, id, a NUL) or of the frames' order. */
void sp_mutate(struct fz_rng *r, struct fz_buf *b);

/* ---------------------------------------------------------------- the checker of what comes back */

struct sp_cmd {
    uint32_t id;
    int released;
    int got_spawned, got_failed, got_exit, ended[2];
    pid_t pid;
    int exit_signaled, exit_code, fail_errno;
    unsigned char *out[2];
    size_t len[2];
    /* What may happen (several may be possible: a PATH search, a cwd the model cannot judge). */
    int may_fake, may_true, may_fail;
    struct fake_expect fake;
};

struct sp_checker {
    struct sp_cmd *cmds;
    size_t n, cap;
    unsigned char *pending;
    size_t pending_len, pending_cap;
    int hello_seen;
    unsigned long spawned, failed, exits, verified, out_bytes;
};

void sp_check_init(struct sp_checker *c);
/* A SPAWN the spawner is about to read (and take). */
void sp_check_spawn(struct sp_checker *c, const struct sp_frame *f);
/* A RELEASE it is about to read: nothing of that command is checked any more. */
void sp_check_release(struct sp_checker *c, uint32_t id);
/* Bytes the spawner wrote on its stdout; a malformed or unexpected frame fails the case. */
void sp_check_bytes(struct sp_checker *c, const unsigned char *p, size_t n);
/* True when every command was answered (SPAWNED or FAILED), and every one not released finished
 * (FAILED, or SPAWNED, EXIT and both EOFs). */
int sp_check_settled(const struct sp_checker *c);
/* The commands that finished did what their program does; then every command is forgotten. */
void sp_check_finish(struct sp_checker *c);
/* Forgets everything (a new spawner instance); the counters stay. */
void sp_check_reset(struct sp_checker *c);
/* The pids of commands that may still run (for cleaning up). */
size_t sp_check_pids(const struct sp_checker *c, pid_t *out, size_t max);

#endif
