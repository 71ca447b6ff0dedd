/*
 * What the fuzz target of the native client knows about its protocol (docs/protocol.md; its constants are
 * native/hookd-wire.h, generated from src/link/wire.ts; docs/fuzzing.md): the fuzz input's layout, well-formed inputs and
 * mutations that know their fields, and what the client must do with each input.
 *
 * Written from the protocol, not from the client's code: a disagreement is a finding on one side.
 *
 * An input is a 12-byte header, the client's situation, then the bytes the fake daemon sends:
 *
 *   h[0]  runtime dir state (bits 0-3, enum cl_dir) | PWD (4-5) | HOOKD_NODE (6-7)
 *   h[1]  stdin size class (0-2) | a NUL byte in it (3) | the agent never closes it (4) |
 *         stdin source (5-6: a pipe, a file, fd 0 closed, a pipe)
 *   h[2]  stdin size parameter
 *   h[3]  stdin copy fault (0-2, enum cl_fault) | flaky I/O (3) | the listener runs as another user (4) |
 *         cwd deleted (5) | fd 1 closed (6) | the agent stops reading stdout (7)
 *   h[4]  copy fault parameter
 *   h[5]  argv (0-3) | environment extras (4-5)
 *   h[6]  after the pre-GO bytes: 0 hold the connection (the client's wait runs out) / 1 EOF (bit 0) |
 *         the GO cannot be written (1) | chunking of the pre-GO bytes (2-3) and of the rest (4-5)
 *   h[7..9]   how many of the daemon's bytes go out before GO (24 bits, big-endian)
 *   h[10..11] the umask (9 bits)
 *   then the daemon's bytes: the first h[7..9] before GO, the rest once GO came (then it closes).
 */
#ifndef HOOKD_FUZZ_CLIENT_MODEL_H
#define HOOKD_FUZZ_CLIENT_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "fuzz.h"
#include "../../native/hookd-wire.h"

#define CL_HEADER 12
#define CL_MAX_INPUT (320 * 1024)
/* The protocol's numbers (src/link/wire.ts, through native/hookd-wire.h). */
#define CL_PROTOCOL HOOKD_FAST_PROTOCOL
#define CL_VERSION HOOKD_FAST_CLIENT_VERSION
#define CL_INLINE_MAX HOOKD_FAST_INLINE_SEND_MAX
#define CL_LINE_MAX HOOKD_FAST_LINE_MAX /* a line of the answer is shorter (without its newline) */
#define CL_ID_MAX 80
/* The fake node's exit code (it never runs node: client-harness.c). */
#define CL_NODE_EXIT 197

enum cl_dir {
    CL_DIR_OK,         /* HOOKD_RUNTIME_DIR names the runtime dir */
    CL_DIR_OK_XDG,     /* XDG_RUNTIME_DIR/hookd (HOOKD_RUNTIME_DIR empty) */
    CL_DIR_OK_LONG,    /* $HOME/.local/state/hookd/run, longer than a socket address holds */
    CL_DIR_MISSING,    /* no runtime dir */
    CL_DIR_NO_SOCKET,  /* a runtime dir without fast.sock */
    CL_DIR_STALE,      /* fast.sock that nobody listens on */
    CL_DIR_GROUP_W,    /* 0770, a live listener inside */
    CL_DIR_WORLD_W,    /* 01777, a live listener inside */
    CL_DIR_SYMLINK,    /* the runtime dir is a symlink to the good one */
    CL_DIR_FILE,       /* the runtime dir is a regular file */
    CL_DIR_SOCK_FILE,  /* fast.sock is a regular file */
    CL_DIR_SOCK_LINK,  /* fast.sock is a symlink to a live listener */
    CL_DIR_OTHER_USER, /* the dir is another user's (root only; else as CL_DIR_GROUP_W) */
    CL_DIR_SOCK_OTHER, /* fast.sock is another user's (root only; else as CL_DIR_GROUP_W) */
    CL_DIR_OFF,        /* HOOKD=0 */
    CL_DIR_TOO_LONG,   /* HOOKD_RUNTIME_DIR longer than a path */
    CL_DIR_STATES
};

