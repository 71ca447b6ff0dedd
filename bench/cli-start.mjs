#!/usr/bin/env node
// How fast the CLI answers the calls a person makes without thinking: `hookd --version`, `hookd --help`,
// `hookd emit --help` and a TAB (the completion script asks `hookd --get-yargs-completions hookd d`).
// Each row runs beside `node -e 0` in every round, interleaved; with `--base <dir>` another built hookd
// (a checkout with its dist/) runs the same rows too, so this build and that one are compared side by
// side on the same machine at the same moment (absolute times move with the machine's load: compare the
// medians of per-round differences and ratios). Each build has its own warm home (its code cache made).
// Usage: npm run build && env -u NODE_EXTRA_CA_CERTS node bench/cli-start.mjs [rounds=30] [--base DIR]
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ROOT, quantiles, save } from './daemon-common.mjs';

const args = process.argv.slice(2);
const baseAt = args.indexOf('--base');
const BASE = baseAt >= 0 ? resolve(args[baseAt + 1]) : undefined;
const ROUNDS = Number(args.find((a, i) => /^\d+$/.test(a) && i !== baseAt + 1) ?? 30);

const ROWS = [
  ['version', ['--version']],
  ['help', ['--help']],
  ['emit help', ['emit', '--help']],
  ['completion', ['--get-yargs-completions', 'hookd', 'd']],
];

/** A private home for one build: the code cache and config it writes stay there. */
function homeFor(label) {
  const root = mkdtempSync(`/tmp/hkcli-${label}-`);
  mkdirSync(join(root, 'config'));
  writeFileSync(join(root, 'config', 'config.json'), '{}');
  return {
    root,
    env: {
      PATH: process.env.PATH,
      HOME: root,
      HOOKD_STATE_DIR: join(root, 'state'),
      HOOKD_CONFIG: join(root, 'config', 'config.json'),
      COLUMNS: '100',
    },
  };
}

function timeRun(argv, env) {
  return new Promise((done, fail) => {
    const start = process.hrtime.bigint();
    const child = spawn(process.execPath, argv, { env, stdio: ['ignore', 'ignore', 'ignore'] });
    child.on('error', fail);
    child.on('close', (code) => {
      if (code !== 0) fail(new Error(`${argv.join(' ')} exited ${code}`));
      else done(Number(process.hrtime.bigint() - start) / 1e6);
    });
  });
}

const builds = [{ label: 'this', bin: join(ROOT, 'dist', 'hookd.cjs'), ...homeFor('this') }];
if (BASE) builds.push({ label: 'base', bin: join(BASE, 'dist', 'hookd.cjs'), ...homeFor('base') });
process.on('exit', () => {
  for (const b of builds) rmSync(b.root, { recursive: true, force: true });
});

// Warm-up: each build's first run compiles and keeps its code cache.
for (const b of builds) for (const [, argv] of ROWS) await timeRun([b.bin, ...argv], b.env);

const samples = { node: [] };
for (const b of builds) for (const [name] of ROWS) samples[`${b.label} ${name}`] = [];
const diffs = {};
for (let round = 0; round < ROUNDS; round++) {
  const node = await timeRun(['-e', '0'], builds[0].env);
  samples.node.push(node);
  for (const [name, argv] of ROWS) {
    const times = {};
    for (const b of builds) {
      times[b.label] = await timeRun([b.bin, ...argv], b.env);
      samples[`${b.label} ${name}`].push(times[b.label]);
      (diffs[`${b.label} ${name} - node -e 0`] ??= []).push(times[b.label] - node);
    }
    if (BASE) (diffs[`this/base ${name}`] ??= []).push(times.this / times.base);
  }
}

const result = {
  date: new Date().toISOString(),
  node: process.version,
  rounds: ROUNDS,
  ...(BASE ? { base: BASE } : {}),
  medianMs: Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, quantiles(v).p50])),
  perRound: Object.fromEntries(Object.entries(diffs).map(([k, v]) => [k, quantiles(v).p50])),
};
save('cli-start', result);
const f = (x) => (Math.abs(x) < 10 ? x.toFixed(2) : x.toFixed(1));
console.log(`| ${ROUNDS} interleaved rounds | median ms |`);
console.log('|---|---|');
for (const [k, v] of Object.entries(result.medianMs)) console.log(`| ${k} | ${f(v)} |`);
console.log('\n| per round (medians) | |');
console.log('|---|---|');
for (const [k, v] of Object.entries(result.perRound))
  console.log(`| ${k} | ${k.includes('/') ? `${f(v)}x` : `${v >= 0 ? '+' : ''}${f(v)} ms`} |`);
