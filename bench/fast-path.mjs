#!/usr/bin/env node
// The fast path of issue 12: the complete clients (the native dist/hookd-client when it was built, and
// bin/hookd-client.bash: listener file, both secrets, environment, framing, ACK/GO, output), as the tests
// run them, against their baselines. All rows interleaved in each round; compare the medians of per-round
// ratios and differences (absolute times move with the machine's load):
//   - observe-only PostToolUse, daemon up: each client vs `node -e 0` (and today's Node path), and vs a
//     bare `/bin/true` (what starting any process costs on this machine);
//   - a configured `true` command (PreToolUse): each client vs a direct `sh -c true`;
//   - a main-session Stop with a notify rule to a loopback webhook, from the start of the hook until the
//     webhook has the request: each client vs `node -e 0` (and the Node path);
//   - daemon down, no listener file (a second home, autoStart off so all spool): each client vs the
//     Node path; every event must be in the spool (nothing lost).
// Usage: npm run build && env -u NODE_EXTRA_CA_CERTS node bench/fast-path.mjs [rounds=40]
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  BIN,
  FIXTURES,
  ROOT,
  benchEnv,
  loopback,
  quantiles,
  save,
  startDaemon,
  stopDaemon,
} from './daemon-common.mjs';

const ROUNDS = Number(process.argv[2] ?? 40);
const CLIENT = join(ROOT, 'bin', 'hookd-client.bash');
const NATIVE = join(ROOT, 'dist', 'hookd-client');
const post = readFileSync(join(FIXTURES, '05-PostToolUse-Execute.json'));
const pre = readFileSync(join(FIXTURES, '03-PreToolUse-Execute.json'));
const stop = JSON.parse(readFileSync(join(FIXTURES, '12-Stop.json'), 'utf8'));

let delivered = 0;
let onDelivery = () => {};
const webhook = await loopback(() => {
  delivered++;
  onDelivery();
});
const up = benchEnv({
  hooks: { PreToolUse: [{ matcher: 'Execute', hooks: [{ type: 'command', command: 'true' }] }] },
  notify: {
    channels: { ops: { type: 'webhook', url: `${webhook.url}/hook` } },
    rules: [{ on: 'Stop', channels: ['ops'], title: 'done' }],
    noise: { dedupeWindowMs: 0 },
    // Not a measure of the waiting delay (a Stop is held that long by default, docs/sessions.md).
    waitingDelayMs: 0,
  },
});
const down = benchEnv({ daemon: { autoStart: false } });

function timed(file, args, input, env, until) {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const want = delivered + 1;
    let exited = false;
    let arrived = !until;
    const finish = () => {
      if (exited && arrived) resolve(Number(process.hrtime.bigint() - start) / 1e6);
    };
    if (until)
      onDelivery = () => {
        if (delivered >= want) {
          arrived = true;
          onDelivery = () => {};
          finish();
        }
      };
    const child = spawn(file, args, { env, stdio: [input ? 'pipe' : 'ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c) => (stderr += c));
    if (input) child.stdin.end(input);
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`${file} ${args.join(' ')}: exit ${code} ${stderr}`));
      exited = true;
      finish();
    });
  });
}

const median = (xs) => quantiles(xs).p50;
const daemon = await startDaemon(up.env, up.socket);
let n = 0;
const stopEvent = () => Buffer.from(JSON.stringify({ ...stop, session_id: `bench-${process.pid}-${++n}` }));
// The clients `hookd install --transport fast` may wire: the native one when it was built (dist/hookd-client,
// a C compiler at build time), the bash one always.
const CLIENTS = { bash: ['/bin/bash', ['--posix', CLIENT]] };
if (existsSync(NATIVE)) CLIENTS.native = [NATIVE, []];
try {
  if (!existsSync(join(up.env.HOOKD_RUNTIME_DIR, 'hookd.fast'))) throw new Error('no fast listener file');
  const nodeHook = (input, env = up.env, until = false) =>
    timed(process.execPath, [BIN, 'hook', '--agent', 'droid'], input, env, until);
  const rows = {
    node: () => timed(process.execPath, ['-e', '0'], undefined, up.env),
    // What any process costs here: the floor under every client.
    spawnTrue: () => timed('/bin/true', [], undefined, up.env),
    shTrue: () => timed('/bin/sh', ['-c', 'true'], undefined, up.env),
    nodePost: () => nodeHook(post),
    nodeStop: () => nodeHook(stopEvent(), up.env, true),
    nodeDown: () => nodeHook(post, down.env),
  };
  for (const [name, [file, pre_]] of Object.entries(CLIENTS)) {
    const fast = (input, env = up.env, until = false) =>
      timed(file, [...pre_, '--agent', 'droid'], input, env, until);
    rows[`${name}Post`] = () => fast(post);
    rows[`${name}True`] = () => fast(pre);
    rows[`${name}Stop`] = () => fast(stopEvent(), up.env, true);
    rows[`${name}Down`] = () => fast(post, down.env);
  }
  const r = Object.fromEntries(Object.keys(rows).map((k) => [k, []]));
  for (let i = 0; i < 3; i++) for (const run of Object.values(rows)) await run();
  for (let i = 0; i < ROUNDS; i++) for (const [k, run] of Object.entries(rows)) r[k].push(await run());
  const spooled = readdirSync(join(down.env.HOOKD_STATE_DIR, 'spool')).filter((f) => f.endsWith('.json'));
  const sent = (Object.keys(CLIENTS).length + 1) * (ROUNDS + 3);
  const ratio = (a, b) => median(r[a].map((x, i) => x / r[b][i]));
  const diff = (a, b) => median(r[a].map((x, i) => x - r[b][i]));
  const round = (x, d = 2) => Number(x.toFixed(d));
  const clients = {};
  for (const name of Object.keys(CLIENTS)) {
    const post_ = ratio(`${name}Post`, 'node');
    clients[name] = {
      postVsNode: round(post_, 3),
      postMs: round(median(r[`${name}Post`])),
      postMinusSpawnMs: round(diff(`${name}Post`, 'spawnTrue')),
      trueMinusShTrueMs: round(diff(`${name}True`, 'shTrue')),
      stopVsNode: round(ratio(`${name}Stop`, 'node'), 3),
      downMinusNodeDownMs: round(diff(`${name}Down`, 'nodeDown')),
      targets: {
        'post < 4 ms and <= 0.2x node -e 0': median(r[`${name}Post`]) < 4 && post_ <= 0.2,
        'post <= 0.2x node -e 0': post_ <= 0.2,
        'true <= sh -c true + 4 ms': diff(`${name}True`, 'shTrue') <= 4,
        'stop <= 0.2x node -e 0': ratio(`${name}Stop`, 'node') <= 0.2,
        'down <= node path + 3 ms': diff(`${name}Down`, 'nodeDown') <= 3,
      },
    };
  }
  save('fast-path', {
    rounds: ROUNDS,
    medianMs: Object.fromEntries(Object.entries(r).map(([k, xs]) => [k, round(median(xs))])),
    spawnTrueVsNode: round(ratio('spawnTrue', 'node'), 3),
    nodePathPostVsNode: round(ratio('nodePost', 'node'), 3),
    nodeStopVsNode: round(ratio('nodeStop', 'node'), 3),
    clients,
    downEvents: { sent, spooled: spooled.length, nothingLost: spooled.length === sent },
  });
} finally {
  await stopDaemon(daemon);
  await webhook.close();
  up.cleanup();
  down.cleanup();
}
