/*
 * The spawner's protocol as the fuzz targets see it (spawner-model.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "spawner-model.h"

/* ---------------------------------------------------------------- splitting */

static void classify_spawn(struct sp_frame *f, const unsigned char *p, size_t plen) {
    const unsigned char *s = p + 12;
    size_t slen, pos = 0, need, i;
    if (plen < 12) {
        f->kind = SP_BAD;
        f->why = "a SPAWN shorter than its counts";
        return;
    }
    f->argc = fz_get32(p);
    f->envc = fz_get32(p + 4);
    f->inlen = fz_get32(p + 8);
    if (f->argc == 0 || f->argc > SP_MAX_STRINGS || f->envc > SP_MAX_STRINGS) {
        f->kind = SP_BAD;
        f->why = "argc 0, or too many strings";
        return;
    }
    if (f->inlen > plen - 12) {
        f->kind = SP_BAD;
        f->why = "stdin longer than the frame";
        return;
    }
    slen = plen - 12 - f->inlen;
    need = 2 + (size_t)f->argc + f->envc;
    for (i = 0; i < need; i++) {
        const unsigned char *nul = pos < slen ? memchr(s + pos, 0, slen - pos) : NULL;
        const char *str = (const char *)s + pos;
        if (!nul) {
            f->kind = SP_BAD;
            f->why = "fewer strings than its counts";
            return;
        }
        if (i == 0) f->path = str;
        else if (i == 1) f->cwd = str;
        else if (i == 3 && f->argc >= 2) f->script = str;
        else if (i >= 2 + (size_t)f->argc && strncmp(str, "PATH=", 5) == 0) f->has_path_env = 1;
        pos = (size_t)(nul - s) + 1;
    }
    if (pos != slen) {
        f->kind = SP_BAD;
        f->why = "bytes between the strings and stdin";
        return;
    }
    f->kind = SP_SPAWN;
    f->in = s + slen;
}

size_t sp_split(const unsigned char *d, size_t n, struct sp_frame *f, size_t max, int lenient) {
    size_t off = 0, k = 0;
    while (off < n && k < max) {
        struct sp_frame *fr = &f[k++];
        uint32_t len;
        memset(fr, 0, sizeof *fr);
        fr->off = off;
        if (n - off < 4) {
            fr->kind = SP_PARTIAL;
            fr->end = n;
            break;
        }
        len = fz_get32(d + off);
        if (len < 5 || len > SP_MAX_FRAME) {
            fr->kind = SP_BAD;
            fr->why = "a frame length out of range";
            fr->end = off + 4;
            break;
        }
        if (n - off - 4 < len) {
            fr->kind = SP_PARTIAL;
            fr->end = n;
            break;
        }
        fr->type = d[off + 4];
        fr->id = fz_get32(d + off + 5);
        fr->end = off + 4 + len;
        if (fr->type == 'S') {
            classify_spawn(fr, d + off + 9, len - 5);
        } else if (fr->type == 'R' && len == 5) {
            fr->kind = SP_RELEASE;
        } else {
            fr->kind = SP_BAD;
            fr->why = fr->type == 'R' ? "a RELEASE with a payload" : "an unknown frame type";
        }
        off = fr->end;
        if (fr->kind == SP_BAD && !lenient) break;
    }
    return k;
}

/* ---------------------------------------------------------------- generating */

static const char *pick(struct fz_rng *r, const char *const *list, size_t n) { return list[fz_below(r, (uint32_t)n)]; }
#define PICK(r, list) pick(r, list, sizeof list / sizeof list[0])

