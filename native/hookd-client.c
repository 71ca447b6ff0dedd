/*
 * hookd fast client, native (docs/hook.md, "The fast client"; the wire protocol is in
 * src/daemon/listen/fast-server.ts).
 *
 * Run by absolute path as the agent's hook command (`HOOKD_NODE=<node> <pkg>/dist/hookd-client --agent X
 * --event E`; a platform package's client also gets `HOOKD_CJS=<pkg>/dist/hookd.cjs`), it hands the
 * event (stdin bytes, environment, umask, cwd) to the running daemon over the unix socket `fast.sock` in
 * the user's private runtime dir, prints the daemon's answer and exits with its code. It falls back to
 * the Node path (`node <this dir>/hookd.cjs hook <args>`, or HOOKD_CJS; same stdin bytes) ONLY
 * when the daemon did not acknowledge the event, so no command ever runs twice.
 *
 * Rules kept here: nothing is sent to a peer that is not the user's daemon: the runtime dir must be a
 * real directory of this user's that nobody else can write to (as the Node path checks it), the socket a
 * socket of this user's, and the process listening on it must run as this user (the kernel says so:
 * SO_PEERCRED on Linux, getpeereid elsewhere). No port, no secret on the wire: nothing another local user
 * can squat or replay. Event data never becomes shell text (nothing here runs a shell); every read is
 * bounded in size (and, before the acknowledgement, in time); the stdin copy is created exclusively, never
 * through a symlink, mode 0600 whatever the umask.
 *
 * Portable POSIX C99 plus the peer-credential call of each system.
 */
#if defined(__APPLE__)
#define _DARWIN_C_SOURCE
#else
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "hookd-wire.h"
#if defined(__APPLE__)
#include <mach-o/dyld.h>
#endif

#ifndef O_NOFOLLOW
#error "O_NOFOLLOW is required: the client never follows a planted symlink (the bash client is used)"
#endif
#ifndef O_CLOEXEC
#define O_CLOEXEC 0
#endif
#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

extern char **environ;

/* This client's version; the daemon serves a range of them (FAST_CLIENT_VERSIONS). A test builds an
 * older one with -DHOOKD_CLIENT_VERSION=1. */
#ifdef HOOKD_CLIENT_VERSION
#define CLIENT_VERSION HOOKD_CLIENT_VERSION
#else
#define CLIENT_VERSION HOOKD_FAST_CLIENT_VERSION
#endif
#define PROTOCOL HOOKD_FAST_PROTOCOL
#define PROTOCOL_TEXT HOOKD_FAST_PROTOCOL_TEXT
/* The daemon's socket in the runtime dir. */
#define SOCKET_NAME HOOKD_FAST_SOCKET
/* Stdin sent inline when it has no NUL byte and is at most this long: the daemon takes a little more
 * inline; the margin keeps clear of it. More goes to a private copy. */
#define INLINE_MAX HOOKD_FAST_INLINE_SEND_MAX
#define IO_CHUNK (64 * 1024)
/* The ACK and RESULT lines: short. */
#define LINE_MAX_BYTES HOOKD_FAST_LINE_MAX

static char **g_argv;
static int g_argc;
static const char *g_node = "node";
static char g_cjs[PATH_MAX + 16];
static char g_rt[PATH_MAX];
static int g_rtfd = -1; /* the runtime dir, opened and checked; connected through */
static char g_copy[PATH_MAX + 64]; /* the stdin copy's path, "" until one exists */
static int g_sock = -1;
/* The id the daemon acknowledged the event under, once its ACK was read: a fallback after that (a GO
 * that cannot be written) passes it to the Node path (HOOKD_FAST_EVENT_ID), whose event takes it, so the
 * journal keeps the event once (src/hook/fast-event-id.ts). "" before the ACK. */
static char g_fast_id[81];
/* Why this client would not talk to what it found in the runtime dir (a dir, socket or listener that is
 * not the user's own), for the Node path's log; NULL when it found nothing to refuse. */
static const char *g_refused;

/* ---------------------------------------------------------------- the Node path */

