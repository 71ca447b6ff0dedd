#!/usr/bin/env node
// The Stop path after GO (the Stop target): a main-session Stop through the native fast client
// (dist/hookd-client), a notify rule to a loopback webhook, timed
// from the client's start until the webhook has the request, and until the client exited: the difference
// is the daemon's work after the client let go (hand-off, journal, enrichment, rules, outbox, POST).
// With `--base <dir>` (a checkout or copy holding another build in <dir>/dist), both builds run side by
// side, interleaved in each round, each with its own daemon, home and webhook; compare the medians of the
// per-round ratios (absolute times move with the machine's load, and other processes share it).
//   `--transcript`: each Stop's session has a real transcript (~200 KiB, session settings beside it), a
//   new one per event as in fast-path.mjs (fresh session ids), so enrichment reads real files.
//   `--same-session`: one session for every Stop, its transcript growing by a turn before each event (the
//   enricher's per-session cache at work, as in a real session).
// Usage: npm run build && env -u NODE_EXTRA_CA_CERTS node bench/stop-path.mjs [rounds=40] [--base DIR]
//        [--transcript] [--same-session]
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  FIXTURES,
  ROOT,
  benchEnv,
  startDaemon,
  loopback,
  quantiles,
  save,
  stopDaemon,
} from './daemon-common.mjs';

const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const option = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const ROUNDS = Number(args.find((a, i) => /^\d+$/.test(a) && !args[i - 1]?.startsWith('--base')) ?? 40);
const BASE = option('--base');
const TRANSCRIPT = flag('--transcript') || flag('--same-session');
const SAME_SESSION = flag('--same-session');
const stop = JSON.parse(readFileSync(join(FIXTURES, '12-Stop.json'), 'utf8'));

function timed(file, argv, input, env, until) {
  return new Promise((done, reject) => {
    const start = process.hrtime.bigint();
    const ms = () => Number(process.hrtime.bigint() - start) / 1e6;
    let exitMs;
    let arrivedMs = until ? undefined : 0;
    const finish = () => {
      if (exitMs !== undefined && arrivedMs !== undefined) done({ exitMs, arrivedMs });
    };
    if (until)
      until(() => {
        arrivedMs = ms();
        finish();
      });
    const child = spawn(file, argv, { env, stdio: [input ? 'pipe' : 'ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c) => (stderr += c));
    if (input) child.stdin.end(input);
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`${file}: exit ${code} ${stderr}`));
      exitMs = ms();
      finish();
    });
  });
}

/** A Droid transcript of `turns` turns (user prompt, assistant answer), ~1 KiB each. */
function turnLines(from, turns) {
  const lines = [];
  for (let i = from; i < from + turns; i++) {
    lines.push(
      JSON.stringify({
        type: 'message',
        id: `u-${i}`,
        timestamp: new Date(Date.now() - 1000).toISOString(),
        message: { role: 'user', content: [{ type: 'text', text: `prompt ${i} `.repeat(40) }] },
      }),
      JSON.stringify({
        type: 'message',
        id: `a-${i}`,
        timestamp: new Date().toISOString(),
        message: { role: 'assistant', content: [{ type: 'text', text: `answer ${i} `.repeat(60) }] },
      }),
    );
  }
  return `${lines.join('\n')}\n`;
}

