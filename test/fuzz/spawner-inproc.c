/*
 * Fuzz target `spawner`: native/hookd-spawner.c run in this process, many cases per process
 * (docs/fuzzing.md).
 *
 * The spawner's source is included here whole (SPAWNER_SOURCE, set by scripts/fuzz-native.sh; its main
 * renamed), so its static functions are called directly: each frame of a case is written into the pipe
 * that is its stdin (fd 0), in one to three chunks, and read_input() is called after each chunk, so at
 * most one frame ends per call and the harness knows which frame the spawner ended on. Between chunks
 * and frames the harness runs the spawner's event loop (pump(): the same poll set as its main loop,
 * commands' pipes, SIGCHLD) for a while, or waits for a command to exit: process exits interleave with
 * the frames. Its stdout (fd 1) is a pipe the checker reads. Unchanged source; only these names are
 * redirected while it is compiled:
 *   exit    returns to the harness (longjmp) with the code: a bad frame is exit 2, as documented
 *   stderr  a memory stream: its message is checked, then dropped
 *   malloc, calloc, realloc, free   tracked, so what a spawner that died held is freed, and memory it
 *           lost while it lives on is found (nothing but its queue may be left once it is idle)
 *   execve  (at link time, --wrap) fake-exec.c: no fuzzed frame ever runs a program
 * A spawner instance lives on across cases until a case ends it (a bad frame, or EOF); once idle it must
 * hold no command, no descriptor and no memory beyond its queue.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fuzz.h"
#include "spawner-model.h"

/* ASan's (gcc ships no header for it). */
size_t __sanitizer_get_allocated_size(const volatile void *p);

#ifndef SPAWNER_SOURCE
#define SPAWNER_SOURCE "../../native/hookd-spawner.c"
#endif

/* ---------------------------------------------------------------- what the spawner's source calls */

static void **g_live;
static size_t g_nlive, g_live_cap;

static void track(void *p) {
    if (g_nlive == g_live_cap) {
        g_live_cap = g_live_cap ? g_live_cap * 2 : 256;
        g_live = realloc(g_live, g_live_cap * sizeof *g_live);
        if (!g_live) abort();
    }
    g_live[g_nlive++] = p;
}

static size_t live_index(void *p) {
    size_t i;
    for (i = g_nlive; i > 0; i--)
        if (g_live[i - 1] == p) return i - 1;
    fz_fail("the spawner freed or resized %p, which it did not allocate", p);
}

static void *sp_malloc(size_t n) {
    void *p = malloc(n);
    if (p) track(p);
    return p;
}

static void *sp_calloc(size_t n, size_t m) {
    void *p = calloc(n, m);
    if (p) track(p);
    return p;
}

static void *sp_realloc(void *p, size_t n) {
    size_t i;
    void *q;
    if (!p) return sp_malloc(n);
    i = live_index(p);
    q = realloc(p, n);
    if (q) g_live[i] = q;
    return q;
}

static void sp_free(void *p) {
    if (p) {
        size_t i = live_index(p);
        g_live[i] = g_live[--g_nlive];
    }
    free(p);
}

static jmp_buf g_end;
static int g_end_armed, g_end_code;
static FILE *g_die_stream;
static char g_die_text[1024];

static void sp_exit(int code) __attribute__((noreturn));
static void sp_exit(int code) {
    if (!g_end_armed) fz_fail("the spawner exited (%d) from code the harness did not call", code);
    g_end_armed = 0;
    g_end_code = code;
    longjmp(g_end, 1);
}

#define malloc sp_malloc
#define calloc sp_calloc
#define realloc sp_realloc
#define free sp_free
#define exit sp_exit
#undef stderr
#define stderr g_die_stream
#define main spawner_main
#include SPAWNER_SOURCE
#undef main
#undef stderr
#undef exit
#undef free
#undef realloc
#undef calloc
#undef malloc

/* ---------------------------------------------------------------- running its functions */

static struct child *g_arg_child;
static int g_arg_stream;
static void call_read_input(void) { read_input(); }
static void call_flush_out(void) { flush_out(); }
static void call_reap(void) { reap(); }
static void call_write_stdin(void) { write_stdin(g_arg_child); }
static void call_read_output(void) { read_output(g_arg_child, g_arg_stream); }

