#!/usr/bin/env node
// Benchmarks the hook path side by side with its baseline, interleaved in one run (ratios, not absolute
// times, are what to compare on a noisy machine):
//   1. `hookd hook` with no matching command (daemon hand-off off) vs `node -e 0`      target <= 1.15x
//   2. per-command overhead: hookd's runCommand('true') vs a bare spawn of `sh -c true` target < 3 ms
//   3. with `--base <dir>` (another built hookd checkout), its `hookd hook` in the same rounds: the
//      median of per-round ratios this / base
// Usage: npm run build && env -u NODE_EXTRA_CA_CERTS node bench/hook.mjs [rounds] [--base DIR]
// (results also in bench/results/hook.json)
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const baseAt = argv.indexOf('--base');
const BASE_BIN = baseAt >= 0 ? join(argv[baseAt + 1], 'dist', 'hookd.cjs') : undefined;
const ROUNDS = Number(argv.find((a, i) => /^\d+$/.test(a) && i !== baseAt + 1) ?? 40);
const BIN = join(ROOT, 'dist', 'hookd.cjs');
const payload = readFileSync(join(ROOT, 'test', 'fixtures', 'droid-0.225.2', 'jsonrpc', '16-Stop.json'));

const tmp = mkdtempSync(join(tmpdir(), 'hookd-bench-'));
// A clean environment: variables such as NODE_EXTRA_CA_CERTS (set on some machines) slow every Node start
// by tens of ms and would hide hookd's own cost in the ratio.
const env = {
  PATH: process.env.PATH,
  HOME: tmp,
  HOOKD_CONFIG: join(tmp, 'config.json'),
  HOOKD_STATE_DIR: join(tmp, 'state'),
  HOOKD_DAEMON: '0',
};
// A realistic config: hooks exist, but none for Stop.
writeFileSync(
  env.HOOKD_CONFIG,
  JSON.stringify({
    hooks: { PostToolUse: [{ matcher: 'Edit|Create', hooks: [{ type: 'command', command: 'true' }] }] },
  }),
);

function timeSpawn(cmd, args, input) {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(cmd, args, { env, stdio: [input ? 'pipe' : 'ignore', 'ignore', 'ignore'] });
    if (input) child.stdin.end(input);
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`${cmd} ${args.join(' ')} exited ${code}`));
      else resolve(Number(process.hrtime.bigint() - start) / 1e6);
    });
  });
}

const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return { median: q(0.5), p90: q(0.9), min: s[0] };
};

// Bundle runCommand alone so the per-command cost is measured without process start-up noise.
const runnerFile = join(tmp, 'run-command.cjs');
await build({
  entryPoints: [join(ROOT, 'src', 'runner', 'run-command.ts')],
  bundle: true,
  platform: 'node',
  format: 'cjs',
  outfile: runnerFile,
  logLevel: 'error',
});
const { runCommand } = await import(runnerFile);

process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));
await timeSpawn(process.execPath, [BIN, 'hook'], payload); // warm the config cache
if (BASE_BIN) await timeSpawn(process.execPath, [BASE_BIN, 'hook'], payload);
const baseTimes = [];
const nodeTimes = [];
const hookTimes = [];
const shTimes = [];
const runTimes = [];
for (let i = 0; i < ROUNDS; i++) {
  nodeTimes.push(await timeSpawn(process.execPath, ['-e', '0']));
  hookTimes.push(await timeSpawn(process.execPath, [BIN, 'hook'], payload));
  if (BASE_BIN) baseTimes.push(await timeSpawn(process.execPath, [BASE_BIN, 'hook'], payload));
  shTimes.push(await timeSpawn('/bin/sh', ['-c', 'true']));
  const r = await runCommand({
    command: 'true',
    cwd: tmp,
    env,
    stdin: payload,
    timeoutMs: 10_000,
    killGraceMs: 500,
    maxOutputBytes: 65536,
  });
  runTimes.push(r.durationMs);
}

const node = stats(nodeTimes);
const hook = stats(hookTimes);
const sh = stats(shTimes);
const run = stats(runTimes);
const result = {
  date: new Date().toISOString(),
  node: process.version,
  rounds: ROUNDS,
  nodeE0Ms: node,
  hookNoMatchMs: hook,
  hookRatio: +(hook.median / node.median).toFixed(3),
  bareShMs: sh,
  runCommandMs: run,
  perCommandOverheadMs: +(run.median - sh.median).toFixed(2),
};
if (BASE_BIN) {
  const perRound = stats(hookTimes.map((t, i) => t / baseTimes[i]));
  Object.assign(result, {
    base: BASE_BIN,
    baseHookNoMatchMs: stats(baseTimes),
    baseHookRatio: +(stats(baseTimes).median / node.median).toFixed(3),
    thisVsBase: +perRound.median.toFixed(3),
  });
}
mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
writeFileSync(join(ROOT, 'bench', 'results', 'hook.json'), `${JSON.stringify(result, null, 2)}\n`);
const f = (x) => x.toFixed(1);
console.log(`| measure (${ROUNDS} interleaved rounds) | median ms | p90 ms |`);
console.log('|---|---|---|');
console.log(`| node -e 0 | ${f(node.median)} | ${f(node.p90)} |`);
console.log(`| hookd hook, no matching command | ${f(hook.median)} | ${f(hook.p90)} |`);
console.log(`| bare spawn of sh -c true | ${f(sh.median)} | ${f(sh.p90)} |`);
console.log(`| hookd runCommand('true') | ${f(run.median)} | ${f(run.p90)} |`);
console.log(`\nhook / node -e 0 = ${result.hookRatio}x (target <= 1.15x)`);
console.log(`per-command overhead = ${result.perCommandOverheadMs} ms (target < 3 ms)`);
if (BASE_BIN)
  console.log(`base hook / node -e 0 = ${result.baseHookRatio}x; this / base = ${result.thisVsBase}x`);
