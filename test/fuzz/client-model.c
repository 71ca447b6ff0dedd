/*
 * The native client's protocol as the fuzz target sees it (client-model.h).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client-model.h"

/* ---------------------------------------------------------------- reading an input */

void cl_decode(const unsigned char *d, size_t n, int root, struct cl_case *c) {
    unsigned char h[CL_HEADER];
    size_t body = n > CL_HEADER ? n - CL_HEADER : 0, alen, p;
    memset(h, 0, sizeof h);
    memcpy(h, d, n < CL_HEADER ? n : CL_HEADER);
    memset(c, 0, sizeof *c);
    c->dir = h[0] & 15;
    c->pwd = (h[0] >> 4) & 3;
    c->node = h[0] >> 6;
    c->src = (h[1] >> 5) & 3;
    p = h[2];
    switch (h[1] & 7) {
    case 1:
        c->stdin_len = 256 + p * 16;
        break;
    case 2: /* across the inline limit */
        c->stdin_len = CL_INLINE_MAX - 128 + p;
        break;
    case 3:
        c->stdin_len = 65536 + p * 512;
        break;
    case 4:
        c->stdin_len = 0;
        break;
    default:
        c->stdin_len = p;
    }
    if (c->src == CL_SRC_CLOSED) c->stdin_len = 0;
    c->stdin_nul = (h[1] & 8) && c->stdin_len ? p * c->stdin_len / 256 : (size_t)-1;
    /* Only a pipe can stay open without more bytes. */
    c->stall = (h[1] >> 4) & 1 && (c->src == CL_SRC_PIPE || c->src == CL_SRC_PIPE2);
    c->fault = h[3] & 7;
    if (c->fault > CL_FAULT_WRITE) c->fault = CL_FAULT_NONE;
    c->flaky = (h[3] >> 3) & 1;
    c->peer_other = (h[3] >> 4) & 1;
    c->cwd_gone = (h[3] >> 5) & 1;
    c->fd1_closed = (h[3] >> 6) & 1;
    c->stdout_unread = (h[3] >> 7) & 1;
    c->fault_param = h[4];
    c->argv = h[5] & 15;
    if (c->argv > CL_ARGV_REVERSED) c->argv = CL_ARGV_DROID;
    c->env = (h[5] >> 4) & 3;
    c->a_eof = h[6] & 1;
    c->go_refused = (h[6] >> 1) & 1;
    c->a_chunks = (h[6] >> 2) & 3;
    c->b_chunks = (h[6] >> 4) & 3;
    alen = ((size_t)h[7] << 16) | ((size_t)h[8] << 8) | h[9];
    if (alen > body) alen = body;
    c->umask = (((unsigned)h[10] << 8) | h[11]) & 0777;
    if (!root && (c->dir == CL_DIR_OTHER_USER || c->dir == CL_DIR_SOCK_OTHER)) c->dir = CL_DIR_GROUP_W;
    /* The version probe exits before it ignores SIGPIPE: an agent that reads nothing kills it. */
    if (c->argv == CL_ARGV_VERSION) c->stdout_unread = 0;
    c->a = d + CL_HEADER;
    c->a_len = alen;
    c->b = d + CL_HEADER + alen;
    c->b_len = body - alen;
}

void cl_stdin(const struct cl_case *c, struct fz_buf *out) {
    size_t i;
    out->len = 0;
    for (i = 0; i < c->stdin_len; i++) {
        unsigned char ch = (unsigned char)('a' + (i * 7 + i / 13) % 26);
        if (i % 80 == 79) ch = '\n';
        if (i % 97 == 50) ch = 0xe9;
        if (i == c->stdin_nul) ch = 0;
        fz_put8(out, ch);
    }
}

const char *cl_node_env(const struct cl_case *c) {
    switch (c->node) {
    case CL_NODE_PATH:
        return "/opt/hookd-fuzz/bin/node";
    case CL_NODE_EMPTY:
        return "";
    case CL_NODE_MISSING:
        return "fuzz-enoent";
    default:
        return NULL;
    }
}

const char *cl_node_name(const struct cl_case *c) {
    const char *v = cl_node_env(c);
    return v && *v ? v : "node";
}

#define LETTERS64 "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijkl"