/* Runs one of the spawner's functions: -1 when it returned, else the code it exited with. */
static int guarded(void (*fn)(void)) {
    if (setjmp(g_end)) return g_end_code;
    g_end_armed = 1;
    fn();
    g_end_armed = 0;
    return -1;
}

/* The spawner must not end outside read_input (its stdout is always read here). */
static void must_return(void (*fn)(void), const char *what) {
    int code = guarded(fn);
    if (code >= 0) {
        fflush(g_die_stream);
        fz_fail("the spawner exited (%d) in %s: %s", code, what, g_die_text);
    }
}

/* ---------------------------------------------------------------- one spawner instance */

static struct sp_checker g_chk;
static int g_feed = -1, g_drain = -1, g_alive, g_idle_fds = -1;
static struct sp_frame g_split[SP_MAX_FRAMES];
static unsigned long st_frames[4], st_died, st_eof, st_lived, st_instances, st_waits;
static size_t st_max_live;

static void drain(void) {
    unsigned char buf[65536];
    for (;;) {
        ssize_t n = read(g_drain, buf, sizeof buf);
        if (n > 0) {
            sp_check_bytes(&g_chk, buf, (size_t)n);
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        return;
    }
}

static void set_nonblock(int fd) { (void)set_flag(fd, F_GETFL, F_SETFL, O_NONBLOCK); }

static void inst_start(void) {
    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0) fz_fatal("pipe: %s", strerror(errno));
    if (dup2(in[0], 0) < 0 || dup2(out[1], 1) < 0) fz_fatal("dup2: %s", strerror(errno));
    close(in[0]);
    close(out[1]);
    g_feed = in[1];
    g_drain = out[0];
    set_nonblock(0);
    set_nonblock(1);
    set_nonblock(g_feed);
    set_nonblock(g_drain);
    sp_check_reset(&g_chk);
    fseek(g_die_stream, 0, SEEK_SET);
    memset(g_die_text, 0, sizeof g_die_text);
    /* As its main does before it reads anything. */
    q_frame(HOOKD_SPAWNER_FRAME_HELLO, 0, HELLO_TEXT, strlen(HELLO_TEXT), NULL, 0);
    must_return(call_flush_out, "flush_out");
    drain();
    g_alive = 1;
    st_instances++;
}

static struct pollfd g_pfds[2 + 3 * MAX_CHILDREN];
static struct child *g_owner[2 + 3 * MAX_CHILDREN];
static int g_which[2 + 3 * MAX_CHILDREN];

/* Writes the spawner's queue out and reads it here, until it is empty. */
static void flush_all(void) {
    do {
        must_return(call_flush_out, "flush_out");
        drain();
    } while (g_qlen > 0);
}

/* One turn of the spawner's event loop, as its main runs it (stdin aside: the harness feeds it; its
 * main cannot be called per frame, and the spawner-process target runs that main itself). */
static void pump(int timeout_ms) {
    struct pollfd *pfds = g_pfds;
    struct child **owner = g_owner;
    int *which = g_which;
    size_t n = 0, i;
    int reading, r;
    struct child *c;
    flush_all();
    reading = g_qlen <= OUT_HIGH;
    pfds[n].fd = g_sig[0];
    pfds[n].events = POLLIN;
    owner[n++] = NULL;
    pfds[n].fd = g_drain;
    pfds[n].events = POLLIN;
    owner[n++] = NULL;
    for (c = g_children; c; c = c->next) {
        if (c->in_fd >= 0) {
            pfds[n].fd = c->in_fd;
            pfds[n].events = POLLOUT;
            owner[n] = c;
            which[n++] = -1;
        }
        for (i = 0; i < 2; i++) {
            if (c->out_fd[i] >= 0 && reading) {
                pfds[n].fd = c->out_fd[i];
                pfds[n].events = POLLIN;
                owner[n] = c;
                which[n++] = (int)i;
            }
        }
    }
    do r = poll(pfds, (nfds_t)n, timeout_ms);
    while (r < 0 && errno == EINTR);
    if (r < 0) fz_fatal("poll: %s", strerror(errno));
    for (i = 2; i < n; i++) {
        if (!pfds[i].revents) continue;
        for (c = g_children; c && c != owner[i]; c = c->next) {
        }
        if (!c) continue;
        g_arg_child = c;
        g_arg_stream = which[i];
        if (which[i] < 0) {
            if (c->in_fd == pfds[i].fd) must_return(call_write_stdin, "write_stdin");
        } else if (c->out_fd[which[i]] == pfds[i].fd && g_qlen <= OUT_HIGH) {
            must_return(call_read_output, "read_output");
        }
    }
    if (pfds[0].revents) must_return(call_reap, "reap");
    flush_all();
}

