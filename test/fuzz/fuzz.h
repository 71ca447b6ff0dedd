/*
 * hookd's sanitizer fuzzing: the generic driver's interface (docs/fuzzing.md).
 *
 * A fuzz program is driver.c plus one target file that lists its targets in `fz_targets`. The driver
 * owns the seed, the case count and time budget, the corpus, the byte-level mutations, the per-case
 * deadline and the failure report (seed, case, saved input, how to replay); a target owns what its
 * inputs mean: it generates well-formed ones, mutates them knowing their structure, and runs one case,
 * calling fz_fail() when something is wrong. Sanitizer reports end the program through the driver's
 * death callback, which prints the same seed and case.
 */
#ifndef HOOKD_FUZZ_H
#define HOOKD_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* A deterministic random source (splitmix64): the same seed gives the same cases. */
struct fz_rng {
    uint64_t s;
};
uint64_t fz_next(struct fz_rng *r);
/* 0 <= result < n (n > 0). */
uint32_t fz_below(struct fz_rng *r, uint32_t n);
/* True `percent` times in 100. */
int fz_chance(struct fz_rng *r, unsigned percent);

/* A growing byte buffer (capped at its owner's max_len by the driver). */
struct fz_buf {
    unsigned char *p;
    size_t len, cap;
};
void fz_put(struct fz_buf *b, const void *p, size_t n);
void fz_put8(struct fz_buf *b, unsigned v);
void fz_put32(struct fz_buf *b, uint32_t v); /* big-endian */
void fz_puts0(struct fz_buf *b, const char *s); /* the string and its NUL */
void fz_set32(unsigned char *p, uint32_t v);
uint32_t fz_get32(const unsigned char *p);

struct fz_options {
    uint64_t seed;
    const char *program; /* --program: the binary a real-process target starts */
    int verbose;
};

struct fz_target {
    const char *name;
    const char *about;
    size_t max_len;
    /* Once, before the first case (may be NULL). */
    void (*init)(const struct fz_options *opt);
    /* A well-formed input from scratch. */
    void (*generate)(struct fz_rng *r, struct fz_buf *out);
    /* A mutation that knows the input's structure (may be NULL: byte-level ones only). */
    void (*mutate)(struct fz_rng *r, struct fz_buf *in);
    /* One case. `r` is the case's own random source (chunking, scheduling). */
    void (*run)(const unsigned char *data, size_t len, struct fz_rng *r);
    /* Once, after the last case: tear down and check what only the end can show (may be NULL). */
    void (*finish)(void);
    /* A line of counters for the summary (may be NULL). */
    void (*stats)(FILE *out);
    /* Async-signal-safe: kill whatever the target started (a failure or a hang ends the run). */
    void (*emergency)(void);
};

/* NULL-terminated, defined by the target file. */
extern const struct fz_target *const fz_targets[];

/* Reports a failure of the current case (seed, case, the input saved for replay) and exits 1. */
void fz_fail(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
/* A driver or set-up problem, not a finding: exits 3. */
void fz_fatal(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
/* The driver's own stdout (a target may take over fd 1). */
extern FILE *fz_out;
/* The driver's pid: code that runs in a forked child can tell it is not the driver. */
extern long fz_driver_pid;
/* How many descriptors this process holds (Linux: /proc/self/fd). */
int fz_count_fds(void);

#endif