char **cl_argv(const struct cl_case *c, const char *self) {
    static char *v[12];
    static const char *const table[][8] = {
        [CL_ARGV_DROID] = {"--agent", "droid", "--event", "PreToolUse"},
        [CL_ARGV_DROID2] = {"--agent", "droid", "--event", "PreToolUse"},
        [CL_ARGV_CLAUDE] = {"--agent", "claude", "--event", "Stop"},
        [CL_ARGV_NONE] = {NULL},
        [CL_ARGV_BAD_NAMES] = {"--agent", "Droid", "--event", "Pre-Tool"},
        [CL_ARGV_EVENT_64] = {"--agent", "claude", "--event", LETTERS64},
        [CL_ARGV_EVENT_65] = {"--event", LETTERS64 "m", "--agent", "droid"},
        [CL_ARGV_UNKNOWN_OPTION] = {"--agent", "droid", "--debug", "x", "--event", "Stop"},
        [CL_ARGV_VERSION] = {"--hookd-client-version"},
        [CL_ARGV_ODD] = {"--agent"},
        [CL_ARGV_EMPTY_EVENT] = {"--agent", "claude", "--event", ""},
        [CL_ARGV_REVERSED] = {"--event", "PostToolUse", "--agent", "claude"},
    };
    size_t i;
    v[0] = (char *)self;
    for (i = 0; i < 8 && table[c->argv][i]; i++) v[i + 1] = (char *)table[c->argv][i];
    v[i + 1] = NULL;
    return v;
}

/* ---------------------------------------------------------------- what the client must do */

/* The agent and event the request names (`--agent droid|claude`, `--event <letters, at most 64>`, read
 * in pairs until an option the client does not know). */
static void names(const struct cl_case *c, struct cl_expect *e) {
    e->agent = "-";
    e->event = "-";
    switch (c->argv) {
    case CL_ARGV_DROID:
    case CL_ARGV_DROID2:
        e->agent = "droid", e->event = "PreToolUse";
        break;
    case CL_ARGV_CLAUDE:
        e->agent = "claude", e->event = "Stop";
        break;
    case CL_ARGV_EVENT_64:
        e->agent = "claude", e->event = LETTERS64;
        break;
    case CL_ARGV_EVENT_65:
    case CL_ARGV_UNKNOWN_OPTION:
        e->agent = "droid";
        break;
    case CL_ARGV_EMPTY_EVENT:
        e->agent = "claude";
        break;
    case CL_ARGV_REVERSED:
        e->agent = "claude", e->event = "PostToolUse";
        break;
    }
}

/* Whether writing a stdin copy of `total` bytes fails. */
static int copy_fails(const struct cl_case *c, size_t total) {
    switch (c->fault) {
    case CL_FAULT_CREATE:
    case CL_FAULT_FCHMOD:
        return 1;
    case CL_FAULT_EXISTS:
        return c->fault_param % 24 >= 16; /* 16 names are tried */
    case CL_FAULT_WRITE:
        return total > (size_t)c->fault_param * 997;
    default:
        return 0;
    }
}

/*
 * The next line of an answer: a newline among its first CL_LINE_MAX bytes (a longer line is refused);
 * the line is what comes before the newline, up to a NUL byte if it holds one. -1 when there is none;
 * else its length (to the NUL), *next after the newline.
 */
static long next_line(const unsigned char *s, size_t n, char line[CL_LINE_MAX], size_t *next) {
    const unsigned char *nl = memchr(s, '\n', n < CL_LINE_MAX ? n : CL_LINE_MAX);
    size_t len;
    if (!nl) return -1;
    len = (size_t)(nl - s);
    memcpy(line, s, len);
    line[len] = '\0';
    *next = len + 1;
    return (long)strlen(line);
}

static int blank(char ch) { return ch == ' ' || ch == '\t'; }

/* Fields are separated by blanks (spaces, tabs); the last one named takes the rest of the line, its
 * trailing blanks dropped. NULL when there is none. */
static char *field(char **p, int rest) {
    char *s = *p, *e;
    while (blank(*s)) s++;
    if (!*s) return NULL;
    if (rest) {
        e = s + strlen(s);
        while (e > s && blank(e[-1])) *--e = '\0';
        *p = e;
        return s;
    }
    for (e = s; *e && !blank(*e); e++) {
    }
    if (*e) *e++ = '\0';
    *p = e;
    return s;
}