static size_t unreaped(void) {
    size_t n = 0;
    struct child *c;
    for (c = g_children; c; c = c->next) n += !c->reaped;
    return n;
}

/* Runs the loop until one more command was reaped (or none is left). */
static void wait_exit(void) {
    size_t before = unreaped();
    st_waits++;
    while (before > 0 && unreaped() >= before) pump(-1);
}

/* Runs the loop until the spawner is idle: no command, nothing queued, every answer read. */
static void quiesce(void) {
    size_t i;
    int fds;
    while (g_children) pump(-1);
    flush_all();
    /* Every command it forgot got its last frames (sp_check_finish says which did not). */
    sp_check_finish(&g_chk);
    fds = fz_count_fds();
    if (fds != g_idle_fds + 2)
        fz_fail("the idle spawner holds %d descriptors, %d more than when it started", fds, fds - g_idle_fds - 2);
    for (i = 0; i < g_nlive; i++) {
        if (g_live[i] == g_q) continue;
        fz_fail("the idle spawner lost %lu allocation(s), the first of %lu bytes (it holds no command)",
                (unsigned long)(g_nlive - (g_q != NULL)), (unsigned long)__sanitizer_get_allocated_size(g_live[i]));
    }
}

/* Its commands run on to their end, as they do when the spawner dies (stdin at EOF now); what they
 * still print is read here: a sanitizer report of a forked child must not go unseen. A child that
 * ended with the sanitizers' exit code is failed on by the caller, once the checker has shown the part
 * of its report the spawner had already forwarded. */
static int g_child_211;

static void harvest(void) {
    static char err[65536];
    struct child *c;
    size_t n, i, err_len = 0;
    int st;
    for (c = g_children; c; c = c->next) close_fd(&c->in_fd);
    for (;;) {
        n = 0;
        for (c = g_children; c; c = c->next)
            for (i = 0; i < 2; i++)
                if (c->out_fd[i] >= 0) {
                    g_pfds[n].fd = c->out_fd[i];
                    g_pfds[n].events = POLLIN;
                    g_owner[n] = c;
                    g_which[n++] = (int)i;
                }
        if (n == 0) break;
        if (poll(g_pfds, (nfds_t)n, -1) < 0 && errno != EINTR) fz_fatal("poll: %s", strerror(errno));
        for (i = 0; i < n; i++) {
            char buf[4096];
            ssize_t k;
            if (!g_pfds[i].revents) continue;
            k = read(g_pfds[i].fd, buf, sizeof buf);
            if (k < 0 && (errno == EAGAIN || errno == EINTR)) continue;
            if (k <= 0) {
                close_fd(&g_owner[i]->out_fd[g_which[i]]);
                continue;
            }
            if (g_which[i] == 1 && err_len < sizeof err - 1) {
                size_t m = (size_t)k < sizeof err - 1 - err_len ? (size_t)k : sizeof err - 1 - err_len;
                memcpy(err + err_len, buf, m);
                err_len += m;
            }
        }
    }
    err[err_len] = 0;
    if (strstr(err, "Sanitizer") || strstr(err, "runtime error:"))
        fz_fail("a sanitizer report in a forked child of the spawner:\n%s", err);
    while (waitpid(-1, &st, 0) > 0 || errno == EINTR) {
        if (WIFEXITED(st) && WEXITSTATUS(st) == 211) g_child_211 = 1;
        if (WIFEXITED(st) && WEXITSTATUS(st) == FAKE_BAD_STATE)
            fz_fail("a command started in a state it must not:\n%s", err);
    }
}

/* The spawner ended: its commands are run out, what it held freed, its state reset. */
static void inst_end(void) {
    size_t i;
    int fds;
    char buf[64];
    drain();
    harvest();
    sp_check_reset(&g_chk);
    if (g_child_211) fz_fail("a forked child of the spawner ended with the sanitizers' exit code (211)");
    for (i = 0; i < g_nlive; i++) free(g_live[i]);
    if (g_nlive > st_max_live) st_max_live = g_nlive;
    g_nlive = 0;
    g_children = NULL;
    g_nchildren = 0;
    g_held = 0;
    g_q = NULL;
    g_qcap = g_qoff = g_qlen = 0;
    g_hdr_have = 0;
    g_body = NULL;
    g_body_len = g_body_have = 0;
    close(g_feed);
    close(g_drain);
    g_feed = g_drain = -1;
    while (read(g_sig[0], buf, sizeof buf) > 0) {
    }
    g_alive = 0;
    fds = fz_count_fds();
    if (fds != g_idle_fds) fz_fail("%d descriptors are left after the spawner ended, %d before", fds, g_idle_fds);
}

