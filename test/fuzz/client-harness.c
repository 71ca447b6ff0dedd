/*
 * Fuzz target `client`: native/hookd-client.c against a fake daemon (docs/fuzzing.md).
 *
 * The client's source is included here whole (CLIENT_SOURCE, set by scripts/fuzz-native.sh; its main
 * renamed) and each case runs it in a forked child of the fuzzer, as an agent runs it: its own stdin
 * (a pipe, a file, or none), stdout and stderr pipes, an environment, a cwd, a umask, an argv. The
 * fuzzer is the daemon: it listens on real unix sockets in private runtime dirs, reads the client's
 * request, checks it, and sends the case's bytes: those before GO, then, once GO came, the rest, in
 * one write or in chunks the client reads one at a time (the fuzzer waits until each is read). The
 * child's state is fresh for every case (a fork of a process that never ran it), and a case is a
 * function of its input alone (its random source is seeded from the input's bytes): a saved input
 * replays exactly.
 *
 * Only these edges of the client are replaced while its source is compiled:
 *   execvp  (at link time, --wrap) the fake Node path below: it runs in the child, records its argv,
 *           environment, stdin and the state it was started in on a report pipe, and exits 197: no
 *           fuzzed case ever runs a program. `fuzz-enoent` fails with ENOENT, the probe with EXDEV.
 *   poll    the wait for the daemon before GO runs on a fake clock: it runs out only when the daemon
 *           said it will send nothing more (a byte on the stall pipe) and nothing is left to read.
 *   open, write, fchmod, close   the stdin copy's faults (no space, names taken, fchmod refused, a
 *           disk full past N bytes), and, for a flaky case, short reads and writes, EINTR and EAGAIN
 *   read    the same flaky reads
 *   getsockopt   SO_PEERCRED can say the listener runs as another user
 *   exit    flushes stdio and ends the child without the leak check (a client that execs leaks by design)
 *
 * Checks, besides the sanitizers (the child's and its forked writer's reports are read from its stderr
 * and exit code): what the client must do, from client-model.c, exactly: its exit code and its stdout
 * and stderr byte for byte, or the Node path (never both, never after GO) with its argv, environment
 * (HOOKD_FAST_EVENT_ID, HOOKD_CLIENT_REFUSED, HOOKD_CLIENT_STDIN_COPY, HOOKD_CLIENT_PROTOCOL), SIGPIPE at its default, no
 * descriptor without close-on-exec, and every stdin byte on its stdin; the request byte for byte (the
 * stdin copy a private regular file with the bytes); no connection to a listener it must refuse, no byte
 * sent before its checks; no stdin copy left behind; no descriptor lost in the fuzzer.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <linux/sockios.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "client-model.h"
#include "fake-exec.h"
#include "fuzz.h"

#ifndef CLIENT_SOURCE
#define CLIENT_SOURCE "../../native/hookd-client.c"
#endif

/* Fixed descriptors of the child: the report pipe and the stall pipe. */
#define K_REPORT_FD 100
#define K_STALL_FD 101
/* The uid that owns another user's files (root only). */
#define OTHER_UID 4242

/* ---------------------------------------------------------------- the child's side */

static const struct cl_case *k_case;
static struct fz_rng k_rng;
static int k_copy_fd = -1;
static unsigned long long k_copy_written;
static unsigned k_creates;
static const char *k_rt;

static void k_exit(int code) __attribute__((noreturn));
static int k_open(const char *path, int flags, ...);
static int k_close(int fd);
static ssize_t k_read(int fd, void *buf, size_t n);
static ssize_t k_write(int fd, const void *buf, size_t n);
static int k_fchmod(int fd, mode_t mode);
static int k_poll(struct pollfd *p, nfds_t n, int timeout);
static int k_getsockopt(int fd, int level, int name, void *val, socklen_t *len);

#define exit k_exit
#define open k_open
#define close k_close
#define read k_read
#define write k_write
#define fchmod k_fchmod
#define poll k_poll
#define getsockopt k_getsockopt
#define main client_main
#include CLIENT_SOURCE
#undef main
#undef getsockopt
#undef poll
#undef fchmod
#undef write
#undef read
#undef close
#undef open
#undef exit

static void k_exit(int code) {
    fflush(stdout);
    fflush(stderr);
    _exit(code);
}

static int flaky(unsigned percent) { return k_case->flaky && fz_chance(&k_rng, percent); }

static int k_open(const char *path, int flags, ...) {
    mode_t mode = 0;
    int fd;
    if (flags & O_CREAT) {
        va_list ap;
        va_start(ap, flags);
        mode = (mode_t)va_arg(ap, int);
        va_end(ap);
        /* The only file the client creates: a stdin copy. */
        k_creates++;
        if (k_case->fault == CL_FAULT_CREATE) return errno = ENOSPC, -1;
        if (k_case->fault == CL_FAULT_EXISTS && k_creates <= k_case->fault_param % 24) return errno = EEXIST, -1;
    }
    fd = open(path, flags, mode);
    if (fd >= 0 && (flags & O_CREAT)) {
        k_copy_fd = fd;
        k_copy_written = 0;
    }
    return fd;
}

static int k_close(int fd) {
    if (fd == k_copy_fd) k_copy_fd = -1;
    return close(fd);
}

static ssize_t k_read(int fd, void *buf, size_t n) {
    if (flaky(12)) return errno = EINTR, -1;
    if (flaky(4)) return errno = EAGAIN, -1;
    if (n > 1 && flaky(30)) n = 1 + fz_below(&k_rng, (uint32_t)(n < 4096 ? n - 1 : 4095));
    return read(fd, buf, n);
}

static ssize_t k_write(int fd, const void *buf, size_t n) {
    ssize_t w;
    if (fd == k_copy_fd && k_case->fault == CL_FAULT_WRITE) {
        unsigned long long limit = (unsigned long long)k_case->fault_param * 997;
        if (n > 0 && k_copy_written >= limit) return errno = ENOSPC, -1;
        if (n > limit - k_copy_written) n = (size_t)(limit - k_copy_written);
    }
    if (flaky(12)) return errno = EINTR, -1;
    if (flaky(6)) return errno = EAGAIN, -1;
    if (n > 1 && flaky(30)) n = 1 + fz_below(&k_rng, (uint32_t)(n < 4096 ? n - 1 : 4095));
    w = write(fd, buf, n);
    if (w > 0 && fd == k_copy_fd) k_copy_written += (unsigned long long)w;
    return w;
}

static int k_fchmod(int fd, mode_t mode) {
    if (k_case->fault == CL_FAULT_FCHMOD) return errno = EPERM, -1;
    return fchmod(fd, mode);
}

/* The client's wait for the daemon before GO, on a fake clock: the daemon sends all it will send, then
 * says so on the stall pipe; the wait runs out only then, and only when nothing is left to read. */
static int k_poll(struct pollfd *p, nfds_t n, int timeout) {
    if (flaky(8)) return errno = EINTR, -1;
    if (n == 1 && timeout >= 0 && g_sock >= 0 && p[0].fd == g_sock) {
        struct pollfd q[2];
        int r;
        q[0] = p[0];
        q[1].fd = K_STALL_FD;
        q[1].events = POLLIN;
        for (;;) {
            q[0].revents = q[1].revents = 0;
            r = poll(q, 2, -1);
            if (r < 0) return r;
            if (q[0].revents) {
                p[0].revents = q[0].revents;
                return 1;
            }
            if (q[1].revents) {
                p[0].revents = 0;
                r = poll(p, 1, 0);
                return r;
            }
        }
    }
    return poll(p, n, timeout);
}

