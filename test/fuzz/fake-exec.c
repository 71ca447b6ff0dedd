/*
 * The execve every fuzz build of the spawner calls (linked with -Wl,--wrap=execve; fake-exec.h says what
 * each path does). Linux: the state checks read /proc/self/fd.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake-exec.h"

int __real_execve(const char *path, char *const argv[], char *const envp[]);
int __wrap_execve(const char *path, char *const argv[], char *const envp[]);

static const int kill_signals[4] = {SIGTERM, SIGKILL, SIGINT, SIGHUP};

/* ---------------------------------------------------------------- the script */

/* What a script does, done for real (the fake command) or recorded (fake_expect). */
struct fake_io {
    void (*write)(struct fake_io *io, int fd, const unsigned char *p, size_t n);
    void (*read_stdin)(struct fake_io *io, int copy); /* to EOF; copy: to stdout */
    void (*close_out)(struct fake_io *io);
    void (*background)(struct fake_io *io);
    void (*end)(struct fake_io *io, int signaled, int code); /* the real one does not return */
};

/* Runs a script (fake-exec.h): letters, each with an optional number; other bytes are skipped. */
static void run_script(const char *s, struct fake_io *io) {
    unsigned char buf[4096];
    size_t written = 0, i, j;
    int ops = 0, stdin_done = 0;
    while (s && *s && ops < FAKE_MAX_OPS) {
        char letter = *s++;
        unsigned long n = 0;
        if (!strchr("oeczxkrb", letter)) continue;
        ops++;
        while (*s >= '0' && *s <= '9') {
            if (n < 1000000) n = n * 10 + (unsigned long)(*s - '0');
            s++;
        }
        switch (letter) {
        case 'o':
        case 'e':
            /* At most FAKE_MAX_OUT bytes in all; each op's pattern starts at 'a'. */
            if (n > FAKE_MAX_OUT - written) n = FAKE_MAX_OUT - written;
            written += n;
            for (i = 0; i < n; i += j) {
                for (j = 0; j < sizeof buf && i + j < n; j++) buf[j] = (unsigned char)('a' + (i + j) % 26);
                io->write(io, letter == 'o' ? 1 : 2, buf, j);
            }
            break;
        case 'c':
        case 'r':
            if (!stdin_done) io->read_stdin(io, letter == 'c');
            stdin_done = 1;
            break;
        case 'z':
            io->close_out(io);
            break;
        case 'b':
            io->background(io);
            break;
        case 'x':
            io->end(io, 0, (int)(n % 64));
            return;
        case 'k':
            io->end(io, 1, kill_signals[n % 4]);
            return;
        }
    }
    io->end(io, 0, 0);
}

/* ---------------------------------------------------------------- recorded */

struct expect_io {
    struct fake_io io;
    struct fake_expect *e;
    const unsigned char *in;
    size_t in_len;
    int closed;
};

static void expect_write(struct fake_io *io, int fd, const unsigned char *p, size_t n) {
    struct expect_io *x = (struct expect_io *)io;
    struct fake_expect *e = x->e;
    unsigned char *q;
    int k = fd - 1;
    if (x->closed || n == 0) return;
    q = realloc(e->out[k], e->len[k] + n + 1);
    if (!q) abort();
    memcpy(q + e->len[k], p, n);
    e->out[k] = q;
    e->len[k] += n;
}

static void expect_read_stdin(struct fake_io *io, int copy) {
    struct expect_io *x = (struct expect_io *)io;
    if (copy) expect_write(io, 1, x->in, x->in_len);
}

static void expect_close_out(struct fake_io *io) { ((struct expect_io *)io)->closed = 1; }

/* The command's end is here; the rest is its background process's. */
static void expect_background(struct fake_io *io) {
    struct fake_expect *e = ((struct expect_io *)io)->e;
    if (!e->background) e->signaled = 0, e->code = 0;
    e->background = 1;
}

static void expect_end(struct fake_io *io, int signaled, int code) {
    struct fake_expect *e = ((struct expect_io *)io)->e;
    if (!e->background) e->signaled = signaled, e->code = code;
}

void fake_expect(const char *script, const unsigned char *in, size_t in_len, struct fake_expect *e) {
    struct expect_io x;
    memset(e, 0, sizeof *e);
    memset(&x, 0, sizeof x);
    x.io.write = expect_write;
    x.io.read_stdin = expect_read_stdin;
    x.io.close_out = expect_close_out;
    x.io.background = expect_background;
    x.io.end = expect_end;
    x.e = e;
    x.in = in;
    x.in_len = in_len;
    run_script(script, &x.io);
}