static void gen_script(struct fz_rng *r, struct fz_buf *s) {
    unsigned ops = fz_below(r, 7), i;
    char tmp[32];
    for (i = 0; i < ops; i++) {
        unsigned k = fz_below(r, 100);
        unsigned long n = fz_chance(r, 6) ? 1000 + fz_below(r, 70000) : fz_below(r, 80);
        if (k < 30) snprintf(tmp, sizeof tmp, "o%lu", n);
        else if (k < 50) snprintf(tmp, sizeof tmp, "e%lu", n);
        else if (k < 72) snprintf(tmp, sizeof tmp, "c");
        else if (k < 80) snprintf(tmp, sizeof tmp, "r");
        else if (k < 90) snprintf(tmp, sizeof tmp, "x%u", fz_below(r, 64));
        else if (k < 94) snprintf(tmp, sizeof tmp, "k%u", fz_below(r, 4));
        else if (k < 97) snprintf(tmp, sizeof tmp, "b");
        else snprintf(tmp, sizeof tmp, "z");
        fz_put(s, tmp, strlen(tmp));
    }
    fz_put8(s, 0);
}

static void put_long_string(struct fz_buf *b, const char *head, size_t n, const char *tail) {
    fz_put(b, head, strlen(head));
    while (n--) fz_put8(b, 'a' + (unsigned)(n % 26));
    fz_puts0(b, tail);
}

static void gen_spawn(struct fz_rng *r, struct fz_buf *out, uint32_t id) {
    /* Mostly the fake command (by path, and by a PATH search); /bin/true; programs that fail. */
    static const char *const paths[] = {"/fuzz/" FAKE_NAME, "/fuzz/" FAKE_NAME, "/fuzz/" FAKE_NAME, "/fuzz/" FAKE_NAME,
                                        FAKE_NAME,          FAKE_NAME,          FAKE_NAME,          "/bin/true",
                                        "true",             "/nonexistent-hookd-fuzz/prog",         "fuzz-eacces",
                                        "/x/fuzz-enotdir",  "fuzz-eio",         "",                 "prog"};
    static const char *const cwds[] = {"/", "/", "/", "/", "/", ".", ".", "/nonexistent-hookd-fuzz", "", "/tmp",
                                       "/proc/self"};
    static const char *const path_envs[] = {"PATH=/fuzz", "PATH=/a:/fuzz", "PATH=:/fuzz", "PATH=/fuzz:",
                                            "PATH=",      "PATH=/usr/bin:/bin", "PATH=::", "PATH=/x:/y:/z"};
    struct fz_buf s = {0}, in = {0};
    uint32_t argc = 1, envc = 0, i, extra;
    size_t head = out->len;
    /* path, cwd */
    if (fz_chance(r, 4)) {
        /* Around PATH_MAX (4096), where a PATH search's buffer ends for the default dirs. */
        static const size_t longs[] = {4000, 4084, 4085, 4086, 4087, 4088, 4089, 4090, 4091, 4200};
        put_long_string(&s, fz_chance(r, 50) ? "/" : "", longs[fz_below(r, 10)], fz_chance(r, 50) ? "/" FAKE_NAME : "");
    } else {
        fz_puts0(&s, PICK(r, paths));
    }
    fz_puts0(&s, PICK(r, cwds));
    /* argv: argv[0], the script, a few more (now and then very many) */
    fz_puts0(&s, fz_chance(r, 50) ? FAKE_NAME : "sh");
    if (fz_chance(r, 85)) {
        gen_script(r, &s);
        argc++;
        extra = fz_chance(r, 3) ? 200 + fz_below(r, 3000) : fz_below(r, 4);
        for (i = 0; i < extra; i++) {
            if (fz_chance(r, 50)) fz_puts0(&s, "");
            else fz_puts0(&s, "--arg=value");
        }
        argc += extra;
    }
    /* the environment: a PATH now and then (the search for a name without a slash), sometimes many */
    extra = fz_chance(r, 3) ? 200 + fz_below(r, 2000) : fz_below(r, 4);
    for (i = 0; i < extra; i++) fz_puts0(&s, fz_chance(r, 50) ? "K=V" : "HOOKD_FUZZ=1");
    envc = extra;
    if (fz_chance(r, 35)) {
        /* A first dir whose length with "/fuzz-fake" comes to PATH_MAX, give or take two. */
        if (fz_chance(r, 25)) put_long_string(&s, "PATH=/", 4083 + fz_below(r, 5), ":/fuzz");
        else fz_puts0(&s, PICK(r, path_envs));
        envc++;
    }
    /* stdin */
    {
        unsigned k = fz_below(r, 100);
        size_t n = k < 40 ? 0 : k < 88 ? 1 + fz_below(r, 600) : 1000 + fz_below(r, 12000);
        for (i = 0; i < n; i++) fz_put8(&in, (unsigned)fz_next(r));
    }
    fz_put32(out, (uint32_t)(5 + 12 + s.len + in.len));
    fz_put8(out, 'S');
    fz_put32(out, id);
    fz_put32(out, argc);
    fz_put32(out, envc);
    fz_put32(out, (uint32_t)in.len);
    fz_put(out, s.p, s.len);
    fz_put(out, in.p, in.len);
    free(s.p);
    free(in.p);
    /* Keep under the input cap: drop a SPAWN that would pass it. */
    if (out->len > SP_MAX_INPUT) out->len = head;
}