static int digits(const char *s, size_t max) {
    size_t n = 0;
    if (!s || !*s) return 0;
    for (; s[n]; n++)
        if (s[n] < '0' || s[n] > '9') return 0;
    return n <= max;
}

/* An event id the Node path takes: [A-Za-z0-9_-]{1,80}. */
static int valid_id(const char *s) {
    size_t n = strlen(s), i;
    if (n == 0 || n > CL_ID_MAX) return 0;
    for (i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') ||
              s[i] == '_' || s[i] == '-'))
            return 0;
    return 1;
}

static void went_away(struct cl_expect *e, int lost) {
    char msg[160];
    int n = snprintf(msg, sizeof msg, "hookd: the daemon went away while running the event (%s)\n",
                     e->fast_id[0] ? e->fast_id : "unknown id");
    fz_put(&e->err, msg, (size_t)n);
    e->outcome = CL_EXIT;
    e->code = lost;
}

/* After GO: `s` is what the client reads, then the connection ends. */
static void after_go(const unsigned char *s, size_t n, int lost, struct cl_expect *e) {
    char line[CL_LINE_MAX], *p, *word0, *code_s, *olen_s, *elen_s;
    size_t next = 0, avail;
    unsigned long long olen, elen, take;
    if (next_line(s, n, line, &next) < 0 || strncmp(line, "RESULT ", 7) != 0) {
        went_away(e, lost);
        return;
    }
    p = line;
    word0 = field(&p, 0);
    code_s = field(&p, 0);
    olen_s = field(&p, 0);
    elen_s = field(&p, 1);
    (void)word0;
    if (!digits(code_s, 9) || !digits(olen_s, 18) || !digits(elen_s, 18)) {
        went_away(e, lost);
        return;
    }
    olen = strtoull(olen_s, NULL, 10);
    elen = strtoull(elen_s, NULL, 10);
    s += next;
    avail = n - next;
    /* stdout's bytes, then stderr's, by the announced lengths; what comes after them is not read. */
    take = olen < avail ? olen : avail;
    fz_put(&e->out, s, (size_t)take);
    s += take;
    avail -= (size_t)take;
    take = elen < avail ? elen : avail;
    fz_put(&e->err, s, (size_t)take);
    if ((unsigned long long)(n - next) < olen + elen) {
        /* The answer was cut short: what came is written, and the exit is the lost code. */
        went_away(e, lost);
        return;
    }
    e->whole = 1;
    e->outcome = CL_EXIT;
    e->code = atoi(code_s) & 0xff;
}