static void die_exec(void) {
    /* As bash does when exec fails: a message and 127 (never a blocking 2). */
    fprintf(stderr, "hookd: cannot run %s: %s\n", g_node, strerror(errno));
    exit(127);
}

static void exec_node(void) {
    char **args = calloc((size_t)g_argc + 3, sizeof *args);
    int i;
    if (!args) exit(1);
    if (g_sock >= 0) close(g_sock);
    if (g_rtfd >= 0) close(g_rtfd);
    signal(SIGPIPE, SIG_DFL);
    /* Never one inherited from the agent's environment: only the id this client was acknowledged. */
    if (g_fast_id[0] ? setenv("HOOKD_FAST_EVENT_ID", g_fast_id, 1) != 0 : unsetenv("HOOKD_FAST_EVENT_ID") != 0)
        exit(1);
    if (g_refused ? setenv("HOOKD_CLIENT_REFUSED", g_refused, 1) != 0 : unsetenv("HOOKD_CLIENT_REFUSED") != 0)
        exit(1);
    /* Which client fell back: the Node path tells this protocol's client from older ones. */
    if (setenv("HOOKD_CLIENT_PROTOCOL", PROTOCOL_TEXT, 1) != 0) exit(1);
    args[0] = (char *)g_node;
    args[1] = g_cjs;
    args[2] = "hook";
    for (i = 1; i < g_argc; i++) args[i + 2] = g_argv[i];
    args[g_argc + 2] = NULL;
    execvp(g_node, args);
    die_exec();
}

/* The Node path with stdin as it is (the agent's own, untouched). */
static void node_path(void) {
    /* No copy is handed over: one named in the agent's environment is not this client's. */
    if (unsetenv("HOOKD_CLIENT_STDIN_COPY") != 0) exit(1);
    exec_node();
}

static int write_all(int fd, const char *p, size_t n);
static int wait_fd(int fd, short events, long long deadline);

/*
 * The Node path on a pipe, when no copy can be written (no space, an unwritable runtime dir): a child
 * writes the first `committed` bytes of the partial copy `copy_fd` (when >= 0), then `pending`, then the
 * rest of stdin.
 */
static void node_path_piped(int copy_fd, unsigned long long committed, const char *pending, size_t len) {
    int fds[2];
    pid_t pid;
    if (pipe(fds) != 0) exit(1);
    pid = fork();
    if (pid < 0) exit(1);
    if (pid == 0) {
        static char buf[IO_CHUNK];
        unsigned long long off = 0;
        ssize_t r;
        close(fds[0]);
        if (g_sock >= 0) close(g_sock);
        while (copy_fd >= 0 && off < committed) {
            size_t want = committed - off < sizeof buf ? (size_t)(committed - off) : sizeof buf;
            r = pread(copy_fd, buf, want, (off_t)off);
            if (r < 0 && errno == EINTR) continue;
            if (r <= 0 || write_all(fds[1], buf, (size_t)r) != 0) _exit(0);
            off += (unsigned long long)r;
        }
        if (write_all(fds[1], pending, len) != 0) _exit(0);
        for (;;) {
            r = read(0, buf, sizeof buf);
            if (r < 0 && errno == EINTR) continue;
            /* A non-blocking stdin with nothing in it yet is not its end. */
            if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && wait_fd(0, POLLIN, -1)) continue;
            if (r <= 0) break;
            if (write_all(fds[1], buf, (size_t)r) != 0) break;
        }
        _exit(0);
    }
    close(fds[1]);
    if (copy_fd >= 0) close(copy_fd);
    if (g_copy[0]) unlink(g_copy);
    g_copy[0] = '\0';
    if (dup2(fds[0], 0) < 0 || unsetenv("HOOKD_CLIENT_STDIN_COPY") != 0) exit(1);
    close(fds[0]);
    exec_node();
}