static int k_getsockopt(int fd, int level, int name, void *val, socklen_t *len) {
    int r = getsockopt(fd, level, name, val, len);
    if (r == 0 && k_case->peer_other && level == SOL_SOCKET && name == SO_PEERCRED)
        ((struct ucred *)val)->uid = geteuid() + 1;
    return r;
}

/* ---------------------------------------------------------------- the fake Node path */

static void k_put(const void *p, size_t n) {
    const unsigned char *b = p;
    while (n > 0) {
        ssize_t w = write(K_REPORT_FD, b, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) _exit(120);
        b += w;
        n -= (size_t)w;
    }
}

/* A record of the report: a tag, a 32-bit length, the bytes. */
static void rec(char tag, const void *p, size_t n) {
    unsigned char h[5];
    h[0] = (unsigned char)tag;
    fz_set32(h + 1, (uint32_t)n);
    k_put(h, 5);
    k_put(p, n);
}

static void recf(char tag, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void recf(char tag, const char *fmt, ...) {
    char s[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s, sizeof s, fmt, ap);
    va_end(ap);
    rec(tag, s, strlen(s));
}

static void fake_node(const char *file, char *const argv[]) __attribute__((noreturn));
static void fake_node(const char *file, char *const argv[]) {
    char **e, buf[65536];
    struct sigaction sa;
    struct stat st, cs;
    const char *copy = getenv("HOOKD_CLIENT_STDIN_COPY");
    size_t rtlen = strlen(k_rt), i;
    DIR *d;
    struct dirent *ent;
    rec('N', "", 0);
    rec('X', file, strlen(file));
    for (i = 0; argv[i]; i++) rec('A', argv[i], strlen(argv[i]));
    for (e = environ; *e; e++) rec('E', *e, strlen(*e));
    if (sigaction(SIGPIPE, NULL, &sa) != 0 || sa.sa_handler != SIG_DFL)
        recf('F', "the Node path started with SIGPIPE not at its default");
    d = opendir("/proc/self/fd");
    while (d && (ent = readdir(d)) != NULL) {
        int fd = atoi(ent->d_name), flags;
        if (ent->d_name[0] < '0' || ent->d_name[0] > '9' || fd <= 2 || fd == dirfd(d)) continue;
        flags = fcntl(fd, F_GETFD);
        if (flags >= 0 && !(flags & FD_CLOEXEC)) recf('F', "the Node path inherits descriptor %d", fd);
    }
    if (d) closedir(d);
    if (fstat(0, &st) != 0) recf('K', "none");
    else recf('K', "%s", S_ISREG(st.st_mode) ? "file" : S_ISFIFO(st.st_mode) ? "pipe" : "other");
    /* The stdin copy: a private regular file in the runtime dir, the one on stdin; released as the Node
     * path releases it. */
    if (copy && strncmp(copy, k_rt, rtlen) == 0 && copy[rtlen] == '/') {
        if (lstat(copy, &cs) != 0) recf('F', "the stdin copy %s is gone: %s", copy, strerror(errno));
        else if (!S_ISREG(cs.st_mode) || (cs.st_mode & 07777) != 0600 || cs.st_uid != geteuid() || cs.st_nlink != 1)
            recf('F', "the stdin copy is not a private regular file (mode %o, %lu links)", (unsigned)cs.st_mode,
                 (unsigned long)cs.st_nlink);
        else if (cs.st_dev == st.st_dev && cs.st_ino == st.st_ino) recf('C', "same");
        unlink(copy);
    }
    for (;;) {
        ssize_t n = read(0, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        rec('S', buf, (size_t)n);
    }
    rec('Z', "", 0);
    _exit(CL_NODE_EXIT);
}

int __wrap_execvp(const char *file, char *const argv[]);
int __wrap_execvp(const char *file, char *const argv[]) {
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    if (strcmp(base, FAKE_PROBE_NAME) == 0) return errno = FAKE_PROBE_ERRNO, -1;
    if (strcmp(base, "fuzz-enoent") == 0) return errno = ENOENT, -1;
    if ((long)getpid() == fz_driver_pid || !k_case) return errno = EPERM, -1;
    fake_node(file, argv);
}

/* ---------------------------------------------------------------- the fuzzer's side: set-up */

struct rtdir {
    char path[PATH_MAX]; /* the runtime dir the client resolves */
    int listen;          /* its live listener, or -1 */
};

static char h_base[PATH_MAX], h_work[PATH_MAX], h_link[PATH_MAX], h_other[PATH_MAX], h_home[PATH_MAX],
    h_long_home[PATH_MAX], h_cjs[PATH_MAX + 16];
static char h_too_long[4100];
static struct rtdir h_rt[CL_DIR_STATES];
static int h_root, h_idle_fds = -1;
static pid_t h_child = -1;
static unsigned long st_cases, st_exit_whole, st_exit_lost, st_node[3], st_node_id, st_refused, st_exec_failed,
    st_requests, st_chunks, st_stalls, st_go, st_version;

static void close_fd(int *fd) {
    if (*fd >= 0) close(*fd);
    *fd = -1;
}

static void must(int ok, const char *what) {
    if (!ok) fz_fatal("%s: %s", what, strerror(errno));
}

static void join(char *out, const char *a, const char *b) {
    char tmp[PATH_MAX];
    if ((size_t)snprintf(tmp, sizeof tmp, "%s/%s", a, b) >= sizeof tmp) fz_fatal("a path too long: %s/%s", a, b);
    strcpy(out, tmp);
}

static void mkdir_mode(const char *path, mode_t mode) {
    must(mkdir(path, 0700) == 0 || errno == EEXIST, path);
    must(chmod(path, mode) == 0, path);
}

/* A unix socket fast.sock in `dir` (bound through /proc: any length), listening unless `live` is 0. */
static int listener(const char *dir, int live) {
    struct sockaddr_un a;
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), fd;
    must(dfd >= 0, dir);
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    must(fd >= 0, "socket");
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    snprintf(a.sun_path, sizeof a.sun_path, "/proc/self/fd/%d/fast.sock", dfd);
    must(bind(fd, (struct sockaddr *)&a, sizeof a) == 0, "bind");
    must(listen(fd, 16) == 0, "listen");
    close(dfd);
    if (!live) {
        close(fd);
        return -1;
    }
    return fd;
}

static void make_file(const char *path) {
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    must(fd >= 0, path);
    close(fd);
}

static int rm_entry(const char *path, const struct stat *st, int type, struct FTW *ftw) {
    (void)st;
    (void)ftw;
    if (type == FTW_DP) return rmdir(path) == 0 ? 0 : -1;
    return unlink(path) == 0 ? 0 : -1;
}

static void setup_dirs(void) {
    const char *tmp = getenv("TMPDIR");
    char path[PATH_MAX], seg[100];
    int i;
    if (!tmp || !*tmp) tmp = "/tmp";
    snprintf(path, sizeof path, "%s/hookd-fuzz-client-XXXXXX", tmp);
    must(mkdtemp(path) != NULL, "mkdtemp");
    must(realpath(path, h_base) != NULL, "realpath");
    join(h_work, h_base, "work");
    mkdir_mode(h_work, 0700);
    join(h_link, h_base, "work-link");
    must(symlink("work", h_link) == 0, "symlink");
    join(h_other, h_base, "other");
    mkdir_mode(h_other, 0700);
    join(h_home, h_base, "home");
    mkdir_mode(h_home, 0700);
    for (i = 0; i < CL_DIR_STATES; i++) h_rt[i].listen = -1;

    join(h_rt[CL_DIR_OK].path, h_base, "hookd");
    mkdir_mode(h_rt[CL_DIR_OK].path, 0700);
    h_rt[CL_DIR_OK].listen = listener(h_rt[CL_DIR_OK].path, 1);
    strcpy(h_rt[CL_DIR_OK_XDG].path, h_rt[CL_DIR_OK].path);
    strcpy(h_rt[CL_DIR_OFF].path, h_rt[CL_DIR_OK].path);
    /* $HOME/.local/state/hookd/run, a path longer than a socket address holds. */
    memset(seg, 'h', 90);
    seg[90] = '\0';
    join(h_long_home, h_base, seg);
    mkdir_mode(h_long_home, 0700);
    join(path, h_long_home, ".local");
    mkdir_mode(path, 0700);
    join(path, path, "state");
    mkdir_mode(path, 0700);
    join(path, path, "hookd");
    mkdir_mode(path, 0700);
    join(h_rt[CL_DIR_OK_LONG].path, path, "run");
    mkdir_mode(h_rt[CL_DIR_OK_LONG].path, 0700);
    h_rt[CL_DIR_OK_LONG].listen = listener(h_rt[CL_DIR_OK_LONG].path, 1);

    join(h_rt[CL_DIR_MISSING].path, h_base, "missing");
    join(h_rt[CL_DIR_NO_SOCKET].path, h_base, "nosock");
    mkdir_mode(h_rt[CL_DIR_NO_SOCKET].path, 0700);
    join(h_rt[CL_DIR_STALE].path, h_base, "stale");
    mkdir_mode(h_rt[CL_DIR_STALE].path, 0700);
    listener(h_rt[CL_DIR_STALE].path, 0);
    join(h_rt[CL_DIR_GROUP_W].path, h_base, "groupw");
    mkdir_mode(h_rt[CL_DIR_GROUP_W].path, 0700);
    h_rt[CL_DIR_GROUP_W].listen = listener(h_rt[CL_DIR_GROUP_W].path, 1);
    must(chmod(h_rt[CL_DIR_GROUP_W].path, 0770) == 0, "chmod");
    join(h_rt[CL_DIR_WORLD_W].path, h_base, "worldw");
    mkdir_mode(h_rt[CL_DIR_WORLD_W].path, 0700);
    h_rt[CL_DIR_WORLD_W].listen = listener(h_rt[CL_DIR_WORLD_W].path, 1);
    must(chmod(h_rt[CL_DIR_WORLD_W].path, 01777) == 0, "chmod");
    join(h_rt[CL_DIR_SYMLINK].path, h_base, "link");
    must(symlink("hookd", h_rt[CL_DIR_SYMLINK].path) == 0, "symlink");
    join(h_rt[CL_DIR_FILE].path, h_base, "file");
    make_file(h_rt[CL_DIR_FILE].path);
    join(h_rt[CL_DIR_SOCK_FILE].path, h_base, "sockfile");
    mkdir_mode(h_rt[CL_DIR_SOCK_FILE].path, 0700);
    join(path, h_rt[CL_DIR_SOCK_FILE].path, "fast.sock");
    make_file(path);
    join(h_rt[CL_DIR_SOCK_LINK].path, h_base, "socklink");
    mkdir_mode(h_rt[CL_DIR_SOCK_LINK].path, 0700);
    join(path, h_rt[CL_DIR_SOCK_LINK].path, "fast.sock");
    must(symlink("../hookd/fast.sock", path) == 0, "symlink");
    if (h_root) {
        join(h_rt[CL_DIR_OTHER_USER].path, h_base, "otheruser");
        mkdir_mode(h_rt[CL_DIR_OTHER_USER].path, 0700);
        h_rt[CL_DIR_OTHER_USER].listen = listener(h_rt[CL_DIR_OTHER_USER].path, 1);
        must(chown(h_rt[CL_DIR_OTHER_USER].path, OTHER_UID, OTHER_UID) == 0, "chown");
        join(h_rt[CL_DIR_SOCK_OTHER].path, h_base, "sockother");
        mkdir_mode(h_rt[CL_DIR_SOCK_OTHER].path, 0700);
        h_rt[CL_DIR_SOCK_OTHER].listen = listener(h_rt[CL_DIR_SOCK_OTHER].path, 1);
        join(path, h_rt[CL_DIR_SOCK_OTHER].path, "fast.sock");
        must(lchown(path, OTHER_UID, OTHER_UID) == 0, "chown");
    }
    /* Longer than the client's path buffer holds. */
    memset(h_too_long, 'x', sizeof h_too_long - 1);
    h_too_long[0] = '/';
    h_too_long[sizeof h_too_long - 1] = '\0';
    strcpy(h_rt[CL_DIR_TOO_LONG].path, "/too-long");
}

/* The runtime dirs and their listeners go at the end of a run, a failed one too (fz_fail exits). */
static void remove_dirs(void) {
    int i;
    if ((long)getpid() != fz_driver_pid) return;
    for (i = 0; i < CL_DIR_STATES; i++) close_fd(&h_rt[i].listen);
    if (h_base[0]) nftw(h_base, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    h_base[0] = '\0';
}

static int h_verbose;

static void client_init(const struct fz_options *opt) {
    char exe[PATH_MAX], *slash, *argv[] = {(char *)FAKE_PROBE_NAME, NULL};
    ssize_t n;
    h_verbose = opt->verbose;
    h_root = geteuid() == 0;
    /* Before anything is fuzzed: the client's execvp is the fake Node path (the same object, the wrap). */
    if (execvp("/nonexistent-hookd-fuzz/" FAKE_PROBE_NAME, argv) != -1 || errno != FAKE_PROBE_ERRNO)
        fz_fatal("execvp is not the fuzz stub (build with -Wl,--wrap=execvp): refusing to run");
    /* Commands the client forks (its stdin writer) are reaped here once their parent is gone. */
    if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) fz_fatal("prctl: %s", strerror(errno));
    /* A client gone early leaves its pipes without a reader (the child starts with SIGPIPE's default). */
    signal(SIGPIPE, SIG_IGN);
    n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) fz_fatal("/proc/self/exe: %s", strerror(errno));
    exe[n] = '\0';
    slash = strrchr(exe, '/');
    *slash = '\0';
    snprintf(h_cjs, sizeof h_cjs, "%s/hookd.cjs", exe);
    setup_dirs();
    atexit(remove_dirs);
    h_idle_fds = fz_count_fds();
}

