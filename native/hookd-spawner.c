/*
 * hookd spawner (docs/daemon.md, "The spawner").
 *
 * A tiny resident helper of the daemon that starts the commands of the events the daemon runs. The
 * daemon is a large Node process, and node's child_process forks all of it on its main thread (10-13 ms
 * per command on a small VM); a fork of this small program costs a fraction of that. Started once by the
 * daemon (src/spawner/spawner.ts) with stdin and stdout as a private binary channel; stderr gets a
 * message when it gives up. It never runs a shell of its own: it execs what the daemon asks, with the
 * argv and environment it is given, byte for byte.
 *
 * The frames, both ways, are described in docs/protocol.md ("The spawner's frames"); their types,
 * limits and numbers come from hookd-wire.h, which `npm run build` writes from src/link/wire.ts.
 *
 * Rules: every length is checked before anything is allocated for it; a malformed frame ends the
 * spawner with a message on stderr and exit code 2 (the daemon sees it die and starts another one for
 * the next command). Memory stays bounded: frames up to MAX_FRAME; the stdin bytes held for commands up
 * to HELD_MAX (past it no new frame is read until commands took theirs); when the daemon does not read,
 * the outgoing queue stops growing at OUT_HIGH (the commands' pipes are no longer read: they block, as
 * they would with a daemon that does not read them), while frames from the daemon are still read, so a
 * SPAWN never waits on the daemon reading. The daemon gone (EOF or an error on stdin or stdout): exit at
 * once; running commands keep running (each is its own process group, as with child_process).
 *
 * A command is started as node's child_process.spawn starts one with `detached: true`: fork, then in the
 * child a new session (setsid: its own process group, no controlling terminal), every signal back to its
 * default disposition and none blocked (SIGPIPE included), chdir(cwd), its pipes on 0/1/2 and every
 * other descriptor closed (all of this program's are close-on-exec), execve. A chdir or exec failure
 * goes back through a close-on-exec error pipe (errno) and the child _exit(127)s. The spawner waits on
 * that pipe before it answers (as libuv does), so SPAWNED means the command runs, in its own group.
 *
 * Portable POSIX C99 (Linux and macOS), libc only.
 */
#if defined(__APPLE__)
#define _DARWIN_C_SOURCE
#else
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hookd-wire.h"

#ifndef O_CLOEXEC
#define O_CLOEXEC 0
#endif
#ifndef NSIG
#define NSIG 65
#endif

/* The protocol this file speaks (src/spawner/spawner.ts checks it before it sends anything). */
#define HELLO_TEXT HOOKD_SPAWNER_HELLO
/* The largest frame the daemon may send (its stdin cap is 8 MiB, an environment at most a few MiB). */
#define MAX_FRAME HOOKD_SPAWNER_MAX_FRAME
/* Strings in one SPAWN (argv and environment each). */
#define MAX_STRINGS 65536UL
/* Stdin bytes held for running commands before the next frame is read. */
#define HELD_MAX (64UL * 1024 * 1024)
/* The outgoing queue past which the commands' pipes are not read. */
#define OUT_HIGH (1024UL * 1024)
#define IO_CHUNK HOOKD_SPAWNER_OUT_CHUNK
/* A frame's head (length, type, id), and what its length counts besides the payload (type, id). */
#define HEAD HOOKD_SPAWNER_FRAME_HEAD
#define TYPE_ID (HEAD - 4)
/* The exit code for a malformed frame from the daemon (or any argument at all). */
#define BAD_INPUT HOOKD_SPAWNER_EXIT_BAD_INPUT
#define MAX_CHILDREN 4096

struct child {
    struct child *next;
    uint32_t id;
    pid_t pid;
    int in_fd;                /* our end of its stdin; -1 once closed */
    int out_fd[2];            /* our ends of its stdout and stderr; -1 at their end */
    unsigned char *frame;     /* its SPAWN frame, which holds the stdin bytes until they are written */
    const unsigned char *in_data;
    size_t in_len, in_off;
    int reaped;
    int released;
};

static struct child *g_children;
static size_t g_nchildren;
static size_t g_held;
static int g_sig[2] = {-1, -1};

static unsigned char *g_q;
static size_t g_qcap, g_qoff, g_qlen;

static unsigned char g_hdr[4];
static size_t g_hdr_have;
static unsigned char *g_body;
static size_t g_body_len, g_body_have;