void cl_expect(const struct cl_case *c, struct cl_expect *e) {
    char line[CL_LINE_MAX], *p, *lost_s, *id;
    size_t next = 0;
    int lost;
    memset(e, 0, sizeof *e);
    names(c, e);
    e->outcome = CL_NODE;
    e->how = CL_DIRECT;
    e->exec_fails = c->node == CL_NODE_MISSING;
    e->check_stdout = !c->fd1_closed && !c->stdout_unread;
    if (c->argv == CL_ARGV_VERSION) {
        char v[64];
        int n = snprintf(v, sizeof v, "hookd-client %d protocol %d\n", CL_VERSION, CL_PROTOCOL);
        fz_put(&e->out, v, (size_t)n);
        e->outcome = CL_EXIT;
        e->exec_fails = 0;
        return;
    }
    /* Before anything is read or sent: no daemon, or one that is not the user's own. */
    switch (c->dir) {
    case CL_DIR_OK:
    case CL_DIR_OK_XDG:
    case CL_DIR_OK_LONG:
        break;
    case CL_DIR_GROUP_W:
    case CL_DIR_WORLD_W:
    case CL_DIR_SYMLINK:
    case CL_DIR_FILE:
    case CL_DIR_SOCK_FILE:
    case CL_DIR_SOCK_LINK:
    case CL_DIR_OTHER_USER:
    case CL_DIR_SOCK_OTHER:
        e->refused = "runtime-dir";
        return;
    default: /* missing, no socket, stale socket, HOOKD=0, a path too long */
        return;
    }
    e->connects = 1;
    if (c->peer_other) {
        e->refused = "peer";
        return;
    }
    /* stdin: inline when the agent closed it... or stopped writing... within 60 KiB without a NUL. */
    e->stalled = c->stall;
    e->inline_ok = c->stdin_len <= CL_INLINE_MAX && c->stdin_nul == (size_t)-1;
    e->how = CL_COPY;
    if (!e->inline_ok && copy_fails(c, c->stdin_len)) {
        e->how = CL_PIPE;
        return;
    }
    /* An inline stdin gets its copy only when the client falls back. */
    if (e->inline_ok && copy_fails(c, c->stdin_len)) e->how = CL_PIPE;
    if (c->cwd_gone) return;
    e->request = 1;
    /* The answer before GO: `ACK <1|2> <id>`, else (DENY, LOCAL, anything, nothing in time) the Node
     * path. */
    if (next_line(c->a, c->a_len, line, &next) < 0 || strncmp(line, "ACK ", 4) != 0) return;
    p = line + 4;
    lost_s = field(&p, 0);
    id = field(&p, 1);
    if (!lost_s || !id || (strcmp(lost_s, "1") != 0 && strcmp(lost_s, "2") != 0)) return;
    lost = lost_s[0] - '0';
    if (valid_id(id)) snprintf(e->fast_id, sizeof e->fast_id, "%s", id);
    /* A GO that cannot be written: the Node path, told the id. */
    if (c->go_refused) return;
    e->go = 1;
    {
        struct fz_buf rest = {0};
        fz_put(&rest, c->a + next, c->a_len - next);
        if (!c->a_eof) fz_put(&rest, c->b, c->b_len);
        after_go(rest.p ? rest.p : (const unsigned char *)"", rest.len, lost, e);
        free(rest.p);
    }
}

void cl_expect_free(struct cl_expect *e) {
    free(e->out.p);
    free(e->err.p);
    memset(&e->out, 0, sizeof e->out);
    memset(&e->err, 0, sizeof e->err);
}

/* ---------------------------------------------------------------- well-formed inputs */

static const char id_chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-";

static void put_str(struct fz_buf *b, const char *s) { fz_put(b, s, strlen(s)); }

static void put_num(struct fz_buf *b, unsigned long long v) {
    char s[32];
    snprintf(s, sizeof s, "%llu", v);
    put_str(b, s);
}

static void put_blanks(struct fz_rng *r, struct fz_buf *b) {
    static const char *const seps[] = {" ", " ", " ", " ", " ", "  ", "\t", " \t "};
    put_str(b, seps[fz_below(r, 8)]);
}

/* An event id: valid ones at the edges of the length limit, now and then an odd byte. */
static void put_id(struct fz_rng *r, struct fz_buf *b) {
    static const size_t lens[] = {1, 2, 8, 16, 20, 26, 36, 79, 80, 81, 82, 120};
    static const unsigned char odd[] = {0, 1, '\r', 0x1b, 0x7f, 0x80, 0xc3, 0xff, ' ', '\t', '?', '/', '.', '%'};
    size_t n = fz_chance(r, 50) ? lens[fz_below(r, 12)] : 1 + fz_below(r, 40), i;
    size_t at = fz_chance(r, 15) ? fz_below(r, (uint32_t)n) : n;
    for (i = 0; i < n; i++)
        fz_put8(b, i == at ? odd[fz_below(r, sizeof odd)] : (unsigned char)id_chars[fz_below(r, 64)]);
}

/* Pads the line that starts at `start` (its newline not written yet) with trailing blanks to a length
 * at the limit's edge. */
static void pad_line(struct fz_rng *r, struct fz_buf *b, size_t start) {
    size_t want = CL_LINE_MAX - 3 + fz_below(r, 5); /* 509 ... 513 */
    while (b->len - start < want) fz_put8(b, fz_chance(r, 80) ? ' ' : '\t');
}

static void put_length(struct fz_rng *r, struct fz_buf *b, size_t real) {
    static const char *const lies[] = {"999999999999999999", "1000000000000000000", "-1", "x", "+5", "0x10",
                                       "18446744073709551615", "00", "4294967296", ""};
    switch (fz_below(r, 24)) {
    case 0:
        put_num(b, real + 1);
        break;
    case 1:
        put_num(b, real ? real - 1 : 0);
        break;
    case 2:
        put_str(b, lies[fz_below(r, 10)]);
        break;
    default:
        put_num(b, real);
    }
}

