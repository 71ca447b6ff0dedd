/*
 * hookd's sanitizer fuzzing: the generic driver (docs/fuzzing.md; the interface is fuzz.h).
 *
 *   fuzz-<program> [--target NAME] [--seed N] [--cases N] [--seconds S] [--corpus DIR]...
 *                  [--crash-dir DIR] [--case-timeout S] [--program PATH] [--replay FILE --case K] [-v]
 *                  [--replay-hint OPTIONS]
 *
 * Case k of seed s is a pure function of (s, k): its input (a corpus seed as is, a fresh generated one,
 * or either with 1 to 4 mutations) and its own random source for the target's scheduling. So
 * `--seed s --cases k+1` replays a run exactly, and `--replay <saved input> --seed s --case k` replays
 * one case. Each case runs under a deadline (SIGALRM): a case that outlives it is reported as a hang.
 * --seconds stops starting new cases once the budget is spent (printed; a budget, not a verdict).
 *
 * Exit codes: 0 no failure, 1 a failure (printed with its seed and case; the input saved), 2 a usage
 * error, 3 a set-up problem. A sanitizer report ends the program with 211 after the same failure header.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sanitizer/common_interface_defs.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fuzz.h"

FILE *fz_out;
long fz_driver_pid;

static const struct fz_target *g_target;
static struct fz_options g_opt;
static unsigned long g_case;
static const unsigned char *g_input;
static size_t g_input_len;
static const char *g_crash_dir = ".";
static unsigned g_case_timeout = 60;
static const char *g_replay_hint = ""; /* more options for the replay lines (the script's --out...) */
/* Written before each case, so the signal-time reports need no formatting. */
static char g_header[256];
static char g_crash_path[1024];
static char g_replay[8192];

/* ---------------------------------------------------------------- random source and buffers */

