#!/usr/bin/env node
// The fast path as the agents run it: each event is the hook command `hookd install` writes
// (`HOOKD_NODE=<node> <hookd>/dist/hookd-client --agent droid`) run through `sh -c`, against a real daemon
// of the same build. With `--base <dir>` another built hookd (a checkout with its dist/) runs the same rows
// beside this one, each with its own daemon and home, every row interleaved in every round: compare the
// medians of per-round ratios and differences (absolute times move with the machine's load).
//   - post: an observe-only PostToolUse, daemon up, vs `node -e 0` and vs a bare `/bin/true`;
//   - true: a configured `true` command (PreToolUse), vs a direct `sh -c true`;
//   - stop: a main-session Stop with a rule to a loopback webhook and to the desktop (a stand-in
//     notify-send that reports when it starts), until the webhook has it and until the desktop
//     notification started, vs `node -e 0`, and vs a hand-written bash + jq + notify-send script;
//   - down: no daemon (autoStart off, so every event spools), the client vs the Node path of its build;
//     every event must be in the spool (nothing lost);
//   - nodePath: the Node path (`hookd hook`, the fallback) vs `node -e 0`: post and true with the daemon
//     up, and down.
// With `--otel URL` this build's daemon exports OpenTelemetry to URL (`--base .` then compares it with the
// same build exporting nothing, in the same run).
// Usage: npm run build && env -u NODE_EXTRA_CA_CERTS node bench/fast-path.mjs [rounds=40] [--base DIR] [--otel URL]
import { spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { Socket } from 'node:net';
import { join, resolve } from 'node:path';
import { execFileSync } from 'node:child_process';
import {
  FIXTURES,
  ROOT,
  benchEnv,
  loopback,
  quantiles,
  save,
  startDaemon,
  stopDaemon,
} from './daemon-common.mjs';

const args = process.argv.slice(2);
const baseAt = args.indexOf('--base');
const BASE = baseAt >= 0 ? resolve(args[baseAt + 1]) : undefined;
const ROUNDS = Number(args.find((a, i) => /^\d+$/.test(a) && i !== baseAt + 1) ?? 40);
const otelAt = args.indexOf('--otel');
const OTEL = otelAt >= 0 ? args[otelAt + 1] : undefined;
const post = readFileSync(join(FIXTURES, '05-PostToolUse-Execute.json'));
const pre = readFileSync(join(FIXTURES, '03-PreToolUse-Execute.json'));
const stop = JSON.parse(readFileSync(join(FIXTURES, '12-Stop.json'), 'utf8'));
const sq = (s) => `'${s.replace(/'/g, `'\\''`)}'`;

// The stand-in notify-send: it says it prints ids (so hookd runs it directly, as with libnotify >= 0.7.9)
// and writes one byte to a FIFO the bench reads when it starts.
const tools = mkdtempSync('/tmp/hkbt-');
const fifo = join(tools, 'desktop.fifo');
execFileSync('mkfifo', [fifo]);
writeFileSync(
  join(tools, 'notify-send'),
  `#!/bin/sh\ncase "$1" in --help) echo "  -p, --print-id";; *) printf x >> ${sq(fifo)}; echo 1;; esac\n`,
);
chmodSync(join(tools, 'notify-send'), 0o755);
let desktops = 0;
let onArrival = () => {};
// Held open for reading and writing: a writer never blocks and the reader never sees EOF.
const fifoReader = new Socket({ fd: openSync(fifo, 'r+'), readable: true, writable: false });
fifoReader.on('data', (c) => {
  desktops += c.length;
  onArrival();
});
let webhooks = 0;
const webhook = await loopback(() => {
  webhooks++;
  onArrival();
});

const PATH = `${tools}:${process.env.PATH}`;
const config = {
  hooks: { PreToolUse: [{ matcher: 'Execute', hooks: [{ type: 'command', command: 'true' }] }] },
  notify: {
    channels: { ops: { type: 'webhook', url: `${webhook.url}/hook` }, desk: { type: 'desktop' } },
    rules: [{ on: 'Stop', channels: ['ops', 'desk'], title: 'done' }],
    noise: { dedupeWindowMs: 0 },
    // Not a measure of the waiting delay (a Stop is held that long by default, docs/sessions.md).
    waitingDelayMs: 0,
  },
};

