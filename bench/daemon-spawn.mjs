#!/usr/bin/env node
// The daemon's spawner (native/hookd-spawner.c; docs/daemon.md, "The spawner") against node's
// child_process: two daemons side by side, one with HOOKD_NO_SPAWNER=1, each with a configured `true`
// PreToolUse command, driven by the native fast client, interleaved in each
// round with a direct `sh -c true` (the goal: a client's `true` at most `sh -c true` + 4 ms).
// Reported: medians of the per-round differences to `sh -c true`, and of spawner minus child_process.
// Usage: npm run build && env -u NODE_EXTRA_CA_CERTS node bench/daemon-spawn.mjs [rounds=40]
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES, ROOT, benchEnv, quantiles, save, startDaemon, stopDaemon } from './daemon-common.mjs';

const ROUNDS = Number(process.argv[2] ?? 40);
const NATIVE = join(ROOT, 'dist', 'hookd-client');
if (!existsSync(join(ROOT, 'dist', 'hookd-spawner'))) throw new Error('dist/hookd-spawner was not built');
const pre = readFileSync(join(FIXTURES, '03-PreToolUse-Execute.json'));
const config = {
  hooks: { PreToolUse: [{ matcher: 'Execute', hooks: [{ type: 'command', command: 'true' }] }] },
};

/** Milliseconds from the start of `file` to its exit (stderr shown; a failure ends the run). */
async function timed(file, args, input, env) {
  const start = process.hrtime.bigint();
  const child = spawn(file, args, { env, stdio: [input ? 'pipe' : 'ignore', 'ignore', 'inherit'] });
  child.stdin?.end(input);
  const [code] = await once(child, 'close');
  if (code !== 0) throw new Error(`${file}: exit ${code}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

function rssKb(pid) {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  } catch {
    return undefined;
  }
}

const homes = { spawner: benchEnv(config), childProcess: benchEnv(config) };
homes.childProcess.env.HOOKD_NO_SPAWNER = '1';
const daemons = {};
try {
  for (const [mode, home] of Object.entries(homes)) daemons[mode] = await startDaemon(home.env, home.socket);
  if (!existsSync(NATIVE)) throw new Error(`${NATIVE} was not built (npm run build with a C compiler)`);
  const clients = { native: [NATIVE, []] };
  const rows = { shTrue: () => timed('/bin/sh', ['-c', 'true'], undefined, homes.spawner.env) };
  for (const [client, [file, args]] of Object.entries(clients))
    for (const [mode, home] of Object.entries(homes))
      rows[`${client}:${mode}`] = () => timed(file, [...args, '--agent', 'droid'], pre, home.env);
  const r = Object.fromEntries(Object.keys(rows).map((k) => [k, []]));
  for (let i = 0; i < 3; i++) for (const run of Object.values(rows)) await run();
  for (let i = 0; i < ROUNDS; i++) for (const [k, run] of Object.entries(rows)) r[k].push(await run());
  const median = (xs) => quantiles(xs).p50;
  const diff = (a, b) => median(r[a].map((x, i) => x - r[b][i]));
  const round = (x) => Number(x.toFixed(2));
  const result = {
    rounds: ROUNDS,
    medianMs: Object.fromEntries(Object.entries(r).map(([k, xs]) => [k, round(median(xs))])),
    daemonRssKb: Object.fromEntries(Object.entries(daemons).map(([m, d]) => [m, rssKb(d.pid)])),
    clients: {},
  };
  for (const client of Object.keys(clients)) {
    result.clients[client] = {
      spawnerMinusShTrueMs: round(diff(`${client}:spawner`, 'shTrue')),
      childProcessMinusShTrueMs: round(diff(`${client}:childProcess`, 'shTrue')),
      spawnerMinusChildProcessMs: round(diff(`${client}:spawner`, `${client}:childProcess`)),
      'target: true <= sh -c true + 4 ms (spawner)': diff(`${client}:spawner`, 'shTrue') <= 4,
    };
  }
  save('daemon-spawn', result);
} finally {
  for (const d of Object.values(daemons)) await stopDaemon(d);
  for (const home of Object.values(homes)) home.cleanup();
}