void fake_expect_free(struct fake_expect *e) {
    free(e->out[0]);
    free(e->out[1]);
    memset(e, 0, sizeof *e);
}

/* ---------------------------------------------------------------- the fake command */

static void put(int fd, const void *p, size_t n) {
    const unsigned char *b = p;
    while (n > 0) {
        ssize_t w = write(fd, b, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return;
        b += w;
        n -= (size_t)w;
    }
}

static void bad_state(const char *what) {
    put(2, "fuzz-fake: started in a wrong state: ", 37);
    put(2, what, strlen(what));
    put(2, "\n", 1);
    _exit(FAKE_BAD_STATE);
}

/* What execve would see and do: the spawner's state checks, then close-on-exec. */
static void check_state_and_close(void) {
    sigset_t mask;
    int s, fd;
    DIR *d;
    struct dirent *ent;
    int fds[1024], nfds = 0, i;
    if (getpgrp() != getpid() || getsid(0) != getpid()) bad_state("not the leader of its own session");
    if (sigprocmask(SIG_BLOCK, NULL, &mask) != 0) bad_state("sigprocmask");
    for (s = 1; s < NSIG; s++) {
        struct sigaction sa;
        if (sigismember(&mask, s) == 1) bad_state("a signal is blocked");
        if (s == SIGKILL || s == SIGSTOP || sigaction(s, NULL, &sa) != 0) continue;
        if (!(sa.sa_flags & SA_SIGINFO) && sa.sa_handler == SIG_DFL) continue;
        bad_state("a signal has a handler or is ignored");
    }
    for (fd = 0; fd <= 2; fd++) {
        struct stat st;
        if (fstat(fd, &st) != 0 || !S_ISFIFO(st.st_mode)) bad_state("fds 0-2 are not its pipes");
    }
    d = opendir("/proc/self/fd");
    if (!d) bad_state("no /proc/self/fd");
    while ((ent = readdir(d)) != NULL && nfds < 1024) {
        fd = atoi(ent->d_name);
        if (ent->d_name[0] >= '0' && ent->d_name[0] <= '9' && fd > 2 && fd != dirfd(d)) fds[nfds++] = fd;
    }
    closedir(d);
    for (i = 0; i < nfds; i++) {
        int flags = fcntl(fds[i], F_GETFD);
        if (flags < 0) continue;
        if (!(flags & FD_CLOEXEC)) bad_state("a descriptor above 2 is not close-on-exec");
        close(fds[i]);
    }
}

static void real_write(struct fake_io *io, int fd, const unsigned char *p, size_t n) {
    (void)io;
    put(fd, p, n);
}

static void real_read_stdin(struct fake_io *io, int copy) {
    unsigned char buf[4096];
    (void)io;
    for (;;) {
        ssize_t n = read(0, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        if (copy) put(1, buf, (size_t)n);
    }
}

static void real_close_out(struct fake_io *io) {
    (void)io;
    close(1);
    close(2);
}

static void real_background(struct fake_io *io) {
    pid_t pid = fork();
    (void)io;
    if (pid > 0) _exit(0);
    if (pid < 0) put(2, "fuzz-fake: fork failed\n", 23);
}

static void real_end(struct fake_io *io, int signaled, int code) {
    (void)io;
    if (signaled) kill(getpid(), code);
    _exit(signaled ? 100 : code); /* 100: the signal did not end it */
}

static void fake_command(char *const argv[]) {
    struct fake_io io = {real_write, real_read_stdin, real_close_out, real_background, real_end};
    check_state_and_close();
    run_script(argv[0] ? argv[1] : NULL, &io);
}

/* ---------------------------------------------------------------- the wrapped execve */

int __wrap_execve(const char *path, char *const argv[], char *const envp[]) {
    const char *base = strrchr(path, '/');
    (void)envp;
    base = base ? base + 1 : path;
    if (strcmp(path, "/bin/true") == 0 || strcmp(path, "/usr/bin/true") == 0) {
        char *const args[] = {(char *)path, NULL};
        char *const env[] = {NULL};
        return __real_execve(path, args, env);
    }
    if (strcmp(base, FAKE_NAME) == 0) fake_command(argv);
    if (strcmp(base, FAKE_PROBE_NAME) == 0) errno = FAKE_PROBE_ERRNO;
    else if (strcmp(base, "fuzz-eacces") == 0) errno = EACCES;
    else if (strcmp(base, "fuzz-enotdir") == 0) errno = ENOTDIR;
    else if (strcmp(base, "fuzz-eio") == 0) errno = EIO;
    else errno = ENOENT;
    return -1;
}