/** One build: its daemon (up), a second home without one (down), and its client's command. */
function build(name, root) {
  const up = benchEnv(config);
  const down = benchEnv({ daemon: { autoStart: false } });
  for (const e of [up.env, down.env])
    Object.assign(e, { PATH, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/dev/null' });
  if (OTEL && name === 'this') up.env.OTEL_EXPORTER_OTLP_ENDPOINT = OTEL;
  const hookd = join(root, 'dist', 'hookd.cjs');
  const client = join(root, 'dist', 'hookd-client');
  if (!existsSync(client)) throw new Error(`${client} was not built (npm run build with a C compiler)`);
  return {
    name,
    root,
    up,
    down,
    hookd,
    fast: `HOOKD_NODE=${sq(process.execPath)} ${sq(client)} --agent droid`,
    node: `${sq(process.execPath)} ${sq(hookd)} hook --agent droid`,
  };
}

/** Starts `file args` with `input` on stdin; resolves with the ms until it exited and, if asked, until the
 * webhook and the desktop had the event. */
function timed(file, argv, input, env, waitFor = false) {
  return new Promise((resolve_, reject) => {
    const start = process.hrtime.bigint();
    const ms = () => Number(process.hrtime.bigint() - start) / 1e6;
    const want = { webhooks: webhooks + 1, desktops: desktops + 1 };
    const at = { exit: undefined, webhook: undefined, desktop: undefined };
    const finish = () => {
      if (at.exit === undefined) return;
      if (!waitFor) return resolve_(at.exit);
      if (at.webhook === undefined || at.desktop === undefined) return;
      onArrival = () => {};
      resolve_(at);
    };
    if (waitFor)
      onArrival = () => {
        if (at.webhook === undefined && webhooks >= want.webhooks) at.webhook = ms();
        if (at.desktop === undefined && desktops >= want.desktops) at.desktop = ms();
        finish();
      };
    const child = spawn(file, argv, { env, stdio: [input ? 'pipe' : 'ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c) => (stderr += c));
    if (input) child.stdin.end(input);
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`${file} ${argv.join(' ')}: exit ${code} ${stderr}`));
      at.exit = ms();
      finish();
    });
  });
}
const sh = (command, input, env, waitFor) => timed('/bin/sh', ['-c', command], input, env, waitFor);

const builds = [build('this', ROOT), ...(BASE ? [build('base', BASE)] : [])];
const daemons = [];
let n = 0;
const stopEvent = () => Buffer.from(JSON.stringify({ ...stop, session_id: `bench-${process.pid}-${++n}` }));
try {
  for (const b of builds) daemons.push(await startDaemon(b.up.env, b.up.socket, b.hookd));
  const anyEnv = builds[0].up.env;
  // What a user would write without hookd: the session id with jq, then notify-send.
  const script = `bash -c 'id=$(jq -r .session_id); notify-send -- Droid "Finished: $id"'`;
  const rows = {
    node: () => timed(process.execPath, ['-e', '0'], undefined, anyEnv),
    // What any process costs here: the floor under every client.
    spawnTrue: () => timed('/bin/true', [], undefined, anyEnv),
    shTrue: () => timed('/bin/sh', ['-c', 'true'], undefined, anyEnv),
  };
  // The script's own row: until its notify-send started (the desktop FIFO).
  const scriptDesktop = [];
  rows.script = async () => {
    const before = desktops;
    const t0 = process.hrtime.bigint();
    await new Promise((resolve_, reject) => {
      onArrival = () => {
        if (desktops > before) {
          onArrival = () => {};
          scriptDesktop.push(Number(process.hrtime.bigint() - t0) / 1e6);
          resolve_();
        }
      };
      sh(script, stopEvent(), { ...anyEnv, PATH }).catch(reject);
    });
    return scriptDesktop.at(-1);
  };
  const stops = {};
  for (const b of builds) {
    stops[b.name] = [];
    rows[`${b.name}Post`] = () => sh(b.fast, post, b.up.env);
    rows[`${b.name}True`] = () => sh(b.fast, pre, b.up.env);
    rows[`${b.name}Stop`] = async () => {
      const at = await sh(b.fast, stopEvent(), b.up.env, true);
      stops[b.name].push(at);
      return Math.max(at.exit, at.webhook);
    };
    rows[`${b.name}Down`] = () => sh(b.fast, post, b.down.env);
    rows[`${b.name}NodeDown`] = () => sh(b.node, post, b.down.env);
    // The Node path (`hookd hook`, the fallback) with the daemon up: observe-only, and a `true` guard.
    rows[`${b.name}NodePost`] = () => sh(b.node, post, b.up.env);
    rows[`${b.name}NodeTrue`] = () => sh(b.node, pre, b.up.env);
  }
  const r = Object.fromEntries(Object.keys(rows).map((k) => [k, []]));
  for (let i = 0; i < 3; i++) for (const run of Object.values(rows)) await run();
  for (const b of builds) stops[b.name].length = 0;
  for (let i = 0; i < ROUNDS; i++) for (const [k, run] of Object.entries(rows)) r[k].push(await run());
  const median = (xs) => quantiles(xs).p50;
  const per = (xs, ys, f) => median(xs.map((x, i) => f(x, ys[i])));
  const ratio = (xs, ys) => per(xs, ys, (a, b) => a / b);
  const diff = (xs, ys) => per(xs, ys, (a, b) => a - b);
  const round = (x, d = 2) => Number(x.toFixed(d));
  const result = {};
  for (const b of builds) {
    const s = stops[b.name];
    const desktop = s.map((x) => Math.max(x.exit, x.desktop));
    const spooled = readdirSync(join(b.down.env.HOOKD_STATE_DIR, 'spool')).filter((f) => f.endsWith('.json'));
    result[b.name] = {
      root: b.root,
      postVsNode: round(ratio(r[`${b.name}Post`], r.node), 3),
      postMs: round(median(r[`${b.name}Post`])),
      postMinusSpawnMs: round(diff(r[`${b.name}Post`], r.spawnTrue)),
      trueMinusShTrueMs: round(diff(r[`${b.name}True`], r.shTrue)),
      stopWebhookVsNode: round(ratio(r[`${b.name}Stop`], r.node), 3),
      stopDesktopVsNode: round(ratio(desktop, r.node), 3),
      stopDesktopVsScript: round(ratio(desktop, r.script), 3),
      stopClientExitMs: round(median(s.map((x) => x.exit))),
      stopDesktopAfterExitMs: round(median(s.map((x) => x.desktop - x.exit))),
      stopWebhookAfterExitMs: round(median(s.map((x) => x.webhook - x.exit))),
      nodePath: {
        postVsNode: round(ratio(r[`${b.name}NodePost`], r.node), 3),
        downVsNode: round(ratio(r[`${b.name}NodeDown`], r.node), 3),
        trueVsNode: round(ratio(r[`${b.name}NodeTrue`], r.node), 3),
      },
      downMinusNodeDownMs: round(diff(r[`${b.name}Down`], r[`${b.name}NodeDown`])),
      down: {
        sent: 2 * (ROUNDS + 3),
        spooled: spooled.length,
        nothingLost: spooled.length === 2 * (ROUNDS + 3),
      },
    };
  }
  if (BASE) {
    const vs = (row) => round(ratio(r[`this${row}`], r[`base${row}`]), 3);
    result.thisVsBase = { post: vs('Post'), true: vs('True'), stopWebhook: vs('Stop'), down: vs('Down') };
    result.thisVsBase.nodePath = { post: vs('NodePost'), down: vs('NodeDown'), true: vs('NodeTrue') };
    result.thisVsBase.stopDesktop = round(
      per(
        stops.this.map((x) => Math.max(x.exit, x.desktop)),
        stops.base.map((x) => Math.max(x.exit, x.desktop)),
        (a, b) => a / b,
      ),
      3,
    );
  }
  save('fast-path', {
    rounds: ROUNDS,
    medianMs: Object.fromEntries(Object.entries(r).map(([k, xs]) => [k, round(median(xs))])),
    spawnTrueVsNode: round(ratio(r.spawnTrue, r.node), 3),
    scriptVsNode: round(ratio(r.script, r.node), 3),
    ...result,
  });
} finally {
  for (const d of daemons) await stopDaemon(d);
  await webhook.close();
  fifoReader.destroy();
  for (const b of builds) {
    b.up.cleanup();
    b.down.cleanup();
  }
  rmSync(tools, { recursive: true, force: true });
}