uint64_t fz_next(struct fz_rng *r) {
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

uint32_t fz_below(struct fz_rng *r, uint32_t n) { return (uint32_t)((fz_next(r) >> 32) % n); }

int fz_chance(struct fz_rng *r, unsigned percent) { return fz_below(r, 100) < percent; }

static void buf_reserve(struct fz_buf *b, size_t more) {
    size_t cap = b->cap ? b->cap : 256;
    unsigned char *p;
    if (b->len + more <= b->cap) return;
    while (cap < b->len + more) cap *= 2;
    p = realloc(b->p, cap);
    if (!p) fz_fatal("out of memory");
    b->p = p;
    b->cap = cap;
}

void fz_put(struct fz_buf *b, const void *p, size_t n) {
    buf_reserve(b, n);
    if (n) memcpy(b->p + b->len, p, n);
    b->len += n;
}

void fz_put8(struct fz_buf *b, unsigned v) {
    unsigned char c = (unsigned char)v;
    fz_put(b, &c, 1);
}

void fz_set32(unsigned char *p, uint32_t v) {
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

uint32_t fz_get32(const unsigned char *p) {
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

void fz_put32(struct fz_buf *b, uint32_t v) {
    unsigned char c[4];
    fz_set32(c, v);
    fz_put(b, c, 4);
}

void fz_puts0(struct fz_buf *b, const char *s) { fz_put(b, s, strlen(s) + 1); }

int fz_count_fds(void) {
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    int n = 0;
    if (!d) fz_fatal("/proc/self/fd: %s", strerror(errno));
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.') n++;
    closedir(d);
    return n - 1; /* the directory's own */
}

/* ---------------------------------------------------------------- failures */

static void write_str(int fd, const char *s) {
    size_t n = strlen(s);
    while (n > 0) {
        ssize_t w = write(fd, s, n);
        if (w <= 0) return;
        s += w;
        n -= (size_t)w;
    }
}

/* Async-signal-safe: saves the current input where g_crash_path says. */
static void save_input(void) {
    int fd;
    size_t off = 0;
    if (!g_input) return;
    fd = open(g_crash_path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        write_str(2, "  (the input could not be saved)\n");
        return;
    }
    while (off < g_input_len) {
        ssize_t w = write(fd, g_input + off, g_input_len - off);
        if (w <= 0) break;
        off += (size_t)w;
    }
    close(fd);
}

/* Async-signal-safe: the failure header, the saved input, the replay lines. */
static void report(const char *what) {
    write_str(2, g_header);
    write_str(2, what);
    write_str(2, "\n");
    if (g_input) {
        save_input();
        write_str(2, g_replay);
    }
}

void fz_fail(const char *fmt, ...) {
    char msg[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (fz_out) fflush(fz_out);
    if (g_target && g_target->emergency && getpid() == fz_driver_pid) g_target->emergency();
    report(msg);
    exit(1);
}

void fz_fatal(const char *fmt, ...) {
    va_list ap;
    fputs("fuzz: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    if (g_target && g_target->emergency && getpid() == fz_driver_pid) g_target->emergency();
    exit(3);
}

static void on_alarm(int sig) {
    (void)sig;
    if (g_target && g_target->emergency) g_target->emergency();
    report("the case outlived its deadline (--case-timeout): a hang");
    _exit(1);
}

/* A sanitizer report was printed and the program ends: say which case it was. A process forked by a
 * target (the spawner's commands) is left to its parent, which sees it die. */
static void on_sanitizer_death(void) {
    if (getpid() != fz_driver_pid) return;
    if (g_target && g_target->emergency) g_target->emergency();
    report("a sanitizer report (above) ended the run");
}

static void case_texts(void) {
    snprintf(g_header, sizeof g_header, "\nFUZZ FAILURE: target %s, seed %llu, case %lu: ", g_target->name,
             (unsigned long long)g_opt.seed, g_case);
    snprintf(g_crash_path, sizeof g_crash_path, "%s/crash-%s-%llu-%lu.bin", g_crash_dir, g_target->name,
             (unsigned long long)g_opt.seed, g_case);
    snprintf(g_replay, sizeof g_replay,
             "  input (%lu bytes) saved to %s\n"
             "  replay the case: scripts/fuzz-native.sh %s --seed %llu --replay %s --case %lu%s\n"
             "  replay the run:  scripts/fuzz-native.sh %s --seed %llu --cases %lu%s\n",
             (unsigned long)g_input_len, g_crash_path, g_target->name, (unsigned long long)g_opt.seed,
             g_crash_path, g_case, g_replay_hint, g_target->name, (unsigned long long)g_opt.seed, g_case + 1,
             g_replay_hint);
}

/* ---------------------------------------------------------------- inputs */

struct input {
    unsigned char *p;
    size_t len;
    char *name;
};

static int read_file(const char *path, size_t max, struct fz_buf *out) {
    FILE *f = fopen(path, "rb");
    unsigned char chunk[4096];
    size_t n;
    if (!f) return -1;
    out->len = 0;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0 && out->len < max)
        fz_put(out, chunk, n < max - out->len ? n : max - out->len);
    fclose(f);
    return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b) {
    return strcmp((*a)->d_name, (*b)->d_name);
}

static void load_corpus(const char *dir, struct input **list, size_t *n) {
    struct dirent **names;
    int count = scandir(dir, &names, NULL, by_name), i;
    if (count < 0) fz_fatal("corpus %s: %s", dir, strerror(errno));
    for (i = 0; i < count; i++) {
        char path[4096];
        struct stat st;
        struct fz_buf b = {0};
        snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
        if (names[i]->d_name[0] != '.' && stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
            read_file(path, g_target->max_len, &b) == 0) {
            *list = realloc(*list, (*n + 1) * sizeof **list);
            if (!*list) fz_fatal("out of memory");
            (*list)[*n].p = b.p;
            (*list)[*n].len = b.len;
            (*list)[*n].name = strdup(names[i]->d_name);
            (*n)++;
        }
        free(names[i]);
    }
    free(names);
}

/* 32-bit values that sit on the edges of lengths and counts. */
static uint32_t interesting32(struct fz_rng *r, size_t len) {
    static const uint32_t fixed[] = {0,          1,          4,          5,          8,       12,
                                     13,         0x7f,       0x80,       0xff,       0x100,   0xffff,
                                     0x10000,    0x10001,    0x7fffffff, 0x80000000, 0xfffffffe,
                                     0xffffffff, 0x3000000,  0x3000001,  0x2ffffff};
    switch (fz_below(r, 3)) {
    case 0:
        return (uint32_t)len + fz_below(r, 5) - 2;
    case 1:
        return fz_below(r, 64);
    default:
        return fixed[fz_below(r, sizeof fixed / sizeof fixed[0])];
    }
}

/* One byte-level mutation. */
static void mutate_bytes(struct fz_rng *r, struct fz_buf *b, const struct input *other) {
    size_t at;
    if (b->len == 0) {
        fz_put8(b, (unsigned)fz_next(r));
        return;
    }
    at = fz_below(r, (uint32_t)b->len);
    switch (fz_below(r, 10)) {
    case 0: /* a bit */
        b->p[at] ^= (unsigned char)(1u << fz_below(r, 8));
        break;
    case 1: { /* an interesting byte */
        static const unsigned char bytes[] = {0, 1, 0x7f, 0x80, 0xff, 'S', 'R', 'H', '/', '='};
        b->p[at] = bytes[fz_below(r, sizeof bytes)];
        break;
    }
    case 2: /* a 32-bit field */
        if (b->len >= 4) fz_set32(b->p + fz_below(r, (uint32_t)b->len - 3), interesting32(r, b->len));
        break;
    case 3: { /* insert random bytes */
        size_t n = 1 + fz_below(r, 16), i;
        unsigned char tmp[16];
        for (i = 0; i < n; i++) tmp[i] = (unsigned char)fz_next(r);
        fz_put(b, tmp, n);
        memmove(b->p + at + n, b->p + at, b->len - n - at);
        memcpy(b->p + at, tmp, n);
        break;
    }
    case 4: { /* delete a range */
        size_t n = 1 + fz_below(r, (uint32_t)(b->len - at < 64 ? b->len - at : 64));
        memmove(b->p + at, b->p + at + n, b->len - at - n);
        b->len -= n;
        break;
    }
    case 5: { /* duplicate a range */
        size_t n = 1 + fz_below(r, (uint32_t)(b->len - at < 256 ? b->len - at : 256));
        buf_reserve(b, n);
        memmove(b->p + at + n, b->p + at, b->len - at);
        b->len += n;
        break;
    }
    case 6: /* truncate */
        b->len = at;
        break;
    case 7: /* splice: this one's head, the other's tail */
        if (other && other->len) {
            size_t from = fz_below(r, (uint32_t)other->len);
            b->len = at;
            fz_put(b, other->p + from, other->len - from);
        }
        break;
    case 8: { /* a NUL byte gone, or one more */
        void *nul = memchr(b->p + at, 0, b->len - at);
        if (nul) {
            size_t k = (size_t)((unsigned char *)nul - b->p);
            memmove(b->p + k, b->p + k + 1, b->len - k - 1);
            b->len--;
        } else {
            b->p[at] = 0;
        }
        break;
    }
    default: /* a run of one byte */
        memset(b->p + at, (int)fz_below(r, 256), b->len - at < 8 ? b->len - at : 8);
        break;
    }
}

/* ---------------------------------------------------------------- main */

static void usage(void) {
    size_t i;
    fprintf(stderr,
            "usage: fuzz [--target NAME] [--seed N] [--cases N] [--seconds S] [--corpus DIR]...\n"
            "            [--crash-dir DIR] [--case-timeout S] [--program PATH] [-v]\n"
            "            [--replay FILE [--case K]] [--replay-hint OPTIONS]\n"
            "targets:\n");
    for (i = 0; fz_targets[i]; i++) fprintf(stderr, "  %-16s %s\n", fz_targets[i]->name, fz_targets[i]->about);
    exit(2);
}

static unsigned long long number(const char *s, const char *what) {
    char *end;
    unsigned long long v;
    errno = 0;
    v = strtoull(s ? s : "", &end, 10);
    if (!s || !*s || *end || errno) {
        fprintf(stderr, "fuzz: %s needs a number (got %s)\n", what, s ? s : "nothing");
        exit(2);
    }
    return v;
}

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    const char *corpus_dirs[16], *target_name = NULL, *replay = NULL;
    size_t ncorpus_dirs = 0, ncorpus = 0, i;
    struct input *corpus = NULL;
    unsigned long cases = 1000, replay_case = 0, done = 0;
    double seconds = 0, start;
    int have_seed = 0, out_fd, a;
    struct fz_buf cur = {0}, other = {0};
    struct sigaction sa;

    for (a = 1; a < argc; a++) {
        const char *o = argv[a], *v = a + 1 < argc ? argv[a + 1] : NULL;
        if (!strcmp(o, "--target")) target_name = v, a++;
        else if (!strcmp(o, "--seed")) g_opt.seed = number(v, o), have_seed = 1, a++;
        else if (!strcmp(o, "--cases")) cases = (unsigned long)number(v, o), a++;
        else if (!strcmp(o, "--seconds")) seconds = (double)number(v, o), a++;
        else if (!strcmp(o, "--case-timeout")) g_case_timeout = (unsigned)number(v, o), a++;
        else if (!strcmp(o, "--case")) replay_case = (unsigned long)number(v, o), a++;
        else if (!strcmp(o, "--corpus") && v && ncorpus_dirs < 16) corpus_dirs[ncorpus_dirs++] = v, a++;
        else if (!strcmp(o, "--crash-dir") && v) g_crash_dir = v, a++;
        else if (!strcmp(o, "--program") && v) g_opt.program = v, a++;
        else if (!strcmp(o, "--replay") && v) replay = v, a++;
        else if (!strcmp(o, "--replay-hint") && v) g_replay_hint = v, a++;
        else if (!strcmp(o, "-v")) g_opt.verbose = 1;
        else usage();
    }
    for (i = 0; fz_targets[i]; i++)
        if (!target_name || !strcmp(target_name, fz_targets[i]->name)) break;
    if (!fz_targets[i]) usage();
    g_target = fz_targets[i];
    if (!have_seed) g_opt.seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
    if (g_case_timeout == 0) g_case_timeout = 1;

    /* A target may take fd 1 over (the in-process spawner writes its frames there). */
    out_fd = fcntl(1, F_DUPFD_CLOEXEC, 3);
    fz_out = out_fd >= 0 ? fdopen(out_fd, "w") : NULL;
    if (!fz_out) fz_fatal("stdout: %s", strerror(errno));
    setvbuf(fz_out, NULL, _IOLBF, 0);
    fz_driver_pid = (long)getpid();
    __sanitizer_set_death_callback(on_sanitizer_death);
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);

    snprintf(g_header, sizeof g_header, "\nFUZZ FAILURE: target %s, seed %llu, while setting up: ", g_target->name,
             (unsigned long long)g_opt.seed);
    for (i = 0; i < ncorpus_dirs; i++) load_corpus(corpus_dirs[i], &corpus, &ncorpus);
    if (g_target->init) g_target->init(&g_opt);

    if (replay) {
        struct fz_rng r;
        if (read_file(replay, g_target->max_len, &cur) != 0) fz_fatal("%s: %s", replay, strerror(errno));
        g_case = replay_case;
        r.s = g_opt.seed ^ (0x5851f42d4c957f2dULL * (g_case + 1));
        g_input = cur.p;
        g_input_len = cur.len;
        case_texts();
        fprintf(fz_out, "fuzz %s: replaying %s (%lu bytes) as case %lu of seed %llu\n", g_target->name, replay,
                (unsigned long)cur.len, g_case, (unsigned long long)g_opt.seed);
        alarm(g_case_timeout);
        g_target->run(cur.p, cur.len, &r);
        alarm(0);
        if (g_target->finish) g_target->finish();
        fprintf(fz_out, "fuzz %s: the case passed\n", g_target->name);
        return 0;
    }

    fprintf(fz_out, "fuzz %s: seed %llu, up to %lu cases", g_target->name, (unsigned long long)g_opt.seed, cases);
    if (seconds > 0) fprintf(fz_out, " or %.0f s", seconds);
    fprintf(fz_out, ", %lu corpus inputs, a deadline of %u s per case\n", (unsigned long)ncorpus, g_case_timeout);
    start = now_s();
    for (g_case = 0; g_case < cases; g_case++) {
        struct fz_rng r;
        unsigned pick, muts, m;
        if (seconds > 0 && now_s() - start >= seconds) break;
        r.s = g_opt.seed ^ (0x5851f42d4c957f2dULL * (g_case + 1));
        cur.len = 0;
        pick = fz_below(&r, 100);
        if (g_case < ncorpus) {
            /* Every corpus input runs once as it is. */
            fz_put(&cur, corpus[g_case].p, corpus[g_case].len);
            muts = 0;
        } else {
            if (ncorpus > 0 && pick < 45) {
                const struct input *c = &corpus[fz_below(&r, (uint32_t)ncorpus)];
                fz_put(&cur, c->p, c->len);
            } else {
                g_target->generate(&r, &cur);
            }
            muts = fz_chance(&r, 30) ? 0 : 1 + fz_below(&r, 4);
        }
        for (m = 0; m < muts; m++) {
            if (g_target->mutate && fz_chance(&r, 50)) {
                g_target->mutate(&r, &cur);
            } else {
                struct input o = {0};
                if (fz_chance(&r, 30)) {
                    other.len = 0;
                    if (ncorpus > 0 && fz_chance(&r, 50)) {
                        const struct input *c = &corpus[fz_below(&r, (uint32_t)ncorpus)];
                        fz_put(&other, c->p, c->len);
                    } else {
                        g_target->generate(&r, &other);
                    }
                    o.p = other.p;
                    o.len = other.len;
                }
                mutate_bytes(&r, &cur, o.p ? &o : NULL);
            }
            if (cur.len > g_target->max_len) cur.len = g_target->max_len;
        }
        g_input = cur.p;
        g_input_len = cur.len;
        case_texts();
        if (g_opt.verbose) fprintf(fz_out, "case %lu: %lu bytes\n", g_case, (unsigned long)cur.len);
        alarm(g_case_timeout);
        g_target->run(cur.p, cur.len, &r);
        alarm(0);
        done++;
    }
    g_input = NULL;
    if (g_target->finish) g_target->finish();
    {
        double took = now_s() - start;
        fprintf(fz_out, "fuzz %s: %lu cases in %.1f s (%.0f/s), no failure", g_target->name, done, took,
                took > 0 ? (double)done / took : 0.0);
        if (done < cases) fprintf(fz_out, "; stopped at the time budget of %.0f s", seconds);
        fputc('\n', fz_out);
        if (g_target->stats) g_target->stats(fz_out);
    }
    for (i = 0; i < ncorpus; i++) {
        free(corpus[i].p);
        free(corpus[i].name);
    }
    free(corpus);
    free(cur.p);
    free(other.p);
    return 0;
}