static void put_body(struct fz_rng *r, struct fz_buf *b, size_t n) {
    size_t i;
    unsigned mode = fz_below(r, 3);
    for (i = 0; i < n; i++) {
        unsigned char ch = mode == 0 ? (unsigned char)fz_next(r) : (unsigned char)('A' + (i % 50));
        if (mode == 2 && i % 61 == 60) ch = fz_chance(r, 50) ? '\n' : 0;
        fz_put8(b, ch);
    }
}

static size_t body_len(struct fz_rng *r) {
    switch (fz_below(r, 20)) {
    case 0:
        return 60000 + fz_below(r, 80000); /* past the client's 64 KiB buffers */
    case 1:
    case 2:
        return 300 + fz_below(r, 5000);
    case 3:
    case 4:
    case 5:
    case 6:
    case 7:
        return 0;
    default:
        return 1 + fz_below(r, 300);
    }
}

/* `RESULT <code> <stdout bytes> <stderr bytes>` and the bytes. */
static void put_result(struct fz_rng *r, struct fz_buf *b) {
    static const char *const codes[] = {"0", "1", "2", "3", "127", "255", "256", "258", "999999999",
                                        "1234567890", "-1", "", "2x", "07"};
    size_t start = b->len, olen = body_len(r), elen = body_len(r);
    if (fz_chance(r, 4)) {
        put_str(b, fz_chance(r, 50) ? "RESULT\t0 0 0\n" : "result 0 0 0\n");
        return;
    }
    put_str(b, "RESULT");
    put_blanks(r, b);
    put_str(b, fz_chance(r, 70) ? codes[fz_below(r, 6)] : codes[fz_below(r, 14)]);
    put_blanks(r, b);
    put_length(r, b, olen);
    put_blanks(r, b);
    put_length(r, b, elen);
    if (fz_chance(r, 3)) put_str(b, " 0");
    if (fz_chance(r, 8)) pad_line(r, b, start);
    else if (fz_chance(r, 5)) put_blanks(r, b);
    fz_put8(b, '\n');
    put_body(r, b, olen);
    put_body(r, b, elen);
    if (fz_chance(r, 10)) put_body(r, b, 1 + fz_below(r, 100)); /* more than announced */
}

