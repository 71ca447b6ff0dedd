/*
 * Fuzz target `spawner-process`: the real spawner program (--program: native/hookd-spawner.c built
 * unchanged with the sanitizers and the execve stub, fake-exec.c), started as the daemon starts it: its
 * own session, cwd /, an empty environment, frames on its stdin (docs/fuzzing.md).
 *
 * Slower than `spawner` (a process per spawner instance) and run on fewer cases: it covers what the
 * in-process target cannot, the spawner's own main loop (its poll set, stdin and stdout non-blocking,
 * the frames written in arbitrary chunks across frame boundaries, EOF as POLLHUP) and its real exit.
 * An instance lives on across cases until a case ends it. Checks: the same checker of its answers; a
 * bad frame ends it with exit 2 and its message on stderr; EOF with exit 0 (inside a frame, 0 or 2:
 * the spawner may see the hang-up before the last bytes); nothing from a sanitizer on its stderr or
 * its commands'; once idle it holds 5 descriptors (0-2 and its signal pipe).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fuzz.h"
#include "spawner-model.h"

/* The one real exec of the fuzz program (every execve here is the stub: --wrap). */
int __real_execve(const char *path, char *const argv[], char *const envp[]);

static const char *g_program;
static pid_t g_pid = -1;
static int g_in = -1, g_out = -1, g_err = -1, g_status = -1;
static struct sp_checker g_chk;
static char g_errtext[16384];
static size_t g_errlen;
static struct sp_frame g_split[SP_MAX_FRAMES];
static unsigned long st_instances, st_died, st_eof, st_lived, st_frames[4], st_cut_exit[2];

static void set_nonblock(int fd) {
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0) fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static void proc_start(void) {
    int in[2], out[2], err[2];
    if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC)) fz_fatal("pipe: %s", strerror(errno));
    g_pid = fork();
    if (g_pid < 0) fz_fatal("fork: %s", strerror(errno));
    if (g_pid == 0) {
        char *argv[] = {(char *)g_program, NULL}, *envp[] = {NULL};
        if (dup2(in[0], 0) < 0 || dup2(out[1], 1) < 0 || dup2(err[1], 2) < 0) _exit(126);
        (void)setsid();
        if (chdir("/") != 0) _exit(126);
        __real_execve(g_program, argv, envp);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    close(err[1]);
    g_in = in[1];
    g_out = out[0];
    g_err = err[0];
    set_nonblock(g_in);
    set_nonblock(g_out);
    set_nonblock(g_err);
    g_errlen = 0;
    g_errtext[0] = 0;
    sp_check_reset(&g_chk);
    st_instances++;
}

/* A command (or a background process of one) the spawner left behind, reaped here. */
static void orphan_ended(int st) {
    if (WIFEXITED(st) && WEXITSTATUS(st) == 211)
        fz_fail("a forked child of the spawner ended with the sanitizers' exit code (211)");
    if (WIFEXITED(st) && WEXITSTATUS(st) == FAKE_BAD_STATE) fz_fail("a command started in a state it must not");
}

/* Reads what the spawner wrote on stdout and stderr; 1 while its stdout is open. */
static int collect(int timeout_ms) {
    struct pollfd p[2];
    unsigned char buf[65536];
    int open_out = g_out >= 0, r, st;
    pid_t pid;
    p[0].fd = g_out;
    p[0].events = POLLIN;
    p[1].fd = g_err;
    p[1].events = POLLIN;
    do r = poll(p, 2, timeout_ms);
    while (r < 0 && errno == EINTR);
    /* Background processes of commands end up here (a subreaper): reaped as they end. */
    while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
        if (pid == g_pid) g_status = st;
        else orphan_ended(st);
    }
    for (;;) {
        ssize_t n = g_out >= 0 ? read(g_out, buf, sizeof buf) : -1;
        if (n > 0) {
            sp_check_bytes(&g_chk, buf, (size_t)n);
            continue;
        }
        if (n == 0) {
            close(g_out);
            g_out = -1;
            open_out = 0;
        }
        break;
    }
    for (;;) {
        ssize_t n = g_err >= 0 ? read(g_err, buf, sizeof buf) : -1;
        if (n > 0) {
            size_t k = (size_t)n < sizeof g_errtext - 1 - g_errlen ? (size_t)n : sizeof g_errtext - 1 - g_errlen;
            memcpy(g_errtext + g_errlen, buf, k);
            g_errlen += k;
            g_errtext[g_errlen] = 0;
            continue;
        }
        if (n == 0) {
            close(g_err);
            g_err = -1;
        }
        break;
    }
    return open_out;
}

static void no_sanitizer_report(void) {
    if (strstr(g_errtext, "Sanitizer") || strstr(g_errtext, "runtime error:"))
        fz_fail("a sanitizer report from the spawner:\n%s", g_errtext);
}