async function variant(name, root) {
  const waiting = [];
  const webhook = await loopback(() => waiting.shift()?.());
  const setup = benchEnv({
    notify: {
      channels: { ops: { type: 'webhook', url: `${webhook.url}/hook` } },
      rules: [{ on: 'Stop', channels: ['ops'], title: 'done' }],
      noise: { dedupeWindowMs: 0 },
      waitingDelayMs: 0,
    },
  });
  if (!existsSync(join(root, 'dist', 'hookd-client')))
    throw new Error(`${root}/dist/hookd-client was not built`);
  const client = [join(root, 'dist', 'hookd-client'), ['--agent', 'droid']];
  const daemon = await startDaemon(setup.env, setup.socket, join(root, 'dist', 'hookd.cjs'));
  // This build's listener is a unix socket; builds before it wrote a loopback listener file.
  const run = setup.env.HOOKD_RUNTIME_DIR;
  if (!existsSync(join(run, 'fast.sock')) && !existsSync(join(run, 'hookd.fast')))
    throw new Error('no fast listener');
  const sessions = join(setup.root, '.factory', 'sessions', '-bench-demo');
  mkdirSync(sessions, { recursive: true });
  let n = 0;
  let turn = 0;
  const sameId = `bench-${name}-${process.pid}`;
  const event = () => {
    const id = SAME_SESSION ? sameId : `bench-${name}-${process.pid}-${++n}`;
    const payload = { ...stop, session_id: id };
    if (TRANSCRIPT) {
      const path = join(sessions, `${id}.jsonl`);
      if (!existsSync(path)) {
        const start = { type: 'session_start', id, title: `bench ${name}`, cwd: setup.root };
        writeFileSync(path, `${JSON.stringify(start)}\n${turnLines(0, 100)}`);
        writeFileSync(
          join(sessions, `${id}.settings.json`),
          JSON.stringify({ model: 'bench', tokenUsage: { inputTokens: 10, outputTokens: 20 } }),
        );
        turn = 100;
      } else {
        appendFileSync(path, turnLines(turn, 1));
        turn++;
      }
      payload.transcript_path = path;
      payload.message_id = `a-${turn - 1}`;
      payload.cwd = setup.root;
    }
    return Buffer.from(JSON.stringify(payload));
  };
  return {
    name,
    run: () => timed(client[0], client[1], event(), setup.env, (arrived) => waiting.push(arrived)),
    close: async () => {
      await stopDaemon(daemon);
      await webhook.close();
      setup.cleanup();
    },
  };
}

const variants = [await variant('new', ROOT)];
if (BASE) variants.unshift(await variant('base', resolve(BASE)));
const ref = benchEnv({});
const r = { node: [] };
for (const v of variants) {
  r[`${v.name}Stop`] = [];
  r[`${v.name}Exit`] = [];
  r[`${v.name}After`] = [];
}
try {
  const node = () => timed(process.execPath, ['-e', '0'], undefined, ref.env);
  for (let i = 0; i < 3; i++) {
    await node();
    for (const v of variants) await v.run();
  }
  for (let i = 0; i < ROUNDS; i++) {
    r.node.push((await node()).exitMs);
    // Alternate which build goes first: neither always runs right after `node -e 0`.
    const order = i % 2 === 0 ? variants : [...variants].reverse();
    for (const v of order) {
      const t = await v.run();
      r[`${v.name}Stop`].push(t.arrivedMs);
      r[`${v.name}Exit`].push(t.exitMs);
      r[`${v.name}After`].push(t.arrivedMs - t.exitMs);
    }
  }
} finally {
  for (const v of variants) await v.close();
  ref.cleanup();
}
const median = (xs) => quantiles(xs).p50;
const ratio = (a, b) => median(r[a].map((x, i) => x / r[b][i]));
const round = (x, d = 2) => Number(x.toFixed(d));
const result = {
  rounds: ROUNDS,
  mode: SAME_SESSION ? 'same-session' : TRANSCRIPT ? 'transcript' : 'no-transcript',
  medianMs: Object.fromEntries(Object.entries(r).map(([k, xs]) => [k, round(median(xs))])),
  p90Ms: Object.fromEntries(Object.entries(r).map(([k, xs]) => [k, round(quantiles(xs).p90)])),
  stopVsNode: Object.fromEntries(variants.map((v) => [v.name, round(ratio(`${v.name}Stop`, 'node'), 3)])),
};
if (BASE) {
  result.newVsBase = {
    stop: round(ratio('newStop', 'baseStop'), 3),
    afterExit: round(ratio('newAfter', 'baseAfter'), 3),
  };
}
save('stop-path', result);
