#!/usr/bin/env node
// The floor of the fast path's protocol: a minimal bash client doing the same three round trips
// as bin/hookd-client.bash (greeting, request -> ACK, GO -> RESULT; stdin read inline) against a Node server
// that answers at once, interleaved with `node -e 0` and a bare `bash -c 'exit 0'`. No authentication, no
// environment, no event run: what no bash client of this protocol can go under on this machine.
//
// The daemon-down rows: what the native client (dist/hookd-client) costs of its own before its fallback,
// `sh -c '<client> --agent droid'` with HOOKD_NODE=/bin/true (the fallback execs /bin/true, not Node) vs
// `sh -c /bin/true`, with a runtime dir without a listener file and with a stale one (connection
// refused); and the same exec with the client built other ways (-Os, stripped, --gc-sections, dynamic), to
// see whether a smaller binary execs faster. Medians of the per-round differences to `sh -c /bin/true`.
// Usage: env -u NODE_EXTRA_CA_CERTS node bench/fast-floor.mjs [rounds=40] [down: only the daemon-down rows]
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FIXTURES, ROOT, quantiles, save } from './daemon-common.mjs';

const ROUNDS = Number(process.argv[2] ?? 40);
const DOWN_ONLY = process.argv[3] === 'down';
const dir = mkdtempSync(join(tmpdir(), 'hkfloor-'));
const client = join(dir, 'client.bash');
writeFileSync(
  client,
  [
    'exec 3<>"/dev/tcp/127.0.0.1/$1"',
    'read -r -u 3 -t 2 proto secret rest',
    "IFS= read -r -d '' -n 4000 body",
    'printf \'%s\\n%s\\0%s\\0\\0\' token "$PWD" "$body" >&3',
    'read -r -u 3 -t 2 -n 1 first; read -r -u 3 ack',
    "printf 'GO\\n' >&3",
    'read -r -u 3 result code out err',
    'exit 0',
    '',
  ].join('\n'),
);
const server = createServer((s) => {
  s.write(`HOOKD-FAST2 ${'0123456789abcdef'.repeat(2)} 2 1\n`);
  let phase = 0;
  let buf = '';
  s.on('data', (c) => {
    buf += c.toString('latin1');
    if (phase === 0 && buf.includes('\0\0')) {
      phase = 1;
      buf = '';
      s.write('ACK 1 00000000-0000-0000-0000-000000000000\n');
    } else if (phase === 1 && buf.includes('GO\n')) {
      phase = 2;
      s.end('RESULT 0 0 0\n');
    }
  });
  s.on('error', () => {});
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const port = String(server.address().port);
const input = readFileSync(join(FIXTURES, '05-PostToolUse-Execute.json'));

function timed(file, args, stdin, env = process.env) {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(file, args, { env, stdio: [stdin ? 'pipe' : 'ignore', 'ignore', 'inherit'] });
    if (stdin) {
      // A client that falls back before it reads stdin (the daemon down) may exit first: EPIPE is fine.
      child.stdin.on('error', () => {});
      child.stdin.end(stdin);
    }
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolve(Number(process.hrtime.bigint() - start) / 1e6)
        : reject(new Error(`${file}: ${code}`)),
    );
  });
}

// The daemon down: a runtime dir without a listener file, and one whose listener file names a port
// nobody listens on (bound once, then closed: refused).
const noFile = join(dir, 'run-none');
const stale = join(dir, 'run-stale');
for (const d of [noFile, stale]) mkdirSync(d, { mode: 0o700 });
const deadPort = await new Promise((resolve) => {
  const s = createServer().listen(0, '127.0.0.1', () => {
    const { port: p } = s.address();
    s.close(() => resolve(p));
  });
});
writeFileSync(join(stale, 'hookd.fast'), `${deadPort} ${'s'.repeat(24)} ${'t'.repeat(48)} 2 1\n`, {
  mode: 0o600,
});
const downEnv = (runtimeDir) => ({
  PATH: process.env.PATH,
  HOME: dir,
  HOOKD_NODE: '/bin/true',
  HOOKD_RUNTIME_DIR: runtimeDir,
});

