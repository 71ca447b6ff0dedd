#!/usr/bin/env node
// The fast path of issue 12 (experimental): the complete bash client (bin/hookd-client.bash: listener
// file, both secrets, environment, framing, ACK/GO, output) against its baselines, interleaved in one
// run; medians of per-round ratios (compare those; absolute times move with the machine's load):
//   - observe-only PostToolUse, daemon up: fast client vs `node -e 0` (and today's Node path);
//   - a configured `true` command (PreToolUse): fast client vs a direct `sh -c true`.
// Usage: npm run build && node bench/fast-path.mjs [rounds=40]
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, FIXTURES, ROOT, benchEnv, quantiles, save, startDaemon, stopDaemon } from './daemon-common.mjs';

const ROUNDS = Number(process.argv[2] ?? 40);
const CLIENT = join(ROOT, 'bin', 'hookd-client.bash');
const post = readFileSync(join(FIXTURES, '05-PostToolUse-Execute.json'));
const pre = readFileSync(join(FIXTURES, '03-PreToolUse-Execute.json'));
const t = benchEnv({
  daemon: { fastListener: true },
  hooks: { PreToolUse: [{ matcher: 'Execute', hooks: [{ type: 'command', command: 'true' }] }] },
});

function timed(file, args, input) {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(file, args, { env: t.env, stdio: [input ? 'pipe' : 'ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c) => (stderr += c));
    if (input) child.stdin.end(input);
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolve(Number(process.hrtime.bigint() - start) / 1e6)
        : reject(new Error(`${file} ${args.join(' ')}: exit ${code} ${stderr}`)),
    );
  });
}

const median = (xs) => quantiles(xs).p50;
const daemon = await startDaemon(t.env, t.socket);
try {
  const listener = join(t.env.HOOKD_RUNTIME_DIR, 'hookd.fast');
  if (!existsSync(listener)) throw new Error('no fast listener file');
  const r = { node: [], fastPost: [], nodePost: [], shTrue: [], fastTrue: [] };
  const fast = (input) => timed('/bin/bash', [CLIENT, '--agent', 'droid'], input);
  for (let i = 0; i < 3; i++) {
    await fast(post);
    await fast(pre);
    await timed(process.execPath, [BIN, 'hook', '--agent', 'droid'], post);
  }
  for (let i = 0; i < ROUNDS; i++) {
    r.node.push(await timed(process.execPath, ['-e', '0']));
    r.fastPost.push(await fast(post));
    r.nodePost.push(await timed(process.execPath, [BIN, 'hook', '--agent', 'droid'], post));
    r.shTrue.push(await timed('/bin/sh', ['-c', 'true']));
    r.fastTrue.push(await fast(pre));
  }
  const ratio = (a, b) => median(r[a].map((x, i) => x / r[b][i]));
  const diff = (a, b) => median(r[a].map((x, i) => x - r[b][i]));
  const round = (x, d = 2) => Number(x.toFixed(d));
  save('fast-path', {
    rounds: ROUNDS,
    medianMs: Object.fromEntries(Object.entries(r).map(([k, xs]) => [k, round(median(xs))])),
    fastPostVsNode: round(ratio('fastPost', 'node'), 3),
    nodePathPostVsNode: round(ratio('nodePost', 'node'), 3),
    fastTrueMinusShTrueMs: round(diff('fastTrue', 'shTrue')),
  });
} finally {
  await stopDaemon(daemon);
  t.cleanup();
}