static void gen_release(struct fz_buf *out, uint32_t id) {
    fz_put32(out, 5);
    fz_put8(out, 'R');
    fz_put32(out, id);
}

static void gen_bad(struct fz_rng *r, struct fz_buf *out) {
    static const unsigned char types[] = {'S', 'R', 'H', 'P', 'X', 0, 0xff, 's'};
    unsigned n = fz_below(r, 40), i;
    if (fz_chance(r, 30)) {
        static const uint32_t lens[] = {0, 1, 4, SP_MAX_FRAME + 1, 0xffffffffu, 0x80000000u};
        fz_put32(out, lens[fz_below(r, 6)]);
        return;
    }
    fz_put32(out, 5 + n);
    fz_put8(out, types[fz_below(r, sizeof types)]);
    fz_put32(out, (uint32_t)fz_next(r));
    for (i = 0; i < n; i++) fz_put8(out, (unsigned)fz_next(r));
}

void sp_generate(struct fz_rng *r, struct fz_buf *out) {
    uint32_t ids[16], base = (uint32_t)fz_next(r) & 0x7fffffffu;
    unsigned nids = 0, frames = 1 + fz_below(r, 10), i;
    for (i = 0; i < frames && out->len < SP_MAX_INPUT - 64; i++) {
        unsigned k = fz_below(r, 100);
        if (k < 65 || nids == 0) {
            size_t before = out->len;
            uint32_t id = base + i;
            gen_spawn(r, out, id);
            if (out->len > before && nids < 16) ids[nids++] = id;
        } else if (k < 88) {
            gen_release(out, ids[fz_below(r, nids)]);
        } else if (k < 93) {
            gen_release(out, (uint32_t)fz_next(r));
        } else {
            gen_bad(r, out);
        }
    }
}

/* ---------------------------------------------------------------- mutating */

static struct sp_frame g_frames[SP_MAX_FRAMES];

static uint32_t edge(struct fz_rng *r, uint32_t around) {
    static const uint32_t fixed[] = {0, 1, 4, 5, 11, 12, 13, 0xffff, 0x10000, 0x10001, 0x7fffffff, 0x80000000u,
                                     0xffffffffu, SP_MAX_FRAME, SP_MAX_FRAME + 1};
    if (fz_chance(r, 60)) return around + fz_below(r, 7) - 3;
    return fixed[fz_below(r, sizeof fixed / sizeof fixed[0])];
}

static void cut(struct fz_buf *b, size_t at, size_t n) {
    memmove(b->p + at, b->p + at + n, b->len - at - n);
    b->len -= n;
}