void cl_generate(struct fz_rng *r, struct fz_buf *out) {
    static const unsigned umasks[] = {022, 022, 077, 002, 0, 0777, 027};
    static const char *const lost_codes[] = {"0", "3", "12", "01", "-1", "x", "1x", "2 "};
    unsigned char h[CL_HEADER];
    size_t start, alen;
    unsigned u;
    /* Mostly a daemon to talk to and nothing in the way: the answers get the cases. */
    h[0] = (unsigned char)(fz_chance(r, 75) ? (fz_chance(r, 70) ? CL_DIR_OK : fz_below(r, 3))
                                            : fz_below(r, CL_DIR_STATES));
    h[0] |= (unsigned char)(fz_below(r, 4) << 4);
    h[0] |= (unsigned char)((fz_chance(r, 93) ? fz_below(r, 3) : CL_NODE_MISSING) << 6);
    h[1] = (unsigned char)(fz_chance(r, 60) ? 0 : fz_below(r, 8));
    if (fz_chance(r, 10)) h[1] |= 8;
    if (fz_chance(r, 8)) h[1] |= 16;
    h[1] |= (unsigned char)((fz_chance(r, 80) ? CL_SRC_PIPE : fz_below(r, 4)) << 5);
    h[2] = (unsigned char)fz_next(r);
    h[3] = (unsigned char)(fz_chance(r, 12) ? 1 + fz_below(r, 4) : 0);
    if (fz_chance(r, 15)) h[3] |= 8;
    if (fz_chance(r, 3)) h[3] |= 16;
    if (fz_chance(r, 2)) h[3] |= 32;
    if (fz_chance(r, 3)) h[3] |= 64;
    if (fz_chance(r, 3)) h[3] |= 128;
    h[4] = (unsigned char)fz_next(r);
    h[5] = (unsigned char)((fz_chance(r, 60) ? CL_ARGV_DROID : fz_below(r, 12)) | (fz_below(r, 4) << 4));
    h[6] = (unsigned char)(fz_chance(r, 10) | (fz_chance(r, 8) << 1));
    /* Most answers in one write; else in chunks the client reads one by one. */
    h[6] |= (unsigned char)((fz_chance(r, 60) ? 0 : 1 + fz_below(r, 3)) << 2);
    h[6] |= (unsigned char)((fz_chance(r, 60) ? 0 : 1 + fz_below(r, 3)) << 4);
    u = umasks[fz_below(r, 7)];
    h[10] = (unsigned char)(u >> 8);
    h[11] = (unsigned char)u;
    fz_put(out, h, CL_HEADER);

    /* Before GO. */
    start = out->len;
    switch (fz_below(r, 20)) {
    case 0:
        put_str(out, "DENY protocol\n");
        break;
    case 1:
        put_str(out, "LOCAL\n");
        break;
    case 2:
        put_body(r, out, 1 + fz_below(r, 40));
        fz_put8(out, '\n');
        break;
    default: {
        size_t line = out->len;
        put_str(out, "ACK");
        put_blanks(r, out);
        put_str(out, fz_chance(r, 88) ? (fz_chance(r, 50) ? "1" : "2") : lost_codes[fz_below(r, 8)]);
        put_blanks(r, out);
        put_id(r, out);
        if (fz_chance(r, 8)) pad_line(r, out, line);
        else if (fz_chance(r, 5)) put_blanks(r, out);
        fz_put8(out, '\n');
        /* An observe-only event: its RESULT in the same write. */
        if (fz_chance(r, 15)) put_result(r, out);
    }
    }
    alen = out->len - start;
    /* Now and then the line is not whole before GO. */
    if (fz_chance(r, 6) && alen > 1) alen = fz_below(r, (uint32_t)alen);
    /* After GO. */
    if (fz_chance(r, 92)) put_result(r, out);
    else put_body(r, out, fz_below(r, 600));
    out->p[7] = (unsigned char)(alen >> 16);
    out->p[8] = (unsigned char)(alen >> 8);
    out->p[9] = (unsigned char)alen;
    if (out->len > CL_MAX_INPUT) out->len = CL_MAX_INPUT;
}

/* ---------------------------------------------------------------- mutations */

static size_t get_alen(const struct fz_buf *b) {
    return ((size_t)b->p[7] << 16) | ((size_t)b->p[8] << 8) | b->p[9];
}

static void set_alen(struct fz_buf *b, size_t v) {
    if (v > 0xffffff) v = 0xffffff;
    b->p[7] = (unsigned char)(v >> 16);
    b->p[8] = (unsigned char)(v >> 8);
    b->p[9] = (unsigned char)v;
}

/* Replaces `del` bytes at `at` (an offset into the input past the header) with `ins`, keeping the GO
 * split where it was in the bytes around it. */
static void splice(struct fz_buf *b, size_t at, size_t del, const void *ins, size_t n) {
    size_t alen = get_alen(b), s = at - CL_HEADER;
    if (at + del > b->len) del = b->len - at;
    if (n > del) fz_put(b, ins, n - del); /* grow (bytes overwritten below) */
    else b->len -= del - n;
    memmove(b->p + at + n, b->p + at + del, b->len - at - n);
    memcpy(b->p + at, ins, n);
    if (alen > s) set_alen(b, alen >= s + del ? alen - del + n : s + n);
}

/* A decimal number's digits in the daemon's bytes, at random: its offset and length (0: none). */
static size_t find_number(struct fz_rng *r, const struct fz_buf *b, size_t *at) {
    size_t n = 0, i, k, pick, len;
    for (i = CL_HEADER; i < b->len && i < CL_HEADER + 4096; i++)
        if (b->p[i] >= '0' && b->p[i] <= '9' && (i == CL_HEADER || b->p[i - 1] < '0' || b->p[i - 1] > '9')) n++;
    if (n == 0) return 0;
    pick = fz_below(r, (uint32_t)n);
    for (i = CL_HEADER, k = 0; i < b->len; i++) {
        if (!(b->p[i] >= '0' && b->p[i] <= '9' && (i == CL_HEADER || b->p[i - 1] < '0' || b->p[i - 1] > '9')))
            continue;
        if (k++ < pick) continue;
        for (len = 0; i + len < b->len && b->p[i + len] >= '0' && b->p[i + len] <= '9'; len++) {
        }
        *at = i;
        return len;
    }
    return 0;
}