/* Creates the private stdin copy (c.<pid>.<n>), exclusively, never through a symlink, 0600. */
static int create_copy(void) {
    struct timespec ts;
    int attempt, fd;
    for (attempt = 0; attempt < 16; attempt++) {
        unsigned long n;
        clock_gettime(CLOCK_REALTIME, &ts);
        n = ((unsigned long)ts.tv_nsec * 2654435761UL) ^ ((unsigned long)ts.tv_sec << 7) ^
            ((unsigned long)(size_t)&ts >> 4) ^ ((unsigned long)attempt * 40503UL);
        snprintf(g_copy, sizeof g_copy, "%s/c.%ld.%lu", g_rt, (long)getpid(), n % 1000000000000UL);
        fd = open(g_copy, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd >= 0) {
            if (fchmod(fd, 0600) != 0) {
                close(fd);
                unlink(g_copy);
                break;
            }
            return fd;
        }
        if (errno != EEXIST) break;
    }
    g_copy[0] = '\0';
    return -1;
}

/*
 * The Node path with the stdin copy as its stdin and its path in HOOKD_CLIENT_STDIN_COPY (the Node path
 * unlinks it once checked). When stdin went inline, the copy is written now from `body`.
 */
static void fallback(const char *body, size_t len) {
    int fd;
    if (g_sock >= 0) {
        close(g_sock);
        g_sock = -1;
    }
    if (g_copy[0] == '\0') {
        fd = create_copy();
        if (fd < 0 || write_all(fd, body, len) != 0) node_path_piped(fd, 0, body, len);
        close(fd);
    }
    fd = open(g_copy, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        fprintf(stderr, "hookd: cannot read the stdin copy: %s\n", strerror(errno));
        exit(1);
    }
    if (dup2(fd, 0) < 0) exit(1);
    close(fd);
    if (setenv("HOOKD_CLIENT_STDIN_COPY", g_copy, 1) != 0) exit(1);
    exec_node();
}

/* ---------------------------------------------------------------- I/O */

static long long now_ms(void) {
    struct timespec ts;
#if defined(CLOCK_MONOTONIC)
    clock_gettime(CLOCK_MONOTONIC, &ts);
#else
    clock_gettime(CLOCK_REALTIME, &ts);
#endif
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits for `events` on fd until the deadline (ms, monotonic; -1: no deadline). 1 ready, 0 timeout/error. */
static int wait_fd(int fd, short events, long long deadline) {
    struct pollfd p;
    int r;
    for (;;) {
        int timeout = -1;
        if (deadline >= 0) {
            long long left = deadline - now_ms();
            if (left < 0) left = 0;
            timeout = left > INT_MAX ? INT_MAX : (int)left;
        }
        p.fd = fd;
        p.events = events;
        p.revents = 0;
        r = poll(&p, 1, timeout);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return 0;
        return 1;
    }
}

/* Writes all of p (EINTR- and EAGAIN-safe); 0 on success. */
static int write_all_until(int fd, const char *p, size_t n, long long deadline) {
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                if (!wait_fd(fd, POLLOUT, deadline)) return -1;
                continue;
            }
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static int write_all(int fd, const char *p, size_t n) { return write_all_until(fd, p, n, -1); }

/* One read (EINTR-safe, waiting until the deadline when nothing is there yet): bytes, 0 at EOF, -1. */
static ssize_t read_until(int fd, char *buf, size_t cap, long long deadline) {
    for (;;) {
        ssize_t r = read(fd, buf, cap);
        if (r >= 0) return r;
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            if (!wait_fd(fd, POLLIN, deadline)) return -1;
            continue;
        }
        return -1;
    }
}

/*
 * One read of stdin, waiting at most `idle_ms` for bytes to come (the agent may never close it): bytes,
 * 0 at EOF, -1 on an error, -2 when nothing came in time.
 */
static ssize_t read_stdin(char *buf, size_t cap, long long idle_ms) {
    for (;;) {
        ssize_t r;
        if (!wait_fd(0, POLLIN, now_ms() + idle_ms)) return -2;
        r = read(0, buf, cap);
        if (r >= 0) return r;
        if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK) return -1;
    }
}

/* What was read from the socket and not used yet. */
static char g_rx[IO_CHUNK];
static size_t g_rx_len;

/*
 * Reads one line from the socket into `line` (without its newline, NUL-terminated), at most `cap - 1`
 * bytes, until the deadline. 0 on success; -1 on timeout, EOF, error or a line too long.
 */