static void insert(struct fz_buf *b, size_t at, const unsigned char *p, size_t n) {
    unsigned char *copy = malloc(n ? n : 1);
    if (!copy) abort();
    memcpy(copy, p, n); /* p may point into b */
    fz_put(b, copy, n);
    memmove(b->p + at + n, b->p + at, b->len - n - at);
    memcpy(b->p + at, copy, n);
    free(copy);
}

void sp_mutate(struct fz_rng *r, struct fz_buf *b) {
    size_t nf = sp_split(b->p, b->len, g_frames, SP_MAX_FRAMES, 1), k;
    struct sp_frame *f;
    if (nf == 0) {
        sp_generate(r, b);
        return;
    }
    k = fz_below(r, (uint32_t)nf);
    f = &g_frames[k];
    switch (fz_below(r, 9)) {
    case 0: /* its length field */
        if (f->end - f->off >= 4) fz_set32(b->p + f->off, edge(r, fz_get32(b->p + f->off)));
        break;
    case 1: /* argc, envc or the stdin length of a SPAWN */
        if (f->type == 'S' && f->end - f->off >= 21) {
            size_t at = f->off + 9 + 4 * fz_below(r, 3);
            uint32_t plen = (uint32_t)(f->end - f->off - 9);
            fz_set32(b->p + at, fz_chance(r, 30) ? plen - 12 + fz_below(r, 3) : edge(r, fz_get32(b->p + at)));
        }
        break;
    case 2: /* its type */
        if (f->end - f->off >= 5) b->p[f->off + 4] = (unsigned char)"SRSRHXP\0"[fz_below(r, 8)];
        break;
    case 3: /* its id: another frame's */
        if (f->end - f->off >= 9) {
            struct sp_frame *o = &g_frames[fz_below(r, (uint32_t)nf)];
            fz_set32(b->p + f->off + 5, o->end - o->off >= 9 ? fz_get32(b->p + o->off + 5) : 0);
        }
        break;
    case 4: /* a NUL of its strings gone (the length fixed, or not) */
        if (f->end - f->off > 21) {
            unsigned char *nul = memchr(b->p + f->off + 21, 0, f->end - f->off - 21);
            if (nul) {
                if (fz_chance(r, 50)) {
                    *nul = 'A';
                } else {
                    cut(b, (size_t)(nul - b->p), 1);
                    if (fz_chance(r, 80)) fz_set32(b->p + f->off, fz_get32(b->p + f->off) - 1);
                }
            }
        }
        break;
    case 5: /* the input ends inside it */
        b->len = f->off + fz_below(r, (uint32_t)(f->end - f->off));
        break;
    case 6: /* it comes twice */
        insert(b, f->end, b->p + f->off, f->end - f->off);
        break;
    case 7: /* it swaps with the next one */
        if (k + 1 < nf) {
            struct sp_frame *g = &g_frames[k + 1];
            size_t n = f->end - f->off;
            insert(b, g->end, b->p + f->off, n);
            cut(b, f->off, n);
        }
        break;
    default: { /* a RELEASE of its id, before or after it */
        unsigned char rel[9];
        fz_set32(rel, 5);
        rel[4] = 'R';
        fz_set32(rel + 5, f->end - f->off >= 9 ? fz_get32(b->p + f->off + 5) : 0);
        insert(b, fz_chance(r, 50) ? f->off : f->end, rel, 9);
        break;
    }
    }
    if (b->len > SP_MAX_INPUT) b->len = SP_MAX_INPUT;
}

/* ---------------------------------------------------------------- checking what comes back */

void sp_check_init(struct sp_checker *c) { memset(c, 0, sizeof *c); }

static struct sp_cmd *find_cmd(struct sp_checker *c, uint32_t id) {
    size_t i;
    for (i = c->n; i > 0; i--)
        if (c->cmds[i - 1].id == id) return &c->cmds[i - 1];
    return NULL;
}