// The native client as scripts/build.mjs builds it (dist/hookd-client: -O2, static where the libc
// allows), and other builds of the same source, for the exec cost of the binary itself.
const SOURCE = join(ROOT, 'native', 'hookd-client.c');
const BASE = ['-std=c99', '-Wall', '-Wextra'];
const SMALL = ['-Os', '-s', '-ffunction-sections', '-fdata-sections', '-Wl,--gc-sections'];
const variants = { shipped: join(ROOT, 'dist', 'hookd-client') };
for (const [name, flags] of Object.entries({
  'O2-static-stripped': ['-O2', '-s', '-static'],
  'Os-static-gc-stripped': [...SMALL, '-static'],
  'O2-dynamic': ['-O2'],
  'Os-dynamic-gc-stripped': SMALL,
})) {
  const out = join(dir, `client-${name}`);
  const r = spawnSync(process.env.CC || 'cc', [...BASE, ...flags, '-o', out, SOURCE], { stdio: 'ignore' });
  if (r.status === 0) variants[name] = out;
}
if (!existsSync(variants.shipped)) delete variants.shipped;
const sizes = Object.fromEntries(Object.entries(variants).map(([k, f]) => [k, statSync(f).size]));
// A posix_spawn timer (a Node spawn alone costs ~10 ms here, with a spread larger than the client):
// `timer <n> <file> <args...>` runs the command n times, each waited for with wait4, and prints the
// median wall time and the median CPU time (user + system, the process and what it waited for) in us.
const TIMER_SOURCE = `#define _GNU_SOURCE
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
extern char **environ;
static int cmp(const void *a, const void *b) {
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}
int main(int argc, char **argv) {
    long wall[256], cpu[256];
    int n = argc > 2 ? atoi(argv[1]) : 0, i, st;
    if (n < 1 || n > 256) return 2;
    for (i = 0; i < n; i++) {
        struct timespec a, b;
        struct rusage ru;
        pid_t pid;
        clock_gettime(CLOCK_MONOTONIC, &a);
        if (posix_spawn(&pid, argv[2], NULL, NULL, argv + 2, environ) != 0) return 3;
        if (wait4(pid, &st, 0, &ru) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) return 4;
        clock_gettime(CLOCK_MONOTONIC, &b);
        wall[i] = (b.tv_sec - a.tv_sec) * 1000000L + (b.tv_nsec - a.tv_nsec) / 1000;
        cpu[i] = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000L + ru.ru_utime.tv_usec + ru.ru_stime.tv_usec;
    }
    qsort(wall, n, sizeof *wall, cmp);
    qsort(cpu, n, sizeof *cpu, cmp);
    printf("%ld %ld\\n", wall[n / 2], cpu[n / 2]);
    return 0;
}
`;
const timer = join(dir, 'timer');
writeFileSync(`${timer}.c`, TIMER_SOURCE);
const timerBuilt =
  spawnSync(process.env.CC || 'cc', ['-O2', '-o', timer, `${timer}.c`], { stdio: 'ignore' }).status === 0;