static int read_line(char *line, size_t cap, long long deadline) {
    for (;;) {
        char *nl = memchr(g_rx, '\n', g_rx_len);
        ssize_t r;
        if (nl) {
            size_t len = (size_t)(nl - g_rx);
            if (len >= cap) return -1;
            memcpy(line, g_rx, len);
            line[len] = '\0';
            g_rx_len -= len + 1;
            memmove(g_rx, nl + 1, g_rx_len);
            return 0;
        }
        if (g_rx_len >= cap) return -1;
        r = read_until(g_sock, g_rx + g_rx_len, sizeof g_rx - g_rx_len, deadline);
        if (r <= 0) return -1;
        g_rx_len += (size_t)r;
    }
}

/* A buffered writer to the socket, bounded by the deadline of the request. */
static char g_tx[IO_CHUNK];
static size_t g_tx_len;
static long long g_tx_deadline;

static int tx_flush(void) {
    int r = write_all_until(g_sock, g_tx, g_tx_len, g_tx_deadline);
    g_tx_len = 0;
    return r;
}

static int tx_put(const char *p, size_t n) {
    if (g_tx_len + n > sizeof g_tx) {
        if (tx_flush() != 0) return -1;
        if (n > sizeof g_tx) return write_all_until(g_sock, p, n, g_tx_deadline);
    }
    memcpy(g_tx + g_tx_len, p, n);
    g_tx_len += n;
    return 0;
}

/* Puts a string and its terminating NUL. */
static int tx_field(const char *s) { return tx_put(s, strlen(s) + 1); }

/* ---------------------------------------------------------------- set-up */

static int all_digits(const char *s) {
    if (!s || !*s) return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9') return 0;
    return 1;
}

static int nonempty(const char *s) { return s && *s; }

/* This program's directory: /proc/self/exe (Linux), the loader's path (macOS), else argv[0] resolved. */
static int own_dir(char *out, size_t cap) {
    char path[PATH_MAX];
    char *slash;
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    if (n > 0) {
        path[n] = '\0';
    } else {
#if defined(__APPLE__)
        uint32_t size = sizeof path;
        char raw[PATH_MAX];
        if (_NSGetExecutablePath(raw, &size) != 0 || !realpath(raw, path)) return -1;
#else
        const char *a0 = g_argv[0];
        if (!a0) return -1;
        if (strchr(a0, '/')) {
            if (!realpath(a0, path)) return -1;
        } else {
            /* Found on PATH, as execvp found it. */
            const char *p = getenv("PATH");
            char cand[PATH_MAX];
            int found = 0;
            while (p && *p && !found) {
                const char *end = strchr(p, ':');
                size_t len = end ? (size_t)(end - p) : strlen(p);
                if (len > 0 && len + strlen(a0) + 2 < sizeof cand) {
                    memcpy(cand, p, len);
                    cand[len] = '/';
                    strcpy(cand + len + 1, a0);
                    if (access(cand, X_OK) == 0 && realpath(cand, path)) found = 1;
                }
                p = end ? end + 1 : NULL;
            }
            if (!found) return -1;
        }
#endif
    }
    slash = strrchr(path, '/');
    if (!slash) return -1;
    *slash = '\0';
    if (strlen(path) + 1 > cap) return -1;
    strcpy(out, path);
    return 0;
}

/* The private runtime dir, as src/paths.ts (and the bash client) resolve it. */
static int runtime_dir(void) {
    const char *v;
    int n;
    if (nonempty(v = getenv("HOOKD_RUNTIME_DIR")))
        n = snprintf(g_rt, sizeof g_rt, "%s", v);
    else if (nonempty(v = getenv("XDG_RUNTIME_DIR")))
        n = snprintf(g_rt, sizeof g_rt, "%s/hookd", v);
    else if (nonempty(v = getenv("HOOKD_STATE_DIR")))
        n = snprintf(g_rt, sizeof g_rt, "%s/run", v);
    else if (nonempty(v = getenv("XDG_STATE_HOME")))
        n = snprintf(g_rt, sizeof g_rt, "%s/hookd/run", v);
    else
        n = snprintf(g_rt, sizeof g_rt, "%s/.local/state/hookd/run", (v = getenv("HOME")) ? v : "");
    return n > 0 && (size_t)n < sizeof g_rt - 32 ? 0 : -1;
}