static void client_finish(void) { remove_dirs(); }

static void client_emergency(void) {
    if (h_child > 0) kill(-h_child, SIGKILL);
}

/* ---------------------------------------------------------------- one case: the environment */

struct strs {
    char **v;
    size_t n, cap;
};

static void strs_add(struct strs *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void strs_add(struct strs *s, const char *fmt, ...) {
    va_list ap;
    char *p;
    if (s->n + 2 > s->cap) {
        s->cap = s->cap ? s->cap * 2 : 32;
        s->v = realloc(s->v, s->cap * sizeof *s->v);
        if (!s->v) fz_fatal("out of memory");
    }
    va_start(ap, fmt);
    if (vasprintf(&p, fmt, ap) < 0) fz_fatal("out of memory");
    va_end(ap);
    s->v[s->n++] = p;
    s->v[s->n] = NULL;
}

static void strs_free(struct strs *s) {
    size_t i;
    for (i = 0; i < s->n; i++) free(s->v[i]);
    free(s->v);
    memset(s, 0, sizeof *s);
}

static void build_env(const struct cl_case *c, struct strs *env) {
    const char *node = cl_node_env(c);
    strs_add(env, "PATH=/usr/bin:/bin");
    strs_add(env, "HOME=%s", c->dir == CL_DIR_OK_LONG ? h_long_home : h_home);
    switch (c->dir) {
    case CL_DIR_OK_XDG:
        strs_add(env, "HOOKD_RUNTIME_DIR=");
        strs_add(env, "XDG_RUNTIME_DIR=%s", h_base);
        break;
    case CL_DIR_OK_LONG:
        strs_add(env, "XDG_RUNTIME_DIR=");
        strs_add(env, "XDG_STATE_HOME=");
        break;
    case CL_DIR_TOO_LONG:
        strs_add(env, "HOOKD_RUNTIME_DIR=%s", h_too_long);
        break;
    case CL_DIR_OFF:
        strs_add(env, "HOOKD=0");
        /* fall through */
    default:
        strs_add(env, "HOOKD_RUNTIME_DIR=%s", h_rt[c->dir].path);
    }
    switch (c->pwd) {
    case CL_PWD_RIGHT:
        strs_add(env, "PWD=%s", h_work);
        break;
    case CL_PWD_WRONG:
        strs_add(env, "PWD=%s", h_other);
        break;
    case CL_PWD_LINK:
        strs_add(env, "PWD=%s", h_link);
        break;
    }
    if (node) strs_add(env, "HOOKD_NODE=%s", node);
    if (c->stall) strs_add(env, "HOOKD_STDIN_TIMEOUT_MS=1");
    switch (c->env) {
    case CL_ENV_INHERITED:
        strs_add(env, "HOOKD_FAST_EVENT_ID=inherited-id");
        strs_add(env, "HOOKD_CLIENT_REFUSED=inherited");
        strs_add(env, "HOOKD_CLIENT_STDIN_COPY=/nonexistent/inherited-copy");
        strs_add(env, "HOOKD_CLIENT_PROTOCOL=inherited");
        break;
    case CL_ENV_ODD:
        strs_add(env, "=weird");
        strs_add(env, "NOEQUALS");
        strs_add(env, "A-B=dash");
        strs_add(env, "1X=digit");
        strs_add(env, "EMPTY=");
        strs_add(env, "BYTES=\xc3\xa9\x01\x7f=");
        break;
    case CL_ENV_BIG: {
        static char big[70001];
        if (!big[0]) memset(big, 'v', sizeof big - 1);
        strs_add(env, "BIG=%s", big);
        break;
    }
    }
    strs_add(env, "TERM=dumb");
}

/* ---------------------------------------------------------------- one case: the child */

struct io {
    int in_w, out_r, err_r, report_r, stall_w, pidfd;
};

/* The exit code of a child that could not be set up (not the client's doing). */
#define K_SETUP_FAILED 121

static void child(const struct cl_case *c, struct strs *env, char **argv, int in_r, int out_w, int err_w,
                  int report_w, int stall_r, uint64_t seed) __attribute__((noreturn));
static void child(const struct cl_case *c, struct strs *env, char **argv, int in_r, int out_w, int err_w,
                  int report_w, int stall_r, uint64_t seed) {
    int argc = 0, code;
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (dup3(report_w, K_REPORT_FD, O_CLOEXEC) < 0 || dup3(stall_r, K_STALL_FD, O_CLOEXEC) < 0) _exit(K_SETUP_FAILED);
    if (c->src == CL_SRC_CLOSED) close(0);
    else if (dup2(in_r, 0) < 0) _exit(K_SETUP_FAILED);
    if (dup2(out_w, 1) < 0 || dup2(err_w, 2) < 0) _exit(K_SETUP_FAILED);
    if (c->fd1_closed) close(1);
    if (close_range(3, K_REPORT_FD - 1, 0) != 0 || close_range(K_STALL_FD + 1, ~0U, 0) != 0) _exit(K_SETUP_FAILED);
    if (c->cwd_gone) {
        char gone[PATH_MAX + 32];
        snprintf(gone, sizeof gone, "%s/gone-%ld", h_base, (long)getpid());
        if (mkdir(gone, 0700) != 0 || chdir(gone) != 0 || rmdir(gone) != 0) _exit(K_SETUP_FAILED);
    } else if (chdir(h_work) != 0) {
        _exit(K_SETUP_FAILED);
    }
    umask(c->umask);
    signal(SIGPIPE, SIG_DFL);
    signal(SIGALRM, SIG_DFL);
    k_case = c;
    k_rng.s = seed;
    k_rt = h_rt[c->dir].path;
    environ = env->v;
    while (argv[argc]) argc++;
    code = client_main(argc, argv);
    k_exit(code & 0xff);
}

/* ---------------------------------------------------------------- one case: the daemon */

enum phase { D_REQUEST, D_SEND_A, D_WAIT_GO, D_SEND_B, D_HOLD, D_DONE };

struct daemon {
    int fd;
    enum phase phase;
    struct fz_buf req, go;
    int request_whole, got_go, connections;
    size_t request_bytes_at_close;
    /* What is being sent: bytes, how far, how cut, and whether the last chunk must be read first. */
    const unsigned char *out;
    size_t out_len, out_off;
    unsigned mode, chunks_left;
    int consume;
    char copy[PATH_MAX]; /* the stdin copy the request named */
};

struct run {
    const struct cl_case *c;
    const struct cl_expect *e;
    const struct fz_buf *in;
    struct strs *env;
    struct fz_rng *r;
    struct daemon d;
    struct io io;
    struct fz_buf out, err, report;
    int out_open, err_open, report_open, status, reaped;
};

static const unsigned char *find_nul(const unsigned char *p, const unsigned char *end) {
    return memchr(p, 0, (size_t)(end - p));
}

/* The request as far as it came: 1 when it is whole (and then checked), 0 when more is to come. */
static int take_request(struct run *u) {
    struct daemon *d = &u->d;
    const unsigned char *p = d->req.p, *end = p + d->req.len, *q;
    const struct cl_expect *e = u->e;
    char head[1024];
    const char *copy;
    size_t i, k, hl;
    int lines = 0, n;
    if (!p) return 0;
    for (q = p; q < end && lines < 5; q++)
        if (*q == '\n') lines++;
    if (lines < 5) return 0;
    hl = (size_t)(q - p);
    n = snprintf(head, sizeof head, "HOOKD-FAST %d %d\n%s\n%s\n%04o\n%s\n", CL_PROTOCOL, CL_VERSION, e->agent,
                 e->event, u->c->umask, e->stalled ? "timeout" : "eof");
    if ((size_t)n != hl || memcmp(head, p, hl) != 0)
        fz_fail("the request's header is \"%.*s\", not \"%s\"", (int)(hl < 300 ? hl : 300), (const char *)p, head);
    p = q;
    /* cwd, the copy's path, the environment up to an empty entry. */
    if (!(q = find_nul(p, end))) return 0;
    {
        const char *want = u->c->pwd == CL_PWD_LINK ? h_link : h_work;
        if (strcmp((const char *)p, want) != 0) fz_fail("the request's cwd is %s, not %s", (const char *)p, want);
    }
    p = q + 1;
    if (!(q = find_nul(p, end))) return 0;
    copy = (const char *)p;
    p = q + 1;
    for (i = 0;; i++) {
        if (!(q = find_nul(p, end))) return 0;
        if (q == p) break;
        /* The next entry of the environment that has a name. */
        while (i < u->env->n && (u->env->v[i][0] == '=' || !strchr(u->env->v[i], '='))) i++;
        if (i >= u->env->n || strcmp(u->env->v[i], (const char *)p) != 0)
            fz_fail("the request's environment has \"%.80s\" where \"%.80s\" is", (const char *)p,
                    i < u->env->n ? u->env->v[i] : "(the end)");
        p = q + 1;
    }
    while (i < u->env->n && (u->env->v[i][0] == '=' || !strchr(u->env->v[i], '='))) i++;
    if (i != u->env->n) fz_fail("the request's environment ends before \"%.80s\"", u->env->v[i]);
    p = q + 1;
    if (e->inline_ok) {
        if (strcmp(copy, "-") != 0) fz_fail("a stdin of %lu bytes went to a copy", (unsigned long)u->in->len);
        if (!(q = find_nul(p, end))) return 0;
        if ((size_t)(q - p) != u->in->len || (u->in->len && memcmp(p, u->in->p, u->in->len) != 0))
            fz_fail("the inline stdin is %lu bytes, not the %lu the agent wrote", (unsigned long)(q - p),
                    (unsigned long)u->in->len);
        p = q + 1;
    } else {
        char want[PATH_MAX];
        struct stat st;
        struct fz_buf got = {0};
        int fd;
        k = (size_t)snprintf(want, sizeof want, "%s/c.%ld.", h_rt[u->c->dir].path, (long)h_child);
        if (strncmp(copy, want, k) != 0 || !copy[k] || strspn(copy + k, "0123456789") != strlen(copy + k))
            fz_fail("the request's stdin copy is \"%.200s\", not %s<n>", copy, want);
        if (lstat(copy, &st) != 0 || !S_ISREG(st.st_mode) || (st.st_mode & 07777) != 0600 ||
            st.st_uid != geteuid() || st.st_nlink != 1)
            fz_fail("the stdin copy %s is not a private regular file", copy);
        fd = open(copy, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) fz_fail("the stdin copy %s: %s", copy, strerror(errno));
        for (;;) {
            unsigned char b[65536];
            ssize_t r = read(fd, b, sizeof b);
            if (r <= 0) break;
            fz_put(&got, b, (size_t)r);
        }
        close(fd);
        if (got.len != u->in->len || (got.len && memcmp(got.p, u->in->p, got.len) != 0))
            fz_fail("the stdin copy holds %lu bytes, not the %lu the agent wrote", (unsigned long)got.len,
                    (unsigned long)u->in->len);
        free(got.p);
        snprintf(d->copy, sizeof d->copy, "%s", copy);
    }
    if (p != end) fz_fail("the client sent %lu bytes after its request", (unsigned long)(end - p));
    return 1;
}

static void start_sending(struct run *u, const unsigned char *p, size_t n, unsigned mode, enum phase ph) {
    struct daemon *d = &u->d;
    d->out = p;
    d->out_len = n;
    d->out_off = 0;
    d->mode = mode;
    /* Byte by byte over the first lines, then a few chunks; the rest in one write. */
    d->chunks_left = mode == 2 ? 48 : 20;
    d->consume = 0;
    d->phase = ph;
}

static void d_close(struct run *u) {
    struct daemon *d = &u->d;
    if (d->fd >= 0 && d->phase == D_REQUEST) d->request_bytes_at_close = d->req.len;
    close_fd(&d->fd);
    d->phase = D_DONE;
}

/* All of the bytes before GO went out: what the daemon does then. */
static void after_a(struct run *u) {
    struct daemon *d = &u->d;
    if (u->c->a_eof) {
        shutdown(d->fd, SHUT_WR);
    } else if (write(u->io.stall_w, "s", 1) != 1 && errno != EPIPE) {
        fz_fatal("the stall pipe: %s", strerror(errno));
    }
    d->phase = u->c->go_refused ? D_HOLD : D_WAIT_GO;
}

static void send_some(struct run *u) {
    struct daemon *d = &u->d;
    size_t left = d->out_len - d->out_off, n = left;
    ssize_t w;
    if (d->consume) {
        int q = 0;
        if (ioctl(d->fd, SIOCOUTQ, &q) == 0 && q > 0) return;
        d->consume = 0;
    }
    if (left > 0 && d->mode != 0 && d->chunks_left > 0) {
        const unsigned char *nl;
        d->chunks_left--;
        if (d->mode == 2 && d->out_off < 40) n = 1;
        else if (d->mode == 3 && (nl = memchr(d->out + d->out_off, '\n', left)) != NULL)
            n = (size_t)(nl - (d->out + d->out_off)) + 1;
        else n = 1 + fz_below(u->r, (uint32_t)(left < 4096 ? left : 4096));
    }
    if (n > 0) {
        w = send(d->fd, d->out + d->out_off, n, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w < 0 && (errno == EAGAIN || errno == EINTR)) return;
        if (w < 0) {
            /* The client is gone (it fell back or exited): nothing more goes out. */
            if (d->phase == D_SEND_A) d->phase = u->c->go_refused ? D_HOLD : D_WAIT_GO;
            else d_close(u);
            return;
        }
        d->out_off += (size_t)w;
        if (d->mode != 0 && d->chunks_left > 0) {
            d->consume = 1;
            st_chunks++;
        }
    }
    if (d->out_off < d->out_len) return;
    if (d->phase == D_SEND_A) after_a(u);
    else d_close(u);
}

/* Reads what the client sent. */
static void receive(struct run *u) {
    struct daemon *d = &u->d;
    unsigned char buf[65536];
    ssize_t n = recv(d->fd, buf, sizeof buf, MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
    if (n <= 0) {
        d_close(u);
        return;
    }
    if (d->phase == D_REQUEST) {
        fz_put(&d->req, buf, (size_t)n);
        if (d->req.len > 1024 * 1024) fz_fail("the request is over 1 MiB");
        if (!take_request(u)) return;
        d->request_whole = 1;
        st_requests++;
        if (u->c->go_refused) shutdown(d->fd, SHUT_RD);
        start_sending(u, u->c->a, u->c->a_len, u->c->a_chunks, D_SEND_A);
        return;
    }
    if (d->phase != D_WAIT_GO) fz_fail("the client sent %ld bytes while the daemon was sending", (long)n);
    fz_put(&d->go, buf, (size_t)n);
    if (memcmp(d->go.p, "GO\n", d->go.len < 3 ? d->go.len : 3) != 0 || d->go.len > 3)
        fz_fail("the client sent \"%.*s\" after the answer, not GO", (int)(d->go.len < 40 ? d->go.len : 40),
                (const char *)d->go.p);
    if (d->go.len < 3) return;
    d->got_go = 1;
    st_go++;
    /* The daemon's part at GO: the copy is its own now. */
    if (d->copy[0]) unlink(d->copy);
    if (u->c->a_eof) d_close(u);
    else start_sending(u, u->c->b, u->c->b_len, u->c->b_chunks, D_SEND_B);
}

/* ---------------------------------------------------------------- one case: the loop */

static void drain_pipe(int *fd, struct fz_buf *into, int *open_flag) {
    unsigned char buf[65536];
    for (;;) {
        ssize_t n = read(*fd, buf, sizeof buf);
        if (n > 0) {
            if (into) fz_put(into, buf, (size_t)n);
            if (into && into->len > 64 * 1024 * 1024) fz_fail("the client wrote over 64 MiB");
            continue;
        }
        if (n < 0 && (errno == EINTR)) continue;
        if (n < 0 && errno == EAGAIN) return;
        close_fd(fd);
        *open_flag = 0;
        return;
    }
}

static int listener_of(int state) {
    switch (state) {
    case CL_DIR_OK_XDG:
    case CL_DIR_OFF:
    case CL_DIR_SYMLINK:
    case CL_DIR_SOCK_LINK:
        return h_rt[CL_DIR_OK].listen;
    default:
        return h_rt[state].listen;
    }
}

/* A connection on a listener: the case's (once), else a finding. */
static void accept_on(struct run *u, int lfd) {
    int fd;
    while ((fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
        if (lfd != listener_of(u->c->dir) || !u->e->connects) {
            close(fd);
            fz_fail("the client connected to a listener it must not talk to");
        }
        if (u->d.connections++ > 0) {
            close(fd);
            fz_fail("the client connected twice");
        }
        u->d.fd = fd;
        u->d.phase = D_REQUEST;
    }
}

static int pending_connection(void) {
    struct pollfd p[CL_DIR_STATES];
    int n = 0, i;
    for (i = 0; i < CL_DIR_STATES; i++)
        if (h_rt[i].listen >= 0) {
            p[n].fd = h_rt[i].listen;
            p[n++].events = POLLIN;
        }
    return poll(p, (nfds_t)n, 0) > 0;
}

static void loop(struct run *u) {
    struct pollfd p[CL_DIR_STATES + 8];
    int lfds[CL_DIR_STATES];
    int i, n, nl;
    for (;;) {
        struct daemon *d = &u->d;
        struct timespec ts = {0, 50000};
        int want_in, want_out;
        if (u->reaped && !u->out_open && !u->err_open && !u->report_open) {
            if (d->phase == D_HOLD) d_close(u);
            if (d->fd < 0 && !pending_connection()) return;
        }
        n = 0;
        for (i = 0; i < CL_DIR_STATES; i++)
            if (h_rt[i].listen >= 0) {
                lfds[n] = h_rt[i].listen;
                p[n].fd = h_rt[i].listen;
                p[n++].events = POLLIN;
            }
        nl = n;
        want_in = d->fd >= 0 && (d->phase == D_REQUEST || d->phase == D_WAIT_GO);
        want_out = d->fd >= 0 && (d->phase == D_SEND_A || d->phase == D_SEND_B) && !d->consume;
        p[n].fd = d->fd >= 0 && (want_in || want_out) ? d->fd : -1;
        p[n++].events = (short)((want_in ? POLLIN : 0) | (want_out ? POLLOUT : 0));
        p[n].fd = u->io.out_r;
        p[n++].events = POLLIN;
        p[n].fd = u->io.err_r;
        p[n++].events = POLLIN;
        p[n].fd = u->io.report_r;
        p[n++].events = POLLIN;
        p[n].fd = u->reaped ? -1 : u->io.pidfd;
        p[n++].events = POLLIN;
        if (ppoll(p, (nfds_t)n, d->consume ? &ts : NULL, NULL) < 0 && errno != EINTR)
            fz_fatal("ppoll: %s", strerror(errno));
        for (i = 0; i < nl; i++)
            if (p[i].revents) accept_on(u, lfds[i]);
        if (p[nl + 1].revents) drain_pipe(&u->io.out_r, &u->out, &u->out_open);
        if (p[nl + 2].revents) drain_pipe(&u->io.err_r, &u->err, &u->err_open);
        if (p[nl + 3].revents) {
            drain_pipe(&u->io.report_r, &u->report, &u->report_open);
            /* The Node path started: an agent that never closed stdin is done writing now. */
            if (u->report.len > 0) close_fd(&u->io.in_w);
        }
        if (p[nl + 4].revents) {
            if (waitpid(h_child, &u->status, 0) != h_child) fz_fatal("waitpid: %s", strerror(errno));
            u->reaped = 1;
            close_fd(&u->io.in_w);
            close_fd(&u->io.pidfd);
        }
        if (d->fd >= 0 && d->phase == D_HOLD && u->reaped) d_close(u);
        if (d->fd >= 0 && (p[nl].revents & (POLLIN | POLLHUP | POLLERR)) && want_in) receive(u);
        if (d->fd >= 0 && (d->phase == D_SEND_A || d->phase == D_SEND_B)) send_some(u);
    }
}

/* ---------------------------------------------------------------- one case: the checks */

struct report {
    struct strs argv, env;
    const char *file, *kind;
    int same_copy, ended, started;
    struct fz_buf in;
};

static void parse_report(const struct fz_buf *b, struct report *rp) {
    size_t off = 0;
    static char file[PATH_MAX], kind[32];
    memset(rp, 0, sizeof *rp);
    while (off + 5 <= b->len) {
        char tag = (char)b->p[off];
        size_t n = fz_get32(b->p + off + 1);
        const char *s = (const char *)b->p + off + 5;
        if (off + 5 + n > b->len) fz_fail("the fake Node path's report is cut short");
        switch (tag) {
        case 'N':
            rp->started = 1;
            break;
        case 'X':
            snprintf(file, sizeof file, "%.*s", (int)n, s);
            rp->file = file;
            break;
        case 'A':
            strs_add(&rp->argv, "%.*s", (int)n, s);
            break;
        case 'E':
            strs_add(&rp->env, "%.*s", (int)n, s);
            break;
        case 'K':
            snprintf(kind, sizeof kind, "%.*s", (int)n, s);
            rp->kind = kind;
            break;
        case 'C':
            rp->same_copy = 1;
            break;
        case 'S':
            fz_put(&rp->in, s, n);
            break;
        case 'Z':
            rp->ended = 1;
            break;
        case 'F':
            fz_fail("%.*s", (int)n, s);
        default:
            fz_fail("the fake Node path's report has a record '%c'", tag);
        }
        off += 5 + n;
    }
}

static int by_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int has_prefix(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

/* The Node path's environment: the agent's, with the client's four variables as the case says. */
static void check_env(const struct run *u, struct report *rp) {
    const struct cl_expect *e = u->e;
    struct strs want = {0};
    char copy_prefix[PATH_MAX];
    size_t i;
    const char *copy = NULL;
    for (i = 0; i < u->env->n; i++) {
        const char *v = u->env->v[i];
        if (has_prefix(v, "HOOKD_FAST_EVENT_ID=") || has_prefix(v, "HOOKD_CLIENT_REFUSED=") ||
            has_prefix(v, "HOOKD_CLIENT_STDIN_COPY=") || has_prefix(v, "HOOKD_CLIENT_PROTOCOL="))
            continue;
        strs_add(&want, "%s", v);
    }
    /* The client always says its protocol; an inherited copy path never passes. */
    strs_add(&want, "HOOKD_CLIENT_PROTOCOL=3");
    if (e->fast_id[0]) strs_add(&want, "HOOKD_FAST_EVENT_ID=%s", e->fast_id);
    if (e->refused) strs_add(&want, "HOOKD_CLIENT_REFUSED=%s", e->refused);
    if (e->how == CL_COPY) strs_add(&want, "HOOKD_CLIENT_STDIN_COPY=(the copy)");
    snprintf(copy_prefix, sizeof copy_prefix, "HOOKD_CLIENT_STDIN_COPY=%s/c.", h_rt[u->c->dir].path);
    for (i = 0; i < rp->env.n; i++)
        if (e->how == CL_COPY && has_prefix(rp->env.v[i], copy_prefix)) {
            copy = rp->env.v[i];
            free(rp->env.v[i]);
            rp->env.v[i] = strdup("HOOKD_CLIENT_STDIN_COPY=(the copy)");
        }
    if (e->how == CL_COPY && !copy) fz_fail("the Node path got no HOOKD_CLIENT_STDIN_COPY in the runtime dir");
    qsort(want.v, want.n, sizeof *want.v, by_str);
    qsort(rp->env.v, rp->env.n, sizeof *rp->env.v, by_str);
    for (i = 0; i < want.n || i < rp->env.n; i++) {
        const char *a = i < want.n ? want.v[i] : "(none)", *b = i < rp->env.n ? rp->env.v[i] : "(none)";
        if (strcmp(a, b) != 0)
            fz_fail("the Node path's environment differs: \"%.100s\" where \"%.100s\" was expected (refused %s, "
                    "event id \"%s\")",
                    b, a, e->refused ? e->refused : "none", e->fast_id);
    }
    strs_free(&want);
}

static const char *how_name(enum cl_how h) { return h == CL_DIRECT ? "direct" : h == CL_COPY ? "copy" : "pipe"; }

/* The client's stderr, printable bytes as they are (a sanitizer report), others escaped, at most 16 KiB. */
static void show_child_stderr(const struct run *u) {
    size_t i, n = u->err.len < 16384 ? u->err.len : 16384;
    if (!n) return;
    fflush(fz_out);
    fputs("--- the client's stderr:\n", stderr);
    for (i = 0; i < n; i++) {
        unsigned char ch = u->err.p[i];
        if (ch == '\n' || (ch >= 0x20 && ch < 0x7f)) fputc(ch, stderr);
        else fprintf(stderr, "\\x%02x", ch);
    }
    if (n < u->err.len) fprintf(stderr, "... (%lu bytes in all)", (unsigned long)u->err.len);
    fputs("\n---\n", stderr);
}

static int bytes_eq(const struct fz_buf *a, const struct fz_buf *b) {
    return a->len == b->len && (a->len == 0 || memcmp(a->p, b->p, a->len) == 0);
}

static void first_difference(const char *what, const struct fz_buf *got, const struct fz_buf *want) {
    size_t i = 0;
    while (i < got->len && i < want->len && got->p[i] == want->p[i]) i++;
    fz_fail("the client's %s is %lu bytes, not %lu (they differ from byte %lu)", what, (unsigned long)got->len,
            (unsigned long)want->len, (unsigned long)i);
}

static void check(struct run *u) {
    const struct cl_expect *e = u->e;
    const struct cl_case *c = u->c;
    int code = WIFEXITED(u->status) ? WEXITSTATUS(u->status) : -1;
    struct fz_buf empty = {0};
    if ((code == 211 && !(e->outcome == CL_EXIT && e->code == 211)) ||
        (u->err.len && (memmem(u->err.p, u->err.len, "Sanitizer", 9) ||
                        memmem(u->err.p, u->err.len, "runtime error:", 14)))) {
        show_child_stderr(u);
        fz_fail("a sanitizer report in the client (its stderr above)");
    }
    if (WIFSIGNALED(u->status)) fz_fail("the client was killed by signal %d", WTERMSIG(u->status));
    if (code == K_SETUP_FAILED && u->report.len == 0 && !u->d.connections)
        fz_fatal("the case's child could not be set up (its fds, cwd or a dir)");
    if (e->outcome == CL_EXIT || e->exec_fails) {
        struct fz_buf want_err = {0};
        int want_code = e->code;
        if (u->report.len) {
            struct report rp;
            parse_report(&u->report, &rp);
            fz_fail("the client ran the Node path (%s), but it must %s", rp.kind ? rp.kind : "?",
                    e->outcome == CL_NODE ? "fail to start it" : e->go ? "not after GO" : "exit");
        }
        if (e->outcome == CL_NODE) {
            char msg[256];
            int n = snprintf(msg, sizeof msg, "hookd: cannot run %s: No such file or directory\n", cl_node_name(c));
            fz_put(&want_err, msg, (size_t)n);
            want_code = 127;
            st_exec_failed++;
        } else {
            fz_put(&want_err, e->err.p, e->err.len);
        }
        if (code != want_code) {
            show_child_stderr(u);
            fz_fail("the client exited %d, not %d", code, want_code);
        }
        if (e->check_stdout && !bytes_eq(&u->out, e->outcome == CL_EXIT ? &e->out : &empty))
            first_difference("stdout", &u->out, e->outcome == CL_EXIT ? &e->out : &empty);
        if (!bytes_eq(&u->err, &want_err)) {
            show_child_stderr(u);
            first_difference("stderr", &u->err, &want_err);
        }
        free(want_err.p);
        if (e->outcome == CL_EXIT) {
            if (c->argv == CL_ARGV_VERSION) st_version++;
            else if (e->whole) st_exit_whole++;
            else st_exit_lost++;
        }
    } else {
        struct report rp;
        char **argv;
        size_t i;
        if (code != CL_NODE_EXIT) {
            show_child_stderr(u);
            fz_fail("the client exited %d, but it must run the Node path (%s)", code, how_name(e->how));
        }
        parse_report(&u->report, &rp);
        if (!rp.started || !rp.ended || !rp.file) fz_fail("the fake Node path's report is incomplete");
        if (strcmp(rp.file, cl_node_name(c)) != 0) fz_fail("the client ran %s, not %s", rp.file, cl_node_name(c));
        argv = cl_argv(c, "client");
        if (rp.argv.n < 3 || strcmp(rp.argv.v[0], cl_node_name(c)) != 0 || strcmp(rp.argv.v[1], h_cjs) != 0 ||
            strcmp(rp.argv.v[2], "hook") != 0)
            fz_fail("the Node path's argv does not start with %s %s hook", cl_node_name(c), h_cjs);
        for (i = 1; argv[i] || i + 2 < rp.argv.n; i++)
            if (!argv[i] || i + 2 >= rp.argv.n || strcmp(argv[i], rp.argv.v[i + 2]) != 0)
                fz_fail("the Node path's argument %lu is not the client's", (unsigned long)i);
        check_env(u, &rp);
        {
            /* Its stdin: the copy, the pipe, or the agent's own (a pipe, a file, /dev/null for none). */
            const char *kind = e->how == CL_COPY   ? "file"
                               : e->how == CL_PIPE ? "pipe"
                               : c->src == CL_SRC_FILE ? "file"
                               : c->src == CL_SRC_CLOSED ? "other"
                                                         : "pipe";
            if (!rp.kind || strcmp(rp.kind, kind) != 0)
                fz_fail("the Node path's stdin is a %s, not a %s (%s)", rp.kind ? rp.kind : "?", kind,
                        how_name(e->how));
        }
        if (e->how == CL_COPY && !rp.same_copy)
            fz_fail("the Node path's stdin is not the file HOOKD_CLIENT_STDIN_COPY names");
        if (!bytes_eq(&rp.in, u->in))
            fz_fail("the Node path read %lu stdin bytes (%s), not the %lu the agent wrote", (unsigned long)rp.in.len,
                    how_name(e->how), (unsigned long)u->in->len);
        if (u->out.len || u->err.len) {
            show_child_stderr(u);
            fz_fail("the client wrote %lu bytes on stdout and %lu on stderr before the Node path",
                    (unsigned long)u->out.len, (unsigned long)u->err.len);
        }
        st_node[e->how]++;
        if (e->fast_id[0]) st_node_id++;
        if (e->refused) st_refused++;
        strs_free(&rp.argv);
        strs_free(&rp.env);
        free(rp.in.p);
    }
    /* What the daemon saw. */
    if (!e->connects && u->d.connections) fz_fail("the client connected");
    if (e->connects && !u->d.connections) fz_fail("the client did not connect");
    if (e->request && !u->d.request_whole)
        fz_fail("the daemon got %lu bytes of a request, not all of it", (unsigned long)u->d.req.len);
    if (!e->request && u->d.req.len)
        fz_fail("the client sent %lu bytes of its request though it %s", (unsigned long)u->d.req.len,
                e->refused ? "refused the daemon" : "must fall back first");
    if (e->go != u->d.got_go) fz_fail(e->go ? "the client sent no GO" : "the client sent GO");
    if (u->c->stall && e->request) st_stalls++;
}

/* The stdin copies left in the case's runtime dir: none, but for a Node path that could not start. */
static void leftover_copies(const struct run *u) {
    const char *dir = h_rt[u->c->dir].path;
    DIR *d;
    struct dirent *ent;
    int allowed = u->e->outcome == CL_NODE && u->e->exec_fails && u->e->how == CL_COPY;
    if (u->c->dir == CL_DIR_TOO_LONG || !(d = opendir(dir))) return;
    while ((ent = readdir(d)) != NULL) {
        char path[PATH_MAX];
        if (strncmp(ent->d_name, "c.", 2) != 0) continue;
        join(path, dir, ent->d_name);
        unlink(path);
        if (!allowed) {
            closedir(d);
            fz_fail("a stdin copy was left in the runtime dir (%s)", ent->d_name);
        }
    }
    closedir(d);
}

/* ---------------------------------------------------------------- one case */

static void set_nonblock(int fd) {
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0) fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/* A case's own random source (how its bytes are cut into writes, its flaky I/O): a function of its input
 * alone, so a saved input replays exactly whatever the driver drew to make it. */
static uint64_t input_hash(const unsigned char *p, size_t n) {
    uint64_t h = 0xcbf29ce484222325ULL;
    size_t i;
    for (i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ULL;
    return h;
}

static void client_run(const unsigned char *data, size_t len, struct fz_rng *case_rng) {
    struct cl_case c;
    struct cl_expect e;
    struct fz_buf in = {0};
    struct strs env = {0};
    struct run u;
    int in_p[2] = {-1, -1}, out_p[2], err_p[2], rep_p[2], stall_p[2], st, fds;
    struct fz_rng own = {input_hash(data, len)}, *r = &own;
    uint64_t seed = fz_next(r);
    char **argv;
    pid_t pid;

    (void)case_rng;
    cl_decode(data, len, h_root, &c);
    cl_expect(&c, &e);
    cl_stdin(&c, &in);
    build_env(&c, &env);
    argv = cl_argv(&c, "client");
    if (h_verbose)
        fprintf(fz_out,
                "  dir %u pwd %u node %u argv %u env %u; stdin %lu bytes (src %u, nul at %ld, stall %d); fault %u/%u "
                "flaky %d peer %d cwd-gone %d fd1 %d unread %d; daemon: %lu + %lu bytes, eof %d, GO refused %d, "
                "chunks %u/%u; expect %s%s%s, code %d, %lu + %lu bytes%s%s\n",
                c.dir, c.pwd, c.node, c.argv, c.env, (unsigned long)c.stdin_len, c.src, (long)c.stdin_nul, c.stall,
                c.fault, c.fault_param, c.flaky, c.peer_other, c.cwd_gone, c.fd1_closed, c.stdout_unread,
                (unsigned long)c.a_len, (unsigned long)c.b_len, c.a_eof, c.go_refused, c.a_chunks, c.b_chunks,
                e.outcome == CL_EXIT ? "exit" : "node ", e.outcome == CL_NODE ? how_name(e.how) : "",
                e.go ? " after GO" : "", e.code, (unsigned long)e.out.len, (unsigned long)e.err.len,
                e.fast_id[0] ? ", id " : "", e.fast_id);
    memset(&u, 0, sizeof u);
    u.c = &c;
    u.e = &e;
    u.in = &in;
    u.env = &env;
    u.r = r;
    u.d.fd = -1;
    u.d.phase = D_DONE;

    /* stdin: a pipe holding all of it (the agent closed it, or not: `stall`), or a file. */
    if (c.src == CL_SRC_FILE) {
        char path[PATH_MAX];
        int fd;
        join(path, h_base, "stdin");
        fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        must(fd >= 0, path);
        if (in.len && write(fd, in.p, in.len) != (ssize_t)in.len) fz_fatal("the stdin file: %s", strerror(errno));
        close(fd);
        in_p[0] = open(path, O_RDONLY | O_CLOEXEC);
        must(in_p[0] >= 0, path);
        unlink(path);
    } else if (c.src != CL_SRC_CLOSED) {
        size_t off = 0;
        must(pipe2(in_p, O_CLOEXEC) == 0, "pipe");
        if (in.len > 65536 && fcntl(in_p[1], F_SETPIPE_SZ, (int)(in.len + 4096)) < 0)
            fz_fatal("a pipe of %lu bytes: %s", (unsigned long)in.len, strerror(errno));
        while (off < in.len) {
            ssize_t w = write(in_p[1], in.p + off, in.len - off);
            if (w <= 0) fz_fatal("the stdin pipe: %s", strerror(errno));
            off += (size_t)w;
        }
        if (!c.stall) close_fd(&in_p[1]);
    }
    must(pipe2(out_p, O_CLOEXEC) == 0 && pipe2(err_p, O_CLOEXEC) == 0 && pipe2(rep_p, O_CLOEXEC) == 0 &&
             pipe2(stall_p, O_CLOEXEC) == 0,
         "pipe");
    fflush(fz_out);
    fflush(stderr);
    pid = fork();
    must(pid >= 0, "fork");
    if (pid == 0) child(&c, &env, argv, in_p[0], out_p[1], err_p[1], rep_p[1], stall_p[0], seed);
    h_child = pid;
    st_cases++;
    close_fd(&in_p[0]);
    close(out_p[1]);
    close(err_p[1]);
    close(rep_p[1]);
    close(stall_p[0]);
    u.io.in_w = in_p[1];
    u.io.out_r = out_p[0];
    u.io.err_r = err_p[0];
    u.io.report_r = rep_p[0];
    u.io.stall_w = stall_p[1];
    u.io.pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    must(u.io.pidfd >= 0, "pidfd_open");
    fcntl(u.io.pidfd, F_SETFD, FD_CLOEXEC);
    /* An agent that stopped reading the hook's stdout. */
    if (c.stdout_unread) close_fd(&u.io.out_r);
    u.out_open = u.io.out_r >= 0;
    u.err_open = u.report_open = 1;
    set_nonblock(u.io.err_r);
    set_nonblock(u.io.report_r);
    if (u.io.out_r >= 0) set_nonblock(u.io.out_r);

    loop(&u);

    /* The forked stdin writers, reaped here once their parent is gone. */
    while (waitpid(-1, &st, 0) > 0 || errno == EINTR)
        if (WIFEXITED(st) && WEXITSTATUS(st) == 211) {
            show_child_stderr(&u);
            fz_fail("a process the client forked ended with the sanitizers' exit code (211)");
        }
    h_child = -1;
    close_fd(&u.io.stall_w);
    close_fd(&u.io.in_w);
    check(&u);
    leftover_copies(&u);
    fds = fz_count_fds();
    if (fds != h_idle_fds) fz_fail("the fuzzer holds %d descriptors after the case, %d before", fds, h_idle_fds);
    free(u.out.p);
    free(u.err.p);
    free(u.report.p);
    free(u.d.req.p);
    free(u.d.go.p);
    free(in.p);
    strs_free(&env);
    cl_expect_free(&e);
}

static void client_stats(FILE *out) {
    fprintf(out,
            "  answers: %lu whole and checked byte for byte, %lu ended with the lost code; Node path: %lu direct, "
            "%lu with the stdin copy, %lu on a pipe (%lu with the acknowledged id, %lu refusing a runtime dir or "
            "listener), %lu could not start; %lu requests checked, %lu GO, %lu with a stalled stdin, %lu chunks "
            "read one by one, %lu version probes%s\n",
            st_exit_whole, st_exit_lost, st_node[CL_DIRECT], st_node[CL_COPY], st_node[CL_PIPE], st_node_id,
            st_refused, st_exec_failed, st_requests, st_go, st_stalls, st_chunks, st_version,
            h_root ? "" : "; not root: no runtime dir of another user");
}

static const struct fz_target client_target = {
    .name = "client",
    .about = "native/hookd-client.c, a forked child per case, against a fake daemon on real sockets",
    .max_len = CL_MAX_INPUT,
    .init = client_init,
    .generate = cl_generate,
    .mutate = cl_mutate,
    .run = client_run,
    .finish = client_finish,
    .stats = client_stats,
    .emergency = client_emergency,
};

const struct fz_target *const fz_targets[] = {&client_target, NULL};