/* ---------------------------------------------------------------- small helpers */

static void die(int code, const char *fmt, ...) {
    va_list ap;
    fputs("hookd-spawner: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(code);
}

static uint32_t get32(const unsigned char *p) {
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

static void put32(unsigned char *p, uint32_t v) {
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

static int set_flag(int fd, int get, int set, int flag) {
    int flags = fcntl(fd, get);
    if (flags < 0) return -1;
    return fcntl(fd, set, flags | flag);
}

static int pipe_cloexec(int fds[2]) {
#if defined(__linux__)
    return pipe2(fds, O_CLOEXEC);
#else
    /* No thread here: nothing can fork between pipe() and the flags. */
    if (pipe(fds) != 0) return -1;
    if (set_flag(fds[0], F_GETFD, F_SETFD, FD_CLOEXEC) != 0 ||
        set_flag(fds[1], F_GETFD, F_SETFD, FD_CLOEXEC) != 0) {
        int e = errno;
        close(fds[0]);
        close(fds[1]);
        errno = e;
        return -1;
    }
    return 0;
#endif
}

static void close_fd(int *fd) {
    if (*fd >= 0) close(*fd);
    *fd = -1;
}

/* ---------------------------------------------------------------- the outgoing queue */

static unsigned char *q_reserve(size_t n) {
    if (g_qoff > 0 && g_qoff + g_qlen + n > g_qcap) {
        memmove(g_q, g_q + g_qoff, g_qlen);
        g_qoff = 0;
    }
    if (g_qlen + n > g_qcap) {
        size_t cap = g_qcap ? g_qcap : 4096;
        unsigned char *q;
        while (cap < g_qlen + n) cap *= 2;
        q = realloc(g_q, cap);
        if (!q) die(1, "out of memory (outgoing queue of %lu bytes)", (unsigned long)cap);
        g_q = q;
        g_qcap = cap;
    }
    return g_q + g_qoff + g_qlen;
}

/* Queues a frame: the header, then `a` (n bytes) and `b` (m bytes). */
static void q_frame(unsigned char type, uint32_t id, const void *a, size_t n, const void *b, size_t m) {
    unsigned char *p = q_reserve(HEAD + n + m);
    put32(p, (uint32_t)(TYPE_ID + n + m));
    p[4] = type;
    put32(p + 5, id);
    if (n) memcpy(p + HEAD, a, n);
    if (m) memcpy(p + HEAD + n, b, m);
    g_qlen += HEAD + n + m;
}

static void q_u32(unsigned char type, uint32_t id, uint32_t v) {
    unsigned char b[4];
    put32(b, v);
    q_frame(type, id, b, 4, NULL, 0);
}

/* One non-blocking write: the bytes taken, 0 when the pipe is full, -1 on an error (EPIPE...). */
static ssize_t write_some(int fd, const void *p, size_t n) {
    for (;;) {
        ssize_t w = write(fd, p, n);
        if (w >= 0) return w;
        if (errno == EINTR) continue;
        return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
    }
}

/* Writes what the daemon takes now; the daemon gone is the end. */
static void flush_out(void) {
    while (g_qlen > 0) {
        ssize_t w = write_some(1, g_q + g_qoff, g_qlen);
        if (w < 0) exit(0);
        if (w == 0) return;
        g_qoff += (size_t)w;
        g_qlen -= (size_t)w;
    }
    g_qoff = 0;
}

/* ---------------------------------------------------------------- commands */

static struct child *find_id(uint32_t id) {
    struct child *c;
    for (c = g_children; c; c = c->next)
        if (c->id == id) return c;
    return NULL;
}

static void drop_stdin(struct child *c) {
    close_fd(&c->in_fd);
    g_held -= c->in_len - c->in_off;
    c->in_off = c->in_len;
    free(c->frame);
    c->frame = NULL;
}

/* Forgets a command once it was reaped and its streams ended (or the daemon released it). */
static void maybe_free(struct child *c) {
    struct child **pp;
    if (!c->reaped) return;
    if (!c->released && (c->out_fd[0] >= 0 || c->out_fd[1] >= 0)) return;
    drop_stdin(c);
    close_fd(&c->out_fd[0]);
    close_fd(&c->out_fd[1]);
    for (pp = &g_children; *pp; pp = &(*pp)->next) {
        if (*pp == c) {
            *pp = c->next;
            break;
        }
    }
    g_nchildren--;
    free(c);
}

static void release(uint32_t id) {
    struct child *c = find_id(id);
    if (!c || c->released) return;
    c->released = 1;
    drop_stdin(c);
    close_fd(&c->out_fd[0]);
    close_fd(&c->out_fd[1]);
    maybe_free(c);
}

static void failed(uint32_t id, int err, const char *what) {
    unsigned char b[4];
    char msg[160];
    int n = snprintf(msg, sizeof msg, "%s: %s", what, strerror(err));
    if (n < 0) n = 0;
    if ((size_t)n >= sizeof msg) n = (int)sizeof msg - 1;
    put32(b, (uint32_t)err);
    q_frame(HOOKD_SPAWNER_FRAME_FAILED, id, b, 4, msg, (size_t)n);
}

/* In the child, before exec: tell the spawner why, and end. */
static void child_fail(int fd, int err) {
    ssize_t w;
    do w = write(fd, &err, sizeof err);
    while (w < 0 && errno == EINTR);
    _exit(127);
}

/* execve, or a PATH search (the command's own PATH) for a name without a slash, as execvp does. */
static int exec_program(const char *path, char **argv, char **envp) {
    const char *p = NULL, *dirs;
    char buf[PATH_MAX];
    int seen_eacces = 0;
    size_t i, plen = strlen(path);
    if (strchr(path, '/')) {
        execve(path, argv, envp);
        return errno;
    }
    for (i = 0; envp[i]; i++)
        if (strncmp(envp[i], "PATH=", 5) == 0) p = envp[i] + 5;
    dirs = p ? p : "/usr/bin:/bin";
    for (;;) {
        const char *end = strchr(dirs, ':');
        size_t dlen = end ? (size_t)(end - dirs) : strlen(dirs);
        if (dlen + 1 + plen < sizeof buf) {
            /* An empty entry is the working directory. */
            if (dlen == 0) {
                memcpy(buf, path, plen + 1);
            } else {
                memcpy(buf, dirs, dlen);
                buf[dlen] = '/';
                memcpy(buf + dlen + 1, path, plen + 1);
            }
            execve(buf, argv, envp);
            if (errno == EACCES) seen_eacces = 1;
            else if (errno != ENOENT && errno != ENOTDIR) return errno;
        }
        if (!end) break;
        dirs = end + 1;
    }
    return seen_eacces ? EACCES : ENOENT;
}

static void run_child(int ep, const int in[2], const int out[2], const int err[2], const char *cwd,
                      const char *path, char **argv, char **envp) {
    struct sigaction dfl;
    sigset_t none;
    int s;
    (void)setsid();
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    for (s = 1; s < NSIG; s++)
        if (s != SIGKILL && s != SIGSTOP) (void)sigaction(s, &dfl, NULL);
    sigemptyset(&none);
    (void)sigprocmask(SIG_SETMASK, &none, NULL);
    if (chdir(cwd) != 0) child_fail(ep, errno);
    /* The pipes are above 2 (0-2 are always open here): dup2 never clobbers one of them. */
    if (dup2(in[0], 0) < 0 || dup2(out[1], 1) < 0 || dup2(err[1], 2) < 0) child_fail(ep, errno);
    child_fail(ep, exec_program(path, argv, envp));
}

/* A SPAWN frame (`frame`, owned from here on): parse it whole, then start the command. */
static void do_spawn(uint32_t id, unsigned char *frame, size_t len) {
    const unsigned char *p = frame + TYPE_ID, *s, *end;
    size_t plen = len - TYPE_ID, argc, envc, inlen, i, k;
    char **strs;
    const char *path, *cwd;
    int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1}, ep[2] = {-1, -1};
    int e = 0, st;
    ssize_t n;
    pid_t pid;
    struct child *c;

    if (plen < 12) die(BAD_INPUT, "SPAWN %lu: short frame", (unsigned long)id);
    argc = get32(p);
    envc = get32(p + 4);
    inlen = get32(p + 8);
    if (argc < 1 || argc > MAX_STRINGS || envc > MAX_STRINGS)
        die(BAD_INPUT, "SPAWN %lu: bad counts (argc %lu, envc %lu)", (unsigned long)id, (unsigned long)argc,
            (unsigned long)envc);
    if (inlen > plen - 12) die(BAD_INPUT, "SPAWN %lu: stdin length past the frame", (unsigned long)id);
    s = p + 12;
    end = p + plen - inlen;
    if ((size_t)(end - s) < 2 + argc + envc)
        die(BAD_INPUT, "SPAWN %lu: strings past the frame", (unsigned long)id);
    strs = malloc((2 + argc + 1 + envc + 1) * sizeof *strs);
    if (!strs) die(1, "out of memory");
    /* path, cwd, argv..., NULL, envp..., NULL */
    for (i = 0, k = 0; i < 2 + argc + envc; i++) {
        const unsigned char *nul = memchr(s, 0, (size_t)(end - s));
        if (!nul) die(BAD_INPUT, "SPAWN %lu: an unterminated string", (unsigned long)id);
        strs[k++] = (char *)s;
        if (i == 1 + argc) strs[k++] = NULL;
        s = nul + 1;
    }
    strs[k] = NULL;
    if (s != end) die(BAD_INPUT, "SPAWN %lu: bytes between the strings and stdin", (unsigned long)id);
    path = strs[0];
    cwd = strs[1];

    if (find_id(id)) die(BAD_INPUT, "SPAWN %lu: the id is in use", (unsigned long)id);
    if (g_nchildren >= MAX_CHILDREN) {
        failed(id, EAGAIN, "too many commands running");
        goto out;
    }
    if (pipe_cloexec(in) != 0 || pipe_cloexec(out) != 0 || pipe_cloexec(err) != 0 || pipe_cloexec(ep) != 0) {
        failed(id, errno, "pipe");
        goto out;
    }
    pid = fork();
    if (pid < 0) {
        failed(id, errno, "fork");
        goto out;
    }
    if (pid == 0) run_child(ep[1], in, out, err, cwd, path, strs + 2, strs + 3 + argc);
    close_fd(&in[0]);
    close_fd(&out[1]);
    close_fd(&err[1]);
    close_fd(&ep[1]);
    do n = read(ep[0], &e, sizeof e);
    while (n < 0 && errno == EINTR);
    if (n == (ssize_t)sizeof e) {
        /* Nothing runs: the child _exit(127)s at once; reap it here, it never gets an EXIT. */
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
        }
        failed(id, e, "spawn");
        goto out;
    }
    c = calloc(1, sizeof *c);
    if (!c) die(1, "out of memory");
    c->id = id;
    c->pid = pid;
    c->in_fd = in[1];
    c->out_fd[0] = out[0];
    c->out_fd[1] = err[0];
    in[1] = out[0] = err[0] = -1;
    c->frame = frame;
    c->in_data = end;
    c->in_len = inlen;
    frame = NULL;
    g_held += inlen;
    (void)set_flag(c->in_fd, F_GETFL, F_SETFL, O_NONBLOCK);
    (void)set_flag(c->out_fd[0], F_GETFL, F_SETFL, O_NONBLOCK);
    (void)set_flag(c->out_fd[1], F_GETFL, F_SETFL, O_NONBLOCK);
    c->next = g_children;
    g_children = c;
    g_nchildren++;
    q_u32(HOOKD_SPAWNER_FRAME_SPAWNED, id, (uint32_t)pid);
    if (inlen == 0) drop_stdin(c);
out:
    close_fd(&in[0]);
    close_fd(&in[1]);
    close_fd(&out[0]);
    close_fd(&out[1]);
    close_fd(&err[0]);
    close_fd(&err[1]);
    close_fd(&ep[0]);
    close_fd(&ep[1]);
    free(strs);
    free(frame);
}

static void handle_frame(unsigned char *frame, size_t len) {
    unsigned char type = frame[0];
    uint32_t id = get32(frame + 1);
    if (type == HOOKD_SPAWNER_FRAME_SPAWN) {
        do_spawn(id, frame, len);
        return;
    }
    if (type == HOOKD_SPAWNER_FRAME_RELEASE && len == TYPE_ID) {
        free(frame);
        release(id);
        return;
    }
    die(BAD_INPUT, "bad frame (type 0x%02x, length %lu)", (unsigned)type, (unsigned long)len);
}

/* Reads the daemon's frames while there are bytes and room for them; EOF or an error: the end. */
static void read_input(void) {
    while (g_held <= HELD_MAX) {
        ssize_t n;
        if (!g_body) {
            n = read(0, g_hdr + g_hdr_have, sizeof g_hdr - g_hdr_have);
        } else {
            n = read(0, g_body + g_body_have, g_body_len - g_body_have);
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        if (n <= 0) exit(g_body || g_hdr_have ? BAD_INPUT : 0);
        if (!g_body) {
            uint32_t len;
            g_hdr_have += (size_t)n;
            if (g_hdr_have < sizeof g_hdr) continue;
            len = get32(g_hdr);
            g_hdr_have = 0;
            if (len < TYPE_ID || len > MAX_FRAME) die(BAD_INPUT, "bad frame length %lu", (unsigned long)len);
            g_body = malloc(len);
            if (!g_body) die(1, "out of memory (a frame of %lu bytes)", (unsigned long)len);
            g_body_len = len;
            g_body_have = 0;
        } else {
            g_body_have += (size_t)n;
            if (g_body_have == g_body_len) {
                unsigned char *frame = g_body;
                g_body = NULL;
                handle_frame(frame, g_body_len);
            }
        }
    }
}

static void write_stdin(struct child *c) {
    while (c->in_off < c->in_len) {
        ssize_t w = write_some(c->in_fd, c->in_data + c->in_off, c->in_len - c->in_off);
        if (w == 0) return;
        if (w < 0) break; /* EPIPE: the command did not read it all; fine */
        c->in_off += (size_t)w;
        g_held -= (size_t)w;
    }
    drop_stdin(c);
}

static void read_output(struct child *c, int stream) {
    unsigned char *p = q_reserve(HEAD + 1 + IO_CHUNK);
    ssize_t n;
    do n = read(c->out_fd[stream], p + HEAD + 1, IO_CHUNK);
    while (n < 0 && errno == EINTR);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    if (n > 0) {
        put32(p, (uint32_t)(TYPE_ID + 1 + n));
        p[4] = HOOKD_SPAWNER_FRAME_OUT;
        put32(p + 5, c->id);
        p[HEAD] = stream ? HOOKD_SPAWNER_STDERR : HOOKD_SPAWNER_STDOUT;
        g_qlen += HEAD + 1 + (size_t)n;
        return;
    }
    {
        unsigned char which = stream ? HOOKD_SPAWNER_STDERR : HOOKD_SPAWNER_STDOUT;
        close_fd(&c->out_fd[stream]);
        q_frame(HOOKD_SPAWNER_FRAME_EOF, c->id, &which, 1, NULL, 0);
        maybe_free(c);
    }
}

static void reap(void) {
    char buf[64];
    int st;
    pid_t pid;
    while (read(g_sig[0], buf, sizeof buf) > 0) {
    }
    while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
        struct child *c;
        for (c = g_children; c && c->pid != pid; c = c->next) {
        }
        if (!c || c->reaped) continue;
        if (!c->released) {
            /* What it wrote before it exited is in its pipes now: forwarded before its EXIT (at most a
             * pipe's worth past OUT_HIGH), so the daemon's pipe grace never starts ahead of it. */
            int i, k;
            for (i = 0; i < 2; i++)
                for (k = 0; k < 16 && c->out_fd[i] >= 0; k++) {
                    size_t before = g_qlen;
                    read_output(c, i);
                    if (g_qlen == before) break;
                }
        }
        c->reaped = 1;
        if (!c->released) {
            unsigned char b[5];
            if (WIFSIGNALED(st)) {
                b[0] = HOOKD_SPAWNER_SIGNALLED;
                put32(b + 1, (uint32_t)WTERMSIG(st));
            } else {
                b[0] = HOOKD_SPAWNER_EXITED;
                put32(b + 1, (uint32_t)WEXITSTATUS(st));
            }
            q_frame(HOOKD_SPAWNER_FRAME_EXIT, c->id, b, 5, NULL, 0);
        }
        maybe_free(c);
    }
}

static void on_sigchld(int sig) {
    int saved = errno;
    ssize_t w = write(g_sig[1], "c", 1);
    (void)sig;
    (void)w;
    errno = saved;
}

/* ---------------------------------------------------------------- start */

/* Only 0-2 cross into a command: close whatever else this program was given. */
static void close_inherited(void) {
#if defined(__APPLE__)
    const char *dir = "/dev/fd";
#else
    const char *dir = "/proc/self/fd";
#endif
    DIR *d = opendir(dir);
    if (d) {
        int fds[256], nfds = 0, i, self = dirfd(d);
        struct dirent *ent;
        while ((ent = readdir(d)) != NULL) {
            long fd = strtol(ent->d_name, NULL, 10);
            if (ent->d_name[0] < '0' || ent->d_name[0] > '9') continue;
            if (fd > 2 && fd != self && nfds < 256) fds[nfds++] = (int)fd;
        }
        closedir(d);
        for (i = 0; i < nfds; i++) close(fds[i]);
        if (nfds < 256) return;
    }
    {
        long max = sysconf(_SC_OPEN_MAX), fd;
        if (max < 0 || max > 65536) max = 65536;
        for (fd = 3; fd < max; fd++) close((int)fd);
    }
}

int main(int argc, char **argv) {
    struct sigaction sa;
    struct pollfd *pfds = NULL;
    struct child **owner = NULL;
    int *which = NULL;
    size_t pcap = 0;
    int fd;
    (void)argv;
    if (argc > 1) die(BAD_INPUT, "started by the hookd daemon only (no arguments; frames on stdin)");
    for (fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) < 0) {
            int nul = open("/dev/null", O_RDWR);
            if (nul < 0) return 1;
            if (nul != fd) {
                dup2(nul, fd);
                close(nul);
            }
        }
    }
    close_inherited();
    signal(SIGPIPE, SIG_IGN);
    if (pipe_cloexec(g_sig) != 0) die(1, "pipe: %s", strerror(errno));
    (void)set_flag(g_sig[0], F_GETFL, F_SETFL, O_NONBLOCK);
    (void)set_flag(g_sig[1], F_GETFL, F_SETFL, O_NONBLOCK);
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigchld;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
    if (sigaction(SIGCHLD, &sa, NULL) != 0) die(1, "sigaction: %s", strerror(errno));
    /* HELLO goes out whole (stdout still blocking) before anything is read: the daemon sends nothing
     * before it has it, so a spawner that died without one never saw a command. */
    q_frame(HOOKD_SPAWNER_FRAME_HELLO, 0, HELLO_TEXT, strlen(HELLO_TEXT), NULL, 0);
    flush_out();
    (void)set_flag(0, F_GETFL, F_SETFL, O_NONBLOCK);
    (void)set_flag(1, F_GETFL, F_SETFL, O_NONBLOCK);

    for (;;) {
        size_t n = 0, need = 3 + 3 * g_nchildren;
        struct child *c;
        int reading = g_qlen <= OUT_HIGH, r;
        size_t i;
        if (need > pcap) {
            pcap = need * 2;
            pfds = realloc(pfds, pcap * sizeof *pfds);
            owner = realloc(owner, pcap * sizeof *owner);
            which = realloc(which, pcap * sizeof *which);
            if (!pfds || !owner || !which) die(1, "out of memory (poll set)");
        }
        pfds[n].fd = g_sig[0];
        pfds[n].events = POLLIN;
        owner[n++] = NULL;
        /* Paused while too much stdin is held: POLLHUP still says the daemon is gone. */
        pfds[n].fd = 0;
        pfds[n].events = g_held <= HELD_MAX ? POLLIN : 0;
        owner[n++] = NULL;
        pfds[n].fd = g_qlen > 0 ? 1 : -1;
        pfds[n].events = POLLOUT;
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
        r = poll(pfds, (nfds_t)n, -1);
        if (r < 0) {
            if (errno == EINTR) continue;
            die(1, "poll: %s", strerror(errno));
        }
        if (pfds[2].revents) flush_out();
        /* A command's descriptors are looked up again: one handled before may have freed it. */
        for (i = 3; i < n; i++) {
            if (!pfds[i].revents) continue;
            for (c = g_children; c && c != owner[i]; c = c->next) {
            }
            if (!c) continue;
            if (which[i] < 0) {
                if (c->in_fd == pfds[i].fd) write_stdin(c);
            } else if (c->out_fd[which[i]] == pfds[i].fd && g_qlen <= OUT_HIGH) {
                read_output(c, which[i]);
            }
        }
        if (pfds[0].revents) reap();
        if (pfds[1].revents & POLLIN) read_input();
        else if (pfds[1].revents & (POLLHUP | POLLERR | POLLNVAL)) exit(0);
        flush_out();
    }
}
