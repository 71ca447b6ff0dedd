#!/usr/bin/env node
// The Node path's CPU time (user + system of the process, from /proc: Linux only) beside `node -e 0`,
// which a loaded machine moves far less than wall-clock time. Each row runs in batches of five, the rows
// interleaved in every round; with `--base <dir>` another built hookd runs the same rows. The daemon is
// off (HOOKD_DAEMON=0): observe-only PostToolUse (`post`), and a PreToolUse with a `true` guard (`true`);
// and down (`down`: hand-offs on, no daemon running or started, so each event is spooled), observe-only;
// and up (`up`: observe-only, handed to a running daemon of the same build, stderr a pipe as agents give).
// Usage: npm run build && env -u NODE_EXTRA_CA_CERTS node bench/hook-cpu.mjs [rounds=10] [--base DIR]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { FIXTURES, ROOT, benchEnv, startDaemon, stopDaemon } from './daemon-common.mjs';

const argv = process.argv.slice(2);
const baseAt = argv.indexOf('--base');
const BASE = baseAt >= 0 ? resolve(argv[baseAt + 1]) : undefined;
const ROUNDS = Number(argv.find((a, i) => /^\d+$/.test(a) && i !== baseAt + 1) ?? 10);
const BATCH = 5;
const post = readFileSync(join(FIXTURES, '05-PostToolUse-Execute.json'));
const pre = readFileSync(join(FIXTURES, '03-PreToolUse-Execute.json'));
const tmp = mkdtempSync(join(tmpdir(), 'hookd-cpu-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));
const config = {
  hooks: { PreToolUse: [{ matcher: 'Execute', hooks: [{ type: 'command', command: 'true' }] }] },
};
writeFileSync(join(tmp, 'config.json'), JSON.stringify(config));
// The daemon down: hand-offs on, no daemon, none started (each event goes to the spool).
writeFileSync(join(tmp, 'config-down.json'), JSON.stringify({ ...config, daemon: { autoStart: false } }));
const envOf = (name) => ({
  PATH: process.env.PATH,
  HOME: join(tmp, name),
  HOOKD_CONFIG: join(tmp, 'config.json'),
  HOOKD_STATE_DIR: join(tmp, name, 'state'),
  XDG_RUNTIME_DIR: join(tmp, name, 'run'),
  HOOKD_DAEMON: '0',
});
/** Clock ticks of CPU used by this process's waited-for children (utime + stime fields 16 and 17). */
const childTicks = () => {
  const f = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  return Number(f[13]) + Number(f[14]);
};
const run = (argv_, env, input) => () => spawnSync(process.execPath, argv_, { env, input, stdio: 'pipe' });
const rows = { node: run(['-e', '0'], envOf('node')) };
const daemons = [];
for (const [name, root] of [['this', ROOT], ...(BASE ? [['base', BASE]] : [])]) {
  const hook = [join(root, 'dist', 'hookd.cjs'), 'hook', '--agent', 'droid'];
  const up = benchEnv({});
  daemons.push({ up, child: await startDaemon(up.env, up.socket, hook[0]) });
  rows[`${name}Up`] = run(hook, up.env, post);
  rows[`${name}Post`] = run(hook, envOf(name), post);
  rows[`${name}True`] = run(hook, envOf(name), pre);
  const { HOOKD_DAEMON: _, ...down } = envOf(`${name}-down`);
  rows[`${name}Down`] = run(hook, { ...down, HOOKD_CONFIG: join(tmp, 'config-down.json') }, post);
}
for (const r of Object.values(rows)) for (let i = 0; i < 2; i++) r(); // config memo, code cache
const ticks = Object.fromEntries(Object.keys(rows).map((k) => [k, 0]));
for (let i = 0; i < ROUNDS; i++)
  for (const [k, r] of Object.entries(rows)) {
    const t0 = childTicks();
    for (let j = 0; j < BATCH; j++) r();
    ticks[k] += childTicks() - t0;
  }
const tick = 1000 / 100; // USER_HZ
const ms = Object.fromEntries(
  Object.entries(ticks).map(([k, t]) => [k, +((t * tick) / (ROUNDS * BATCH)).toFixed(1)]),
);
const vsNode = Object.fromEntries(Object.entries(ms).map(([k, v]) => [k, +(v / ms.node).toFixed(3)]));
console.log(JSON.stringify({ rounds: ROUNDS, batch: BATCH, cpuMsPerEvent: ms, vsNode }, null, 2));
for (const { up, child } of daemons) {
  await stopDaemon(child);
  up.cleanup();
}