/* The offset of a newline in the daemon's bytes (among the first 64), or 0. */
static size_t find_newline(struct fz_rng *r, const struct fz_buf *b) {
    size_t pos[64], n = 0, i;
    for (i = CL_HEADER; i < b->len && n < 64 && i < CL_HEADER + 8192; i++)
        if (b->p[i] == '\n') pos[n++] = i;
    return n ? pos[fz_below(r, (uint32_t)n)] : 0;
}

void cl_mutate(struct fz_rng *r, struct fz_buf *b) {
    static const char *const numbers[] = {"0", "1", "2", "9", "10", "255", "256", "511", "512", "65535", "65536",
                                          "999999999", "1000000000", "999999999999999999", "1000000000000000000",
                                          "18446744073709551616", "-1", "", "x"};
    static const char *const words[] = {"ACK", "DENY", "LOCAL", "RESULT", "ack", "RESULT\t", "ACK\t", "GO"};
    size_t at, len;
    if (b->len < CL_HEADER) {
        while (b->len < CL_HEADER) fz_put8(b, 0);
        return;
    }
    switch (fz_below(r, 9)) {
    case 0: /* the situation */
        b->p[fz_below(r, 7)] ^= (unsigned char)(1u << fz_below(r, 8));
        break;
    case 1: { /* where GO comes: a random point, or at (or next to) the end of a line */
        size_t nl = find_newline(r, b);
        if (nl && fz_chance(r, 70)) set_alen(b, nl + 1 - CL_HEADER + fz_below(r, 3) - 1);
        else set_alen(b, b->len > CL_HEADER ? fz_below(r, (uint32_t)(b->len - CL_HEADER + 1)) : 0);
        break;
    }
    case 2: /* a number at an edge */
        if ((len = find_number(r, b, &at)) > 0) {
            const char *v = numbers[fz_below(r, sizeof numbers / sizeof numbers[0])];
            splice(b, at, len, v, strlen(v));
        }
        break;
    case 3: /* a line at the length limit */
        if ((at = find_newline(r, b)) > 0) {
            size_t st = at, want = CL_LINE_MAX - 2 + fz_below(r, 4);
            char pad[CL_LINE_MAX + 4];
            while (st > CL_HEADER && b->p[st - 1] != '\n') st--;
            if (at - st < want) {
                memset(pad, fz_chance(r, 50) ? ' ' : 'x', want - (at - st));
                splice(b, at, 0, pad, want - (at - st));
            }
        }
        break;
    case 4: /* the daemon closes early */
        if (b->len > CL_HEADER) b->len = CL_HEADER + fz_below(r, (uint32_t)(b->len - CL_HEADER));
        break;
    case 5: { /* an odd byte */
        static const unsigned char odd[] = {0, '\r', '\t', ' ', 0x7f, 0xff, '\n', 0x80};
        at = CL_HEADER + fz_below(r, (uint32_t)(b->len - CL_HEADER + 1));
        splice(b, at, 0, &odd[fz_below(r, sizeof odd)], 1);
        break;
    }
    case 6: /* another first word for a line */
        if ((at = find_newline(r, b)) > 0 || b->len > CL_HEADER) {
            const char *w = words[fz_below(r, sizeof words / sizeof words[0])];
            size_t st = at ? at : CL_HEADER, wl = 0;
            while (st > CL_HEADER && b->p[st - 1] != '\n') st--;
            while (st + wl < b->len && b->p[st + wl] != ' ' && b->p[st + wl] != '\n') wl++;
            splice(b, st, wl, w, strlen(w));
        }
        break;
    case 7: /* the stdin copy's fault */
        b->p[3] = (unsigned char)((b->p[3] & ~7u) | fz_below(r, 5));
        b->p[4] = (unsigned char)fz_next(r);
        break;
    default: /* how the bytes are cut into writes, and how the pre-GO ones end */
        b->p[6] ^= (unsigned char)(1u << fz_below(r, 6));
        break;
    }
}