static void forget(struct sp_cmd *cmd) {
    free(cmd->out[0]);
    free(cmd->out[1]);
    fake_expect_free(&cmd->fake);
}

/* Every SPAWN the spawner takes is answered (SPAWNED or FAILED), released or not. */
static int settled(const struct sp_cmd *cmd) {
    return cmd->got_failed || (cmd->got_spawned && cmd->released) ||
           (cmd->got_spawned && cmd->got_exit && cmd->ended[0] && cmd->ended[1]);
}

static void scan_sanitizer(const struct sp_cmd *cmd) {
    const unsigned char *e = cmd->out[1];
    size_t n = cmd->len[1];
    if (!e || n == 0) return;
    if (memmem(e, n, "Sanitizer", 9) || memmem(e, n, "runtime error:", 14))
        fz_fail("a sanitizer report in the forked child of command %u:\n%.*s", cmd->id,
                (int)(n < 6000 ? n : 6000), (const char *)e);
}

void sp_check_spawn(struct sp_checker *c, const struct sp_frame *f) {
    struct sp_cmd *cmd;
    const char *base = strrchr(f->path, '/');
    int chdir_ok, is_true, is_fake;
    if ((cmd = find_cmd(c, f->id)) != NULL) {
        /* The spawner forgot it (the caller made sure): its last frames are checked as they were. */
        scan_sanitizer(cmd);
        forget(cmd);
        *cmd = c->cmds[--c->n];
    }
    if (c->n == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 16;
        c->cmds = realloc(c->cmds, c->cap * sizeof *c->cmds);
        if (!c->cmds) abort();
    }
    cmd = &c->cmds[c->n++];
    memset(cmd, 0, sizeof *cmd);
    cmd->id = f->id;
    if (strcmp(f->cwd, "/") == 0 || strcmp(f->cwd, ".") == 0) chdir_ok = 1;
    else if (f->cwd[0] == 0 || strncmp(f->cwd, "/nonexistent-hookd-fuzz", 23) == 0) chdir_ok = 0;
    else chdir_ok = -1;
    is_fake = strcmp(base ? base + 1 : f->path, FAKE_NAME) == 0;
    if (base) {
        is_true = strcmp(f->path, "/bin/true") == 0 || strcmp(f->path, "/usr/bin/true") == 0;
        cmd->may_fail = !is_fake;
    } else {
        /* A PATH search: the default dirs (/usr/bin:/bin) find both; another PATH, maybe not. */
        is_true = strcmp(f->path, "true") == 0;
        cmd->may_fail = f->has_path_env || !(is_fake || is_true);
    }
    cmd->may_fake = is_fake && chdir_ok != 0;
    cmd->may_true = is_true && chdir_ok != 0;
    if (chdir_ok != 1) cmd->may_fail = 1;
    if (cmd->may_fake) fake_expect(f->script, f->in, f->inlen, &cmd->fake);
}

void sp_check_release(struct sp_checker *c, uint32_t id) {
    struct sp_cmd *cmd = find_cmd(c, id);
    if (cmd) cmd->released = 1;
}

static void append(struct sp_cmd *cmd, int s, const unsigned char *p, size_t n) {
    unsigned char *q;
    if (cmd->len[s] + n > FAKE_MAX_OUT + 1024 * 1024)
        fz_fail("command %u: more bytes on its %s than any program here writes", cmd->id, s ? "stderr" : "stdout");
    q = realloc(cmd->out[s], cmd->len[s] + n + 1);
    if (!q) abort();
    cmd->out[s] = q;
    memcpy(q + cmd->len[s], p, n);
    cmd->len[s] += n;
}