/* Waits for the spawner's end; the end is checked against what the case expects. */
static int proc_end(int code_a, int code_b, const char *how) {
    int st = 0, code;
    if (g_in >= 0) close(g_in);
    g_in = -1;
    while (g_out >= 0 || g_err >= 0) collect(-1);
    if (g_status >= 0) st = g_status;
    else
        while (waitpid(g_pid, &st, 0) < 0 && errno == EINTR) {
        }
    g_pid = -1;
    g_status = -1;
    no_sanitizer_report();
    if (!WIFEXITED(st) || (WEXITSTATUS(st) != code_a && WEXITSTATUS(st) != code_b))
        fz_fail("the spawner %s: %s %d (expected exit %d), stderr: %s", how, WIFEXITED(st) ? "exit" : "signal",
                WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st), code_a, g_errtext);
    if (WEXITSTATUS(st) == 2 && code_a == 2 && code_b == 2 &&
        (strncmp(g_errtext, "hookd-spawner: ", 15) != 0 || !strchr(g_errtext, '\n')))
        fz_fail("the spawner ended on a bad frame without its message on stderr (got \"%s\")", g_errtext);
    if (WEXITSTATUS(st) == 0 && g_errlen > 0)
        fz_fail("the spawner %s with exit 0 but wrote on stderr: %s", how, g_errtext);
    /* Its commands are this process's now (a subreaper): they end on their own (stdin at EOF). */
    code = WEXITSTATUS(st);
    while (waitpid(-1, &st, 0) > 0 || errno == EINTR) orphan_ended(st);
    sp_check_reset(&g_chk);
    return code;
}

/* Writes bytes into its stdin while reading what it answers; 0 if it ended meanwhile. */
static int feed(const unsigned char *p, size_t n) {
    while (n > 0) {
        ssize_t w = write(g_in, p, n);
        if (w > 0) {
            p += w;
            n -= (size_t)w;
            continue;
        }
        if (w < 0 && errno == EINTR) continue;
        if (w < 0 && errno != EAGAIN) return 0; /* EPIPE: it ended */
        if (!collect(20)) return 0;
    }
    return 1;
}

static int fd_count(pid_t pid) {
    char path[64];
    DIR *d;
    struct dirent *e;
    int n = 0;
    snprintf(path, sizeof path, "/proc/%ld/fd", (long)pid);
    d = opendir(path);
    if (!d) return -1;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.') n++;
    closedir(d);
    return n;
}

#define PROBE_PATH "/nonexistent-hookd-fuzz/" FAKE_PROBE_NAME

/* A SPAWN the stub fails with its own errno: the proof that the program is a fuzz build, and a barrier
 * (its FAILED comes after every frame the spawner queued for the frames before it). */
static void send_probe(void) {
    static const unsigned char tail[] = "/\0" FAKE_NAME "\0";
    struct fz_buf b = {0};
    struct sp_frame f = {0};
    uint32_t id = 0xfffffff0u;
    size_t i;
    for (i = 0; i < g_chk.n; i++)
        if (g_chk.cmds[i].id == id) id++, i = (size_t)-1;
    fz_put32(&b, 0);
    fz_put8(&b, 'S');
    fz_put32(&b, id);
    fz_put32(&b, 1); /* argc */
    fz_put32(&b, 0); /* envc */
    fz_put32(&b, 0); /* stdin */
    fz_puts0(&b, PROBE_PATH);
    fz_put(&b, tail, sizeof tail - 1);
    fz_set32(b.p, (uint32_t)(b.len - 4));
    f.id = id;
    f.path = PROBE_PATH;
    f.cwd = "/";
    sp_check_spawn(&g_chk, &f);
    if (!feed(b.p, b.len)) fz_fail("the spawner ended on the probe: %s", g_errtext);
    free(b.p);
    for (i = 0; i < g_chk.n && g_chk.cmds[i].id != id; i++) {
    }
    while (!g_chk.cmds[i].got_failed && !g_chk.cmds[i].got_spawned)
        if (!collect(-1)) fz_fail("the spawner ended on the probe: %s", g_errtext);
    if (g_chk.cmds[i].fail_errno != FAKE_PROBE_ERRNO)
        fz_fatal("%s did not fail the execve probe with the stub's errno: it is not a fuzz build (it may "
                 "run what a frame names): refusing to go on", g_program);
}

/* The spawner is idle: every command it was not told to forget finished, every one it was told to
 * forget was reaped (its id is free again), and it holds 0-2 and its signal pipe only (a command it
 * forgot is closed at once). */
static void settle(void) {
    size_t i;
    while (!sp_check_settled(&g_chk))
        if (!collect(-1)) fz_fail("the spawner ended while commands ran: %s", g_errtext);
    send_probe();
    for (i = 0; i < g_chk.n; i++) {
        char proc[64];
        if (!g_chk.cmds[i].released || !g_chk.cmds[i].got_spawned) continue;
        snprintf(proc, sizeof proc, "/proc/%ld", (long)g_chk.cmds[i].pid);
        while (access(proc, F_OK) == 0)
            if (!collect(10)) fz_fail("the spawner ended while idle: %s", g_errtext);
    }
    while (fd_count(g_pid) != 5)
        if (!collect(10)) fz_fail("the spawner ended while idle: %s", g_errtext);
    collect(0);
    sp_check_finish(&g_chk);
}

