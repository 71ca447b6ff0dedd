// Shared by the daemon benchmarks: temp dirs, a real daemon process (the built CLI), a raw protocol client.
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { createServer } from 'node:http';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const BIN = join(ROOT, 'dist', 'hookd.cjs');
export const FIXTURES = join(ROOT, 'test', 'fixtures', 'droid-0.225.2', 'jsonrpc');

export function fixture(name) {
  return JSON.parse(readFileSync(join(FIXTURES, name), 'utf8'));
}

/** A temp home for hookd (short path: unix sockets are limited to ~107 bytes). */
export function benchEnv(config) {
  const root = mkdtempSync('/tmp/hkb-');
  const env = {
    PATH: process.env.PATH,
    HOME: root,
    HOOKD_RUNTIME_DIR: join(root, 'run'),
    HOOKD_STATE_DIR: join(root, 'state'),
    HOOKD_DATA_DIR: join(root, 'data'),
    HOOKD_CONFIG: join(root, 'config', 'config.json'),
  };
  mkdirSync(join(root, 'config'));
  writeFileSync(env.HOOKD_CONFIG, JSON.stringify(config));
  return {
    root,
    env,
    socket: join(root, 'run', 'hookd.sock'),
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** One connection speaking protocol v1: send a line, await its reply line. Requests are answered in order. */
export function connect(socketPath) {
  return new Promise((resolve, reject) => {
    const socket = createConnection(socketPath);
    const waiting = [];
    let buffer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => {
      buffer += chunk;
      let nl;
      while ((nl = buffer.indexOf('\n')) !== -1) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        waiting.shift()?.(JSON.parse(line));
      }
    });
    socket.on('error', reject);
    socket.on('connect', () =>
      resolve({
        request: (message) =>
          new Promise((done) => {
            waiting.push(done);
            socket.write(`${JSON.stringify(message)}\n`);
          }),
        close: () => socket.end(),
      }),
    );
  });
}

/**
 * `hookd daemon run` of this build (or of another one's `dist/hookd.cjs`), once it answers a ping;
 * `nodeFlags` go before the program, as hookd's own starts put the daemon's V8 flags.
 */
export async function startDaemon(env, socketPath, bin = BIN, nodeFlags = []) {
  const child = spawn(process.execPath, [...nodeFlags, bin, 'daemon', 'run'], { env, stdio: 'ignore' });
  for (let i = 0; i < 400; i++) {
    try {
      const c = await connect(socketPath);
      const reply = await c.request({ v: 1, type: 'ping' });
      c.close();
      if (reply.ok) return child;
    } catch {}
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill('SIGKILL');
  throw new Error('daemon did not start');
}

export async function stopDaemon(child) {
  if (child.exitCode !== null) return;
  const gone = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await gone;
}

export function handoff(payload) {
  return {
    v: 1,
    type: 'event',
    event: {
      id: randomUUID(),
      receivedAt: Date.now(),
      agent: 'droid',
      name: payload.hook_event_name,
      sessionId: payload.session_id,
      cwd: payload.cwd,
      payload,
    },
    results: [],
  };
}

export function loopback(onRequest) {
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      onRequest(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok');
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${server.address().port}`,
        close: () => new Promise((r) => server.close(r)),
      }),
    ),
  );
}

export function quantiles(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return { n: s.length, p50: q(0.5), p90: q(0.9), p99: q(0.99), max: s[s.length - 1] };
}

export function save(name, result) {
  const file = join(ROOT, 'bench', 'results', `${name}.json`);
  writeFileSync(
    file,
    `${JSON.stringify({ date: new Date().toISOString(), node: process.version, ...result }, null, 2)}\n`,
  );
  console.log(JSON.stringify(result, null, 2));
  console.log(`saved ${file}`);
}