/* Writes bytes into the spawner's stdin (never more than a pipe holds: inputs are small). */
static void feed(const unsigned char *p, size_t n) {
    while (n > 0) {
        ssize_t w = write(g_feed, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) fz_fatal("the harness could not write a chunk into the spawner's stdin");
        p += w;
        n -= (size_t)w;
    }
}

static void ended(int code, int expected, const char *how) {
    fflush(g_die_stream);
    if (code != expected) fz_fail("the spawner %s with exit code %d (not %d): %s", how, code, expected, g_die_text);
}

/* ---------------------------------------------------------------- the target */

static void inproc_init(const struct fz_options *opt) {
    char *argv[] = {(char *)FAKE_PROBE_NAME, NULL}, *envp[] = {NULL};
    struct sigaction sa;
    DIR *d;
    struct dirent *e;
    int fd;
    (void)opt;
    /* 0-2 open, as the spawner's main makes sure: the descriptor counts below start from there. */
    for (fd = 0; fd <= 2; fd++)
        if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", O_RDWR) != fd) fz_fatal("fds 0-2 cannot be opened");
    /* The forked commands check that nothing of the spawner leaks into them: nothing of the harness may. */
    d = opendir("/proc/self/fd");
    while (d && (e = readdir(d)) != NULL) {
        fd = atoi(e->d_name);
        if (e->d_name[0] >= '0' && e->d_name[0] <= '9' && fd > 2 && fd != dirfd(d))
            (void)set_flag(fd, F_GETFD, F_SETFD, FD_CLOEXEC);
    }
    if (d) closedir(d);
    /* Before anything is fuzzed: the spawner's execve is the stub (the same object, the same wrap). */
    if (execve("/nonexistent-hookd-fuzz/" FAKE_PROBE_NAME, argv, envp) != -1 || errno != FAKE_PROBE_ERRNO)
        fz_fatal("execve is not the fuzz stub (build with -Wl,--wrap=execve and fake-exec.c): refusing to run");
    signal(SIGPIPE, SIG_IGN);
    if (pipe_cloexec(g_sig) != 0) fz_fatal("pipe: %s", strerror(errno));
    set_nonblock(g_sig[0]);
    set_nonblock(g_sig[1]);
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigchld;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
    if (sigaction(SIGCHLD, &sa, NULL) != 0) fz_fatal("sigaction: %s", strerror(errno));
    g_die_stream = fmemopen(g_die_text, sizeof g_die_text - 1, "w");
    if (!g_die_stream) fz_fatal("fmemopen: %s", strerror(errno));
    sp_check_init(&g_chk);
    g_idle_fds = fz_count_fds();
}