/* Splits the next word off *p (spaces and tabs); NULL when none. */
static char *word(char **p, int rest) {
    char *s = *p, *e;
    while (*s == ' ' || *s == '\t') s++;
    if (!*s) return NULL;
    if (rest) {
        /* bash's `read` gives the last name the rest of the line, trailing blanks dropped. */
        e = s + strlen(s);
        while (e > s && (e[-1] == ' ' || e[-1] == '\t')) *--e = '\0';
        *p = e;
        return s;
    }
    e = s;
    while (*e && *e != ' ' && *e != '\t') e++;
    if (*e) *e++ = '\0';
    *p = e;
    return s;
}

/*
 * The runtime dir, opened without following a symlink and judged by fstat: a directory of this user's
 * that nobody else can write to (the Node path's own rule, src/util/private-fs.ts privateDirProblem),
 * holding a socket of this user's that is not a symlink. The dir's fd is kept: the socket is reached
 * through it. 0 when usable; -1 when there is nothing (no dir, no socket: no daemon); -2 when what is
 * there is not the user's own.
 */
static int open_runtime_dir(void) {
    struct stat st;
    int fd = open(g_rt, O_RDONLY | O_NOFOLLOW | O_CLOEXEC
#if defined(O_DIRECTORY)
                            | O_DIRECTORY
#endif
    );
    if (fd < 0) return errno == ENOENT ? -1 : -2;
    g_rtfd = fd;
    if (fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022) != 0)
        return -2;
    if (fstatat(fd, SOCKET_NAME, &st, AT_SYMLINK_NOFOLLOW) != 0) return errno == ENOENT ? -1 : -2;
    return S_ISSOCK(st.st_mode) && st.st_uid == geteuid() ? 0 : -2;
}

/* 0 when the process listening on `fd` runs as this user, as the kernel recorded it. */
static int peer_is_me(int fd) {
#if defined(__linux__) && defined(SO_PEERCRED)
    struct ucred cred;
    socklen_t len = sizeof cred;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || len != sizeof cred) return -1;
    return cred.uid == geteuid() ? 0 : -1;
#else
    uid_t uid;
    gid_t gid;
    if (getpeereid(fd, &uid, &gid) != 0) return -1;
    return uid == geteuid() ? 0 : -1;
#endif
}

/*
 * Connects to the daemon's socket through the runtime dir's fd: on Linux by /proc/self/fd/<fd>/<name>
 * (no race with a dir renamed after it was checked, and no limit on the runtime dir's length); else by
 * the absolute path, or, when that is longer than a socket address holds, from inside the dir (fchdir
 * there and back). Blocking, bounded by the wait (a full backlog), then non-blocking. -1 on failure.
 */
static int connect_daemon(long long wait_ms) {
    struct sockaddr_un a;
    struct timeval tv;
    int fd, r, back = -1;
    size_t len = strlen(g_rt) + 1 + sizeof SOCKET_NAME;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
#if defined(__linux__)
    snprintf(a.sun_path, sizeof a.sun_path, "/proc/self/fd/%d/%s", g_rtfd, SOCKET_NAME);
    if (access(a.sun_path, F_OK) != 0)
#endif
    {
        if (len <= sizeof a.sun_path) {
            size_t rt = strlen(g_rt);
            memcpy(a.sun_path, g_rt, rt);
            a.sun_path[rt] = '/';
            memcpy(a.sun_path + rt + 1, SOCKET_NAME, sizeof SOCKET_NAME);
        } else {
            back = open(".", O_RDONLY | O_CLOEXEC);
            if (back < 0 || fchdir(g_rtfd) != 0) {
                if (back >= 0) close(back);
                return -1;
            }
            snprintf(a.sun_path, sizeof a.sun_path, "%s", SOCKET_NAME);
        }
    }
    fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd >= 0) {
        int one = 1;
        (void)one;
        fcntl(fd, F_SETFD, FD_CLOEXEC);
#if defined(SO_NOSIGPIPE)
        setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, sizeof one);