static void proc_init(const struct fz_options *opt) {
    static char path[PATH_MAX];
    if (!opt->program) fz_fatal("spawner-process needs --program (the spawner built for fuzzing)");
    /* It starts in /, as the daemon starts it. */
    if (!realpath(opt->program, path)) fz_fatal("%s: %s", opt->program, strerror(errno));
    g_program = path;
    signal(SIGPIPE, SIG_IGN);
    if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) fz_fatal("prctl: %s", strerror(errno));
    sp_check_init(&g_chk);
    /* Before anything is fuzzed. */
    proc_start();
    send_probe();
    proc_end(0, 0, "read EOF after the probe");
}

static void proc_run(const unsigned char *data, size_t len, struct fz_rng *r) {
    size_t nf = sp_split(data, len, g_split, SP_MAX_FRAMES, 0), k, from = 0;
    int partial = nf > 0 && g_split[nf - 1].kind == SP_PARTIAL;
    if (g_pid < 0) proc_start();
    for (k = 0; k < nf; k++) {
        const struct sp_frame *f = &g_split[k];
        size_t i;
        st_frames[f->kind]++;
        if (f->kind == SP_SPAWN) {
            for (i = 0; i < g_chk.n && g_chk.cmds[i].id != f->id; i++) {
            }
            if (i < g_chk.n) {
                /* An id this spawner may still hold: the bytes so far go, then a fresh spawner. */
                if (!feed(data + from, f->off - from))
                    fz_fail("the spawner ended before frame %lu: %s", (unsigned long)k, g_errtext);
                from = f->off;
                proc_end(0, 0, "read EOF");
                proc_start();
            }
            sp_check_spawn(&g_chk, f);
        } else if (f->kind == SP_RELEASE) {
            sp_check_release(&g_chk, f->id);
        }
        if (f->kind == SP_BAD) {
            feed(data + from, f->end - from);
            proc_end(2, 2, "refused a bad frame");
            st_died++;
            return;
        }
        /* Now and then the bytes so far go in one write, cut anywhere; and it runs a while. */
        if (fz_chance(r, 35) || k + 1 == nf) {
            size_t to = f->end;
            if (k + 1 < nf && fz_chance(r, 50)) to = f->off + fz_below(r, (uint32_t)(f->end - f->off));
            if (to > from) {
                if (!feed(data + from, to - from))
                    fz_fail("the spawner ended on frame %lu, which it must take: %s", (unsigned long)k, g_errtext);
                from = to;
            }
            if (fz_chance(r, 30)) collect(0);
            /* Until its commands are done (only when the frame went whole: it waits for their answers). */
            if (to == f->end && f->kind != SP_PARTIAL && fz_chance(r, 5)) settle();
        }
    }
    if (from < len && !feed(data + from, len - from)) fz_fail("the spawner ended on the last frame: %s", g_errtext);
    if (partial) {
        st_cut_exit[proc_end(0, 2, "read EOF inside a frame") == 2]++;
        st_eof++;
    } else if (fz_chance(r, 8)) {
        if (fz_chance(r, 50)) settle();
        proc_end(0, 0, "read EOF");
        st_eof++;
    } else {
        settle();
        no_sanitizer_report();
        if (g_errlen > 0) fz_fail("the spawner wrote on stderr and lives on: %s", g_errtext);
        st_lived++;
    }
}

static void proc_finish(void) {
    if (g_pid > 0) proc_end(0, 0, "read EOF at the end");
    free(g_chk.cmds);
    free(g_chk.pending);
}

static void proc_stats(FILE *out) {
    fprintf(out,
            "  frames: %lu SPAWN, %lu RELEASE, %lu bad, %lu cut short; spawner processes: %lu started, %lu "
            "ended on a bad frame, %lu on EOF, %lu idle checks; commands: %lu ran, %lu failed to start, %lu "
            "checked byte for byte; EOF inside a frame: %lu exit 2, %lu exit 0\n",
            st_frames[SP_SPAWN], st_frames[SP_RELEASE], st_frames[SP_BAD], st_frames[SP_PARTIAL], st_instances,
            st_died, st_eof, st_lived, g_chk.spawned, g_chk.failed, g_chk.verified, st_cut_exit[1], st_cut_exit[0]);
}

static void proc_emergency(void) {
    if (g_pid > 0) kill(g_pid, SIGKILL);
}

const struct fz_target fz_spawner_process = {
    .name = "spawner-process",
    .about = "the spawner program (--program, a fuzz build) as the daemon runs it; fewer, slower cases",
    .max_len = SP_MAX_INPUT,
    .init = proc_init,
    .generate = sp_generate,
    .mutate = sp_mutate,
    .run = proc_run,
    .finish = proc_finish,
    .stats = proc_stats,
    .emergency = proc_emergency,
};