static void inproc_run(const unsigned char *data, size_t len, struct fz_rng *r) {
    size_t nf = sp_split(data, len, g_split, SP_MAX_FRAMES, 0), k;
    int partial = 0;
    if (!g_alive) inst_start();
    for (k = 0; k < nf; k++) {
        const struct sp_frame *f = &g_split[k];
        int must_end = f->kind == SP_BAD, code = -1;
        size_t at = f->off, cuts[2], ncuts = 0, i;
        st_frames[f->kind]++;
        if (f->kind == SP_PARTIAL) partial = 1;
        /* One to three chunks. */
        if (f->end - f->off > 1 && fz_chance(r, 40)) {
            ncuts = 1 + fz_below(r, 2);
            for (i = 0; i < ncuts; i++) cuts[i] = f->off + 1 + fz_below(r, (uint32_t)(f->end - f->off - 1));
            if (ncuts == 2 && cuts[0] > cuts[1]) {
                size_t t = cuts[0];
                cuts[0] = cuts[1];
                cuts[1] = t;
            }
        }
        for (i = 0; i <= ncuts; i++) {
            size_t to = i < ncuts ? cuts[i] : f->end;
            if (i == ncuts && f->kind == SP_SPAWN) {
                /* What the spawner holds right before it reads the frame's last byte. */
                if (find_id(f->id)) {
                    must_end = 1; /* "the id is in use" */
                } else {
                    /* An id used before: its last frames are read first, none taken for the new one's. */
                    flush_all();
                    sp_check_spawn(&g_chk, f);
                }
            } else if (i == ncuts && f->kind == SP_RELEASE) {
                sp_check_release(&g_chk, f->id);
            }
            feed(data + at, to - at);
            at = to;
            code = guarded(call_read_input);
            if (code >= 0) {
                const char *kind = f->kind == SP_SPAWN ? "a SPAWN" : f->kind == SP_RELEASE ? "a RELEASE" : "cut";
                fflush(g_die_stream);
                if (!must_end || i < ncuts)
                    fz_fail("the spawner ended (exit %d) on frame %lu, which it must take (%s, %lu bytes): %s",
                            code, (unsigned long)k, kind, (unsigned long)(f->end - f->off), g_die_text);
                ended(code, 2, "refused a bad frame");
                if (strncmp(g_die_text, "hookd-spawner: ", 15) != 0 || !strchr(g_die_text, '\n'))
                    fz_fail("the spawner ended on a bad frame without its message on stderr (got \"%s\")",
                            g_die_text);
                if (f->kind == SP_SPAWN && !strstr(g_die_text, "in use"))
                    fz_fail("the spawner refused frame %lu, a valid SPAWN of an id in use, for another reason: %s",
                            (unsigned long)k, g_die_text);
                st_died++;
                inst_end();
                return;
            }
            if (i < ncuts && fz_chance(r, 30)) pump(0);
        }
        if (must_end)
            fz_fail("frame %lu is malformed (%s) but the spawner read on", (unsigned long)k,
                    f->why ? f->why : "its id is in use");
        if (fz_chance(r, 25)) pump(0);
        if (fz_chance(r, 6)) wait_exit();
    }
    if (partial || fz_chance(r, 8)) {
        /* The daemon is gone: EOF. Mid-frame it is exit 2 (no message), else 0. */
        int code;
        if (fz_chance(r, 50)) pump(0);
        close(g_feed);
        g_feed = -1;
        code = guarded(call_read_input);
        ended(code, partial ? 2 : 0, partial ? "read EOF inside a frame" : "read EOF");
        st_eof++;
        inst_end();
        return;
    }
    quiesce();
    st_lived++;
}

static void inproc_finish(void) {
    if (g_alive) {
        close(g_feed);
        g_feed = -1;
        ended(guarded(call_read_input), 0, "read EOF at the end");
        inst_end();
    }
    if (g_nlive) fz_fail("%lu allocations of the spawner are left", (unsigned long)g_nlive);
    free(g_live);
    g_live = NULL;
    sp_check_reset(&g_chk);
    free(g_chk.cmds);
    free(g_chk.pending);
    fclose(g_die_stream);
}

static void inproc_stats(FILE *out) {
    fprintf(out,
            "  frames: %lu SPAWN, %lu RELEASE, %lu bad, %lu cut short; spawners: %lu started, %lu ended on a "
            "bad frame, %lu on EOF, %lu idle checks; commands: %lu ran, %lu failed to start, %lu checked byte "
            "for byte (%lu output bytes); %lu waits for an exit; at most %lu allocations held\n",
            st_frames[SP_SPAWN], st_frames[SP_RELEASE], st_frames[SP_BAD], st_frames[SP_PARTIAL], st_instances,
            st_died, st_eof, st_lived, g_chk.spawned, g_chk.failed, g_chk.verified, g_chk.out_bytes, st_waits,
            (unsigned long)st_max_live);
}

static void inproc_emergency(void) {
    struct child *c;
    for (c = g_children; c; c = c->next)
        if (c->pid > 0 && !c->reaped) kill(-c->pid, SIGKILL);
}

static const struct fz_target spawner_inproc = {
    .name = "spawner",
    .about = "native/hookd-spawner.c in this process: frames fed to read_input, its loop run here",
    .max_len = SP_MAX_INPUT,
    .init = inproc_init,
    .generate = sp_generate,
    .mutate = sp_mutate,
    .run = inproc_run,
    .finish = inproc_finish,
    .stats = inproc_stats,
    .emergency = inproc_emergency,
};

extern const struct fz_target fz_spawner_process;

const struct fz_target *const fz_targets[] = {&spawner_inproc, &fz_spawner_process, NULL};