#endif
        tv.tv_sec = (time_t)(wait_ms / 1000);
        tv.tv_usec = (suseconds_t)((wait_ms % 1000) * 1000);
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
        do r = connect(fd, (struct sockaddr *)&a, sizeof a);
        while (r != 0 && errno == EINTR);
        if (r != 0) {
            close(fd);
            fd = -1;
        }
    }
    if (back >= 0) {
        /* Back where the agent started this client: the Node path and the request need it. */
        if (fchdir(back) != 0) {
            if (fd >= 0) close(fd);
            fd = -1;
        }
        close(back);
    }
    if (fd < 0) return -1;
    tv.tv_sec = 0;
    tv.tv_usec = 0;
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    if (peer_is_me(fd) != 0) {
        close(fd);
        return -2;
    }
    return fd;
}

/* Makes sure fds 0, 1 and 2 are open (on /dev/null when the agent closed one): a socket or file opened
 * later must never land on them and be read as the event or written as the answer. */
static void std_fds(void) {
    int fd;
    for (fd = 0; fd < 3; fd++) {
        if (fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
        if (open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY) != fd) exit(1);
    }
}

/* An event name as the hook takes it on its command line: letters only, at most 64. */
static int event_name(const char *s) {
    size_t n = 0;
    for (; s[n]; n++)
        if (n >= 64 || !((s[n] >= 'a' && s[n] <= 'z') || (s[n] >= 'A' && s[n] <= 'Z'))) return 0;
    return n > 0;
}

/* An event id as the Node path takes it: [A-Za-z0-9_-]{1,80} (src/hook/fast-event-id.ts). */
static int event_id(const char *s) {
    size_t n = 0;
    for (; s[n]; n++)
        if (n >= 80 || !((s[n] >= 'a' && s[n] <= 'z') || (s[n] >= 'A' && s[n] <= 'Z') ||
                         (s[n] >= '0' && s[n] <= '9') || s[n] == '_' || s[n] == '-'))
            return 0;
    return n > 0;
}

/* The working directory as a shell's $PWD: the inherited PWD when it names this directory, else getcwd. */
static int working_dir(char *out, size_t cap) {
    const char *pwd = getenv("PWD");
    struct stat a, b;
    if (pwd && pwd[0] == '/' && strlen(pwd) < cap && stat(pwd, &a) == 0 && stat(".", &b) == 0 &&
        a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
        strcpy(out, pwd);
        return 0;
    }
    return getcwd(out, cap) ? 0 : -1;
}

/* After GO, an answer that did not come whole (no RESULT line, one that cannot be read, or output cut
 * short of its announced length): the daemon's outcome is unknown, so the ACK's lost code, said on
 * stderr. */
static int lost_answer(int lost) {
    fprintf(stderr, "hookd: the daemon went away while running the event (%s)\n",
            g_fast_id[0] ? g_fast_id : "unknown id");
    return lost;
}

/* ---------------------------------------------------------------- main */

static char g_in[INLINE_MAX + 1];

