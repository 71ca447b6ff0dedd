#!/usr/bin/env node
// Droid's own hook time per event, the real Droid CLI 0.225.2 (the e2e agents cache, see
// test/harness/README.md) playing the same scripted session with hookd's two transports as its hook
// command on all nine events, interleaved: the fast client (`dist/hookd-client`, daemon up
// with its listener) and the Node path (`node dist/hookd.cjs hook`). Every event runs one configured
// `true` command. Times are hookEndTime - hookStartTime from Droid's transcripts (so Droid's own spawn
// is included); medians per event and of per-round ratios. The session's hook time per event.
// Usage: npm run build && node bench/droid-hook-time.mjs [rounds=3]
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { BIN, ROOT, benchEnv, quantiles, save, startDaemon, stopDaemon } from './daemon-common.mjs';

const ROUNDS = Number(process.argv[2] ?? 3);
const EVENTS = [
  'SessionStart',
  'UserPromptSubmit',
  'PreToolUse',
  'PostToolUse',
  'Notification',
  'Stop',
  'SubagentStop',
  'PreCompact',
  'SessionEnd',
];
const CLIENT = join(ROOT, 'dist', 'hookd-client');
const q = (s) => `'${s.replace(/'/g, `'\\''`)}'`;
const COMMANDS = {
  fast: `HOOKD_NODE=${q(process.execPath)} ${q(CLIENT)} --agent droid`,
  node: `${q(process.execPath)} ${q(BIN)} hook --agent droid`,
};

// The harness is TypeScript: bundle it next to its sources (it finds its inner part relative to itself).
const harness = join(ROOT, 'test', 'harness', 'droid', `.bench-run-${process.pid}.mjs`);
await build({
  entryPoints: [join(ROOT, 'test', 'harness', 'droid', 'run.ts')],
  outfile: harness,
  bundle: true,
  platform: 'node',
  format: 'esm',
  packages: 'external',
  logLevel: 'silent',
});
const { runRealDroid } = await import(harness);
rmSync(harness, { force: true });

const t = benchEnv({
  daemon: { fastListener: true, autoStart: false, handoffTimeoutMs: 5000 },
  hooks: Object.fromEntries(EVENTS.map((e) => [e, [{ hooks: [{ type: 'command', command: 'true' }] }]])),
});
const env = { ...t.env, TERM: 'dumb' };
const daemon = await startDaemon(env, t.socket);
const times = { fast: {}, node: {} };
const perRound = { fast: [], node: [] };
try {
  if (!existsSync(join(env.HOOKD_RUNTIME_DIR, 'fast.sock'))) throw new Error('no fast listener socket');
  for (let i = 0; i < ROUNDS; i++) {
    for (const transport of i % 2 ? ['node', 'fast'] : ['fast', 'node']) {
      const run = await runRealDroid({
        outDir: join(t.root, `${transport}-${i}`),
        env,
        hookCmd: COMMANDS[transport],
        mode: 'jsonrpc',
        isolate: false,
      });
      if (run.rc !== 0) throw new Error(`droid exited ${run.rc}: ${run.stderr}`);
      const all = [];
      for (const file of run.transcripts())
        for (const line of readFileSync(file, 'utf8').split('\n')) {
          if (!line.includes('"hookResults"')) continue;
          const m = JSON.parse(line).message;
          if (!m?.hookResults) continue;
          const ms = m.hookEndTime - m.hookStartTime;
          (times[transport][m.hookEventName] ??= []).push(ms);
          all.push(ms);
        }
      perRound[transport].push(quantiles(all).p50);
    }
  }
} finally {
  await stopDaemon(daemon);
  t.cleanup?.();
}

const median = (xs) => quantiles(xs).p50;
const result = { rounds: ROUNDS, perEvent: {}, medianPerRound: perRound };
console.log(`Droid's hook time per event, ${ROUNDS} rounds (median ms, n = hook runs)`);
for (const e of EVENTS) {
  const f = times.fast[e] ?? [];
  const n = times.node[e] ?? [];
  if (!f.length && !n.length) continue;
  result.perEvent[e] = { fast: median(f), node: median(n), n: f.length };
  console.log(
    `  ${e.padEnd(17)} fast ${String(median(f)).padStart(5)}   node ${String(median(n)).padStart(5)}   n=${f.length}`,
  );
}
const ratio = median(perRound.fast.map((x, i) => x / perRound.node[i]));
result.ratioOfRoundMedians = Number(ratio.toFixed(3));
console.log(`  per-round median, fast / node: ${ratio.toFixed(3)}`);
save('droid-hook-time', result);