static void on_frame(struct sp_checker *c, unsigned char type, uint32_t id, const unsigned char *b, size_t n) {
    struct sp_cmd *cmd;
    if (!c->hello_seen) {
        if (type != 'H' || id != 0 || n != strlen(SP_HELLO) || memcmp(b, SP_HELLO, n) != 0)
            fz_fail("the spawner's first frame is not HELLO \"%s\" (type 0x%02x, id %u)", SP_HELLO, type, id);
        c->hello_seen = 1;
        return;
    }
    cmd = find_cmd(c, id);
    if (!cmd) fz_fail("the spawner sent a frame of type 0x%02x for id %u, which no SPAWN it took named", type, id);
    switch (type) {
    case 'P':
        if (n != 4) fz_fail("SPAWNED of %u has %lu bytes", id, (unsigned long)n);
        if (cmd->got_spawned || cmd->got_failed) fz_fail("a second SPAWNED/FAILED for %u", id);
        cmd->pid = (pid_t)fz_get32(b);
        if (cmd->pid <= 0) fz_fail("SPAWNED of %u says pid %ld", id, (long)cmd->pid);
        cmd->got_spawned = 1;
        c->spawned++;
        break;
    case 'F': {
        uint32_t err;
        if (n < 4 || n > 4 + 160) fz_fail("FAILED of %u has %lu bytes", id, (unsigned long)n);
        if (cmd->got_spawned || cmd->got_failed) fz_fail("a second SPAWNED/FAILED for %u", id);
        err = fz_get32(b);
        if (err == 0 || err > 4095) fz_fail("FAILED of %u says errno %u", id, err);
        cmd->got_failed = 1;
        cmd->fail_errno = (int)err;
        c->failed++;
        /* pipe, fork or the command table can fail on a busy machine; exec and chdir only as predicted. */
        if (!cmd->released && !cmd->may_fail && err != EAGAIN && err != ENOMEM && err != EMFILE && err != ENFILE)
            fz_fail("command %u failed (errno %u: %.*s) but its program runs", id, err, (int)(n - 4),
                    (const char *)b + 4);
        break;
    }
    case 'O':
    case 'E': {
        int s = n >= 1 && (b[0] == 1 || b[0] == 2) ? b[0] - 1 : -1;
        if (s < 0 || (type == 'E' && n != 1) || (type == 'O' && n < 2))
            fz_fail("%s of %u is malformed (%lu bytes, stream %d)", type == 'O' ? "OUT" : "EOF", id,
                    (unsigned long)n, n ? b[0] : -1);
        if (!cmd->got_spawned) fz_fail("%s of %u before SPAWNED", type == 'O' ? "OUT" : "EOF", id);
        if (cmd->ended[s]) fz_fail("%s of %u stream %d after its EOF", type == 'O' ? "OUT" : "EOF", id, s + 1);
        if (type == 'E') {
            cmd->ended[s] = 1;
            break;
        }
        /* What a command wrote before it exited comes before its EXIT (only a background process of
         * its group writes after). */
        if (cmd->got_exit && !cmd->fake.background) fz_fail("OUT of %u after its EXIT", id);
        append(cmd, s, b + 1, n - 1);
        c->out_bytes += n - 1;
        break;
    }
    case 'X':
        if (n != 5 || b[0] > 1) fz_fail("EXIT of %u is malformed (%lu bytes)", id, (unsigned long)n);
        if (!cmd->got_spawned || cmd->got_exit) fz_fail("EXIT of %u before SPAWNED, or twice", id);
        cmd->got_exit = 1;
        cmd->exit_signaled = b[0];
        cmd->exit_code = (int)fz_get32(b + 1);
        c->exits++;
        break;
    default:
        fz_fail("the spawner sent a frame of type 0x%02x (id %u)", type, id);
    }
}