const SPAWNS = 5;
/** `sh <args>` SPAWNS times from the C timer: [median wall us, median CPU us]. */
function timedC(args, env) {
  const r = spawnSync(timer, [String(SPAWNS), '/bin/sh', ...args], { env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`timer: exit ${r.status}`);
  return r.stdout.trim().split(' ').map(Number);
}

const sh = (command, runtimeDir) => [['-c', command], downEnv(runtimeDir)];
const down = {
  true: sh('/bin/true', noFile),
  ...Object.fromEntries(
    Object.entries(variants).map(([k, f]) => [`native-${k}-nofile`, sh(`${f} --agent droid`, noFile)]),
  ),
  ...(variants.shipped ? { 'native-shipped-stale': sh(`${variants.shipped} --agent droid`, stale) } : {}),
  'bash-nofile': sh(`/bin/bash --posix ${join(ROOT, 'bin', 'hookd-client.bash')} --agent droid`, noFile),
  'bash-stale': sh(`/bin/bash --posix ${join(ROOT, 'bin', 'hookd-client.bash')} --agent droid`, stale),
};

try {
  const r = { node: [], bash: [], floor: [] };
  const d = Object.fromEntries(Object.keys(down).map((k) => [k, []]));
  const c = Object.fromEntries(Object.keys(down).map((k) => [k, { wall: [], cpu: [] }]));
  for (let i = 0; i < 3; i++) await timed('/bin/bash', [client, port], input);
  for (const [args, env] of Object.values(down)) await timed('/bin/sh', args, input, env);
  for (let i = 0; i < ROUNDS; i++) {
    if (!DOWN_ONLY) {
      r.node.push(await timed(process.execPath, ['-e', '0']));
      r.bash.push(await timed('/bin/bash', ['-c', 'exit 0']));
      r.floor.push(await timed('/bin/bash', [client, port], input));
    }
    // Each round in another order: no row always follows the same one.
    const names = Object.keys(down);
    const shift = i % names.length;
    for (const name of [...names.slice(shift), ...names.slice(0, shift)]) {
      const [args, env] = down[name];
      d[name].push(await timed('/bin/sh', args, input, env));
      if (timerBuilt) {
        const [wall, cpu] = timedC(args, env);
        c[name].wall.push(wall / 1000);
        c[name].cpu.push(cpu / 1000);
      }
    }
  }
  const median = (xs) => quantiles(xs).p50;
  const round = (x, n = 2) => Number(x.toFixed(n));
  const perRound = (xs, ys, f) => median(xs.map((x, i) => f(x, ys[i])));
  const overTrue = (rows, pick = (v) => v) =>
    Object.fromEntries(
      Object.entries(rows)
        .filter(([k]) => k !== 'true')
        .map(([k, v]) => [
          k,
          round(
            perRound(pick(v), pick(rows.true), (x, t) => x - t),
            3,
          ),
        ]),
    );
  save(DOWN_ONLY ? 'fast-floor-down' : 'fast-floor', {
    rounds: ROUNDS,
    ...(DOWN_ONLY
      ? {}
      : {
          medianMs: Object.fromEntries(Object.entries(r).map(([k, xs]) => [k, round(median(xs))])),
          floorVsNode: round(median(r.floor.map((x, i) => x / r.node[i])), 3),
        }),
    daemonDown: {
      what: "sh -c '<client> --agent droid' with HOOKD_NODE=/bin/true vs sh -c /bin/true; per-round medians",
      binaryBytes: sizes,
      medianMs: Object.fromEntries(Object.entries(d).map(([k, xs]) => [k, round(median(xs))])),
      overTrueMs: Object.fromEntries(
        Object.entries(d)
          .filter(([k]) => k !== 'true')
          .map(([k, xs]) => [k, round(perRound(xs, d.true, (x, t) => x - t))]),
      ),
      ...(timerBuilt
        ? {
            posixSpawn: {
              what: `the same rows from a C posix_spawn timer, medians of ${SPAWNS} runs per round; CPU: user + system`,
              wallMs: Object.fromEntries(Object.entries(c).map(([k, v]) => [k, round(median(v.wall), 3)])),
              cpuMs: Object.fromEntries(Object.entries(c).map(([k, v]) => [k, round(median(v.cpu), 3)])),
              wallOverTrueMs: overTrue(c, (v) => v.wall),
              cpuOverTrueMs: overTrue(c, (v) => v.cpu),
            },
          }
        : {}),
      vsTrue: Object.fromEntries(
        Object.entries(d)
          .filter(([k]) => k !== 'true')
          .map(([k, xs]) => [
            k,
            round(
              perRound(xs, d.true, (x, t) => x / t),
              3,
            ),
          ]),
      ),
    },
  });
} finally {
  server.close();
  rmSync(dir, { recursive: true, force: true });
}