int main(int argc, char **argv) {
    const char *agent = "-", *event = "-", *wait_s, *v;
    long long wait_ms = 2000, idle_ms = 5000, deadline;
    char line[LINE_MAX_BYTES], dir[PATH_MAX], cwd[PATH_MAX], head[LINE_MAX_BYTES];
    size_t in_len = 0;
    int inline_ok, eof = 0, stalled = 0, lost = 1, copy_fd, n, i;
    mode_t mask;
    char *id, *lost_s, *p;

    std_fds();
    g_argc = argc;
    g_argv = argv;
    if (argc == 2 && strcmp(argv[1], "--hookd-client-version") == 0) {
        printf("hookd-client %d protocol %d\n", CLIENT_VERSION, PROTOCOL);
        return 0;
    }
    signal(SIGPIPE, SIG_IGN);
    if (nonempty(v = getenv("HOOKD_NODE"))) g_node = v;
    /* The hookd.cjs the Node path runs: HOOKD_CJS, an absolute path install writes into the command of a
     * client that is not beside it (a platform package's), else the one beside this program. */
    if ((v = getenv("HOOKD_CJS")) && v[0] == '/' && strlen(v) < sizeof g_cjs) {
        snprintf(g_cjs, sizeof g_cjs, "%s", v);
    } else if (own_dir(dir, sizeof dir) == 0) {
        snprintf(g_cjs, sizeof g_cjs, "%s/hookd.cjs", dir);
    } else {
        /* Unknown: node finds hookd.cjs only on PATH's own `hookd`; say so rather than guess. */
        fprintf(stderr, "hookd: cannot tell where the hookd client is installed\n");
        return 1;
    }

    wait_s = getenv("HOOKD_CLIENT_WAIT_S");
    if (all_digits(wait_s)) wait_ms = strlen(wait_s) > 6 ? 999999000LL : atoll(wait_s) * 1000;
    /* How long stdin may stay silent before the event counts as cut short (the Node path's rule). */
    v = getenv("HOOKD_STDIN_TIMEOUT_MS");
    if (all_digits(v) && strlen(v) <= 9 && atoll(v) > 0) idle_ms = atoll(v);

    /* `--agent droid|claude|codex|gemini|copilot` and `--event <Name>`, as install writes them; anything
     * else is the Node path's to read. */
    for (i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--agent") == 0)
            agent = strcmp(argv[i + 1], "droid") == 0 || strcmp(argv[i + 1], "claude") == 0 ||
                            strcmp(argv[i + 1], "codex") == 0 || strcmp(argv[i + 1], "gemini") == 0 ||
                            strcmp(argv[i + 1], "copilot") == 0
                        ? argv[i + 1]
                        : "-";
        else if (strcmp(argv[i], "--event") == 0)
            event = event_name(argv[i + 1]) ? argv[i + 1] : "-";
        else
            break;
    }

    if ((v = getenv("HOOKD")) && strcmp(v, "0") == 0) node_path();
    if (runtime_dir() != 0) node_path();
    /* No daemon (no runtime dir, no socket, nobody listening): the Node path with the agent's stdin
     * untouched. A runtime dir, socket or listener that is not the user's own: the same, and the Node
     * path logs why (HOOKD_CLIENT_REFUSED). Nothing is sent before the peer was checked. */
    n = open_runtime_dir();
    if (n == -2) g_refused = "runtime-dir";
    if (n != 0) node_path();
    g_sock = connect_daemon(wait_ms);
    if (g_sock == -2) g_refused = "peer";
    if (g_sock < 0) node_path();

    /* stdin, with large reads: all of it inline when short and without a NUL byte; else a private copy
     * in the runtime dir (the daemon reads it), the rest streamed to it (bounded memory). An agent that
     * stops writing without closing it: what came is sent as cut short (`timeout`), and the daemon
     * answers as the Node path does (a guard marked "onError": "block" fails closed). */
    while (in_len < sizeof g_in) {
        ssize_t r = read_stdin(g_in + in_len, sizeof g_in - in_len, idle_ms);
        if (r == -2) stalled = 1;
        if (r <= 0) {
            eof = 1;
            break;
        }
        in_len += (size_t)r;
    }
    inline_ok = eof && in_len <= INLINE_MAX && !memchr(g_in, '\0', in_len);
    if (!inline_ok) {
        static char chunk[IO_CHUNK];
        unsigned long long committed;
        copy_fd = create_copy();
        if (copy_fd < 0 || write_all(copy_fd, g_in, in_len) != 0) node_path_piped(copy_fd, 0, g_in, in_len);
        committed = in_len;
        while (!stalled) {
            ssize_t r = read_stdin(chunk, sizeof chunk, idle_ms);
            if (r == -2) stalled = 1;
            if (r <= 0) break;
            if (write_all(copy_fd, chunk, (size_t)r) != 0) node_path_piped(copy_fd, committed, chunk, (size_t)r);
            committed += (unsigned long long)r;
        }
        close(copy_fd);
    }

    /* The request: the header lines, cwd, the copy's path or `-`, the environment and the empty entry,
     * the inline stdin and its NUL. Before the ACK every write is bounded by the wait. */
    mask = umask(0);
    umask(mask);
    if (working_dir(cwd, sizeof cwd) != 0) fallback(g_in, in_len);
    g_tx_deadline = now_ms() + wait_ms;
    n = snprintf(head, sizeof head, HOOKD_FAST_HELLO " %d %d\n%s\n%s\n%04o\n%s\n", PROTOCOL, CLIENT_VERSION, agent,
                 event, (unsigned)(mask & 07777), stalled ? "timeout" : "eof");
    if (n <= 0 || (size_t)n >= sizeof head) fallback(g_in, in_len);
    if (tx_put(head, (size_t)n) != 0 || tx_field(cwd) != 0 || tx_field(inline_ok ? "-" : g_copy) != 0)
        fallback(g_in, in_len);
    {
        char **e;
        /* Every NAME=value entry of the environment the agent gave this client (names a shell cannot
         * hold too); an entry without a name would end the list early, and the daemon skips those. */
        for (e = environ; *e; e++)
            if ((*e)[0] != '=' && strchr(*e, '=') && tx_field(*e) != 0) fallback(g_in, in_len);
    }
    if (tx_put("", 1) != 0) fallback(g_in, in_len);
    if (inline_ok && (tx_put(g_in, in_len) != 0 || tx_put("", 1) != 0)) fallback(g_in, in_len);
    if (tx_flush() != 0) fallback(g_in, in_len);

    /* ACK (the daemon took the event), DENY (versions, caps) or LOCAL (a command must run in this
     * process tree); no answer in time (a stopped daemon): the Node path. A daemon that reads this
     * request later finds the connection closed and never runs it. */
    deadline = now_ms() + wait_ms;
    if (read_line(line, sizeof line, deadline) != 0 || strncmp(line, "ACK ", 4) != 0) fallback(g_in, in_len);
    p = line + 4;
    lost_s = word(&p, 0);
    id = word(&p, 1);
    if (!lost_s || !id || (strcmp(lost_s, "1") != 0 && strcmp(lost_s, "2") != 0)) fallback(g_in, in_len);
    lost = lost_s[0] - '0';
    for (p = id; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f) *p = '?';
    if (event_id(id)) strcpy(g_fast_id, id);
    /* A GO that cannot be written never reached the daemon: it did not run the event (it wrote the
     * event's in-flight record: the Node path takes the event under the same id, see g_fast_id). */
    if (write_all_until(g_sock, "GO\n", 3, now_ms() + wait_ms) != 0) fallback(g_in, in_len);

    /* From here on the event is the daemon's, never run again by the Node path. */
    {
        char *r, *code_s, *olen_s, *elen_s;
        static char buf[IO_CHUNK];
        unsigned long long left[2];
        int code, out_ok[2] = {1, 1}, which = 0;
        if (read_line(line, sizeof line, -1) != 0 || strncmp(line, "RESULT ", 7) != 0) return lost_answer(lost);
        p = line;
        r = word(&p, 0);
        code_s = word(&p, 0);
        olen_s = word(&p, 0);
        elen_s = word(&p, 1);
        (void)r;
        if (!all_digits(code_s) || !all_digits(olen_s) || !all_digits(elen_s) || strlen(code_s) > 9 ||
            strlen(olen_s) > 18 || strlen(elen_s) > 18)
            return lost_answer(lost);
        code = atoi(code_s);
        left[0] = strtoull(olen_s, NULL, 10);
        left[1] = strtoull(elen_s, NULL, 10);
        /* The rest of the stream: stdout's bytes, then stderr's, by the announced lengths. */
        while (left[0] + left[1] > 0) {
            size_t take;
            ssize_t got;
            const char *src;
            if (g_rx_len > 0) {
                src = g_rx;
                got = (ssize_t)g_rx_len;
                g_rx_len = 0;
            } else {
                got = read_until(g_sock, buf, sizeof buf, -1);
                if (got <= 0) break;
                src = buf;
            }
            while (got > 0 && left[0] + left[1] > 0) {
                if (left[which] == 0) which = 1;
                take = (unsigned long long)got < left[which] ? (size_t)got : (size_t)left[which];
                if (out_ok[which] && write_all(which + 1, src, take) != 0) out_ok[which] = 0;
                src += take;
                got -= (ssize_t)take;
                left[which] -= take;
            }
        }
        if (left[0] + left[1] > 0) return lost_answer(lost);
        return code & 0xff;
    }
}