void sp_check_bytes(struct sp_checker *c, const unsigned char *p, size_t n) {
    size_t off = 0;
    if (c->pending_len + n > c->pending_cap) {
        c->pending_cap = (c->pending_len + n) * 2;
        c->pending = realloc(c->pending, c->pending_cap);
        if (!c->pending) abort();
    }
    memcpy(c->pending + c->pending_len, p, n);
    c->pending_len += n;
    while (c->pending_len - off >= 4) {
        uint32_t len = fz_get32(c->pending + off);
        if (len < 5 || len > SP_MAX_OUT_FRAME) fz_fail("the spawner sent a frame of length %u", len);
        if (c->pending_len - off - 4 < len) break;
        on_frame(c, c->pending[off + 4], fz_get32(c->pending + off + 5), c->pending + off + 9, len - 5);
        off += 4 + len;
    }
    memmove(c->pending, c->pending + off, c->pending_len - off);
    c->pending_len -= off;
}

int sp_check_settled(const struct sp_checker *c) {
    size_t i;
    for (i = 0; i < c->n; i++)
        if (!settled(&c->cmds[i])) return 0;
    return 1;
}

static int same(const unsigned char *a, size_t an, const unsigned char *b, size_t bn) {
    return an == bn && (an == 0 || memcmp(a, b, an) == 0);
}

static void verify(struct sp_checker *c, const struct sp_cmd *cmd) {
    const struct fake_expect *e = &cmd->fake;
    int as_fake, as_true;
    scan_sanitizer(cmd);
    if (!settled(cmd))
        fz_fail("command %u never finished (%s)", cmd->id,
                cmd->got_spawned ? "no EXIT or no EOF" : "no SPAWNED or FAILED");
    if (cmd->released || cmd->got_failed) return;
    if (!cmd->may_fake && !cmd->may_true)
        fz_fail("command %u ran (SPAWNED, %s %d), but it names no program that runs here", cmd->id,
                cmd->exit_signaled ? "signal" : "exit", cmd->exit_code);
    if (!cmd->exit_signaled && cmd->exit_code == FAKE_BAD_STATE)
        fz_fail("command %u started in a state it must not:\n%.*s", cmd->id, (int)cmd->len[1],
                cmd->out[1] ? (const char *)cmd->out[1] : "");
    as_fake = cmd->may_fake && same(cmd->out[0], cmd->len[0], e->out[0], e->len[0]) &&
              same(cmd->out[1], cmd->len[1], e->out[1], e->len[1]) && cmd->exit_signaled == e->signaled &&
              cmd->exit_code == e->code;
    as_true = cmd->may_true && cmd->len[0] == 0 && cmd->len[1] == 0 && !cmd->exit_signaled && cmd->exit_code == 0;
    if (!as_fake && !as_true)
        fz_fail("command %u did not get what its program did: stdout %lu bytes, stderr %lu bytes, %s %d; "
                "the fake command's script gives stdout %lu, stderr %lu, %s %d%s",
                cmd->id, (unsigned long)cmd->len[0], (unsigned long)cmd->len[1],
                cmd->exit_signaled ? "signal" : "exit", cmd->exit_code, (unsigned long)e->len[0],
                (unsigned long)e->len[1], e->signaled ? "signal" : "exit", e->code,
                cmd->may_true ? " (or /bin/true: nothing, exit 0)" : "");
    c->verified++;
}

void sp_check_finish(struct sp_checker *c) {
    size_t i;
    for (i = 0; i < c->n; i++) verify(c, &c->cmds[i]);
    for (i = 0; i < c->n; i++) forget(&c->cmds[i]);
    c->n = 0;
}

void sp_check_reset(struct sp_checker *c) {
    size_t i;
    for (i = 0; i < c->n; i++) {
        scan_sanitizer(&c->cmds[i]);
        forget(&c->cmds[i]);
    }
    c->n = 0;
    c->pending_len = 0;
    c->hello_seen = 0;
}

size_t sp_check_pids(const struct sp_checker *c, pid_t *out, size_t max) {
    size_t i, k = 0;
    for (i = 0; i < c->n && k < max; i++)
        if (c->cmds[i].pid > 0 && !c->cmds[i].got_exit) out[k++] = c->cmds[i].pid;
    return k;
}