enum cl_fault {
    CL_FAULT_NONE,
    CL_FAULT_CREATE,  /* creating a stdin copy fails (ENOSPC) */
    CL_FAULT_EXISTS,  /* the first `param % 24` names exist already (EEXIST) */
    CL_FAULT_FCHMOD,  /* fchmod of the copy fails */
    CL_FAULT_WRITE,   /* writing the copy fails past param * 997 bytes (ENOSPC) */
};

enum cl_argv {
    CL_ARGV_DROID,
    CL_ARGV_DROID2,
    CL_ARGV_CLAUDE,
    CL_ARGV_NONE,
    CL_ARGV_BAD_NAMES,
    CL_ARGV_EVENT_64,
    CL_ARGV_EVENT_65,
    CL_ARGV_UNKNOWN_OPTION,
    CL_ARGV_VERSION,
    CL_ARGV_ODD,
    CL_ARGV_EMPTY_EVENT,
    CL_ARGV_REVERSED,
};

enum cl_node_var { CL_NODE_DEFAULT, CL_NODE_PATH, CL_NODE_EMPTY, CL_NODE_MISSING };
enum cl_pwd { CL_PWD_RIGHT, CL_PWD_UNSET, CL_PWD_WRONG, CL_PWD_LINK };
enum cl_src { CL_SRC_PIPE, CL_SRC_FILE, CL_SRC_CLOSED, CL_SRC_PIPE2 };
enum cl_env { CL_ENV_PLAIN, CL_ENV_INHERITED, CL_ENV_ODD, CL_ENV_BIG };

struct cl_case {
    unsigned dir, pwd, node, src, argv, env, fault, fault_param, umask, a_chunks, b_chunks;
    int stall, flaky, peer_other, cwd_gone, fd1_closed, stdout_unread, a_eof, go_refused;
    size_t stdin_len;
    size_t stdin_nul; /* where the NUL byte is, or (size_t)-1 */
    const unsigned char *a, *b; /* the daemon's bytes before GO, and after */
    size_t a_len, b_len;
};

/* Reads an input (any bytes: a short one is padded with zeros). `root`: the states that need another
 * user's files are real; else they become CL_DIR_GROUP_W. */
void cl_decode(const unsigned char *d, size_t n, int root, struct cl_case *c);
/* The stdin bytes of a case. */
void cl_stdin(const struct cl_case *c, struct fz_buf *out);
/* Its name in HOOKD_NODE ("" for unset), and the name the client runs. */
const char *cl_node_env(const struct cl_case *c);
const char *cl_node_name(const struct cl_case *c);

void cl_generate(struct fz_rng *r, struct fz_buf *out);
void cl_mutate(struct fz_rng *r, struct fz_buf *b);

/* ---------------------------------------------------------------- what the client must do */

enum cl_outcome {
    CL_EXIT, /* it exits with `code`, having written `out` and `err` */
    CL_NODE  /* it runs the Node path (`how`), or exits 127 when it cannot be started */
};
enum cl_how {
    CL_DIRECT, /* before it read stdin: the agent's stdin as it is */
    CL_COPY,   /* the stdin copy as stdin, its path in HOOKD_CLIENT_STDIN_COPY */
    CL_PIPE    /* no copy could be written: stdin on a pipe, every byte of it */
};

struct cl_expect {
    enum cl_outcome outcome;
    enum cl_how how;
    const char *refused; /* HOOKD_CLIENT_REFUSED, or NULL: none */
    char fast_id[CL_ID_MAX + 1]; /* HOOKD_FAST_EVENT_ID, or "": none */
    int exec_fails;
    /* What the daemon sees: a connection; a whole request on it (else the client closes it without a
     * byte); a GO after the answer. */
    int connects, request, go;
    /* The request. */
    const char *agent, *event;
    int stalled, inline_ok;
    /* CL_EXIT */
    int code;
    struct fz_buf out, err;
    int check_stdout; /* 0: the agent does not see it (fd 1 closed, or it stopped reading) */
    int whole;        /* the answer was whole (for the counters) */
};

void cl_expect(const struct cl_case *c, struct cl_expect *e);
void cl_expect_free(struct cl_expect *e);

/* The argv of a case (argv[0] is `self`); NULL-terminated, static storage. */
char **cl_argv(const struct cl_case *c, const char *self);

#endif
