// Claude Code's http hooks, the daemon side (issue 12): one POST per event on a new connection, as
// Claude Code sends them, until the daemon answers 200 {} (the event journaled). Median and p90.
//   node bench/http-hooks.mjs [events=300]
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { benchEnv, startDaemon, stopDaemon } from './daemon-common.mjs';

const events = Number(process.argv[2] ?? 300);

async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const port = await freePort();
const bench = benchEnv({ daemon: { httpHooks: { enabled: true, port } }, notify: { defaults: false } });
const daemon = await startDaemon(bench.env, bench.socket);
const token = readFileSync(join(bench.env.HOOKD_STATE_DIR, 'http-hooks.token'), 'utf8').trim();

function post(body) {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/hookd/v1/claude',
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const times = [];
try {
  for (let i = 0; i < events; i++) {
    const body = JSON.stringify({
      session_id: `bench-${i % 7}`,
      cwd: bench.root,
      hook_event_name: 'PostToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'ls' },
      tool_response: { stdout: 'x', stderr: '', interrupted: false },
    });
    const started = process.hrtime.bigint();
    const status = await post(body);
    if (status !== 200) throw new Error(`the daemon answered ${status}`);
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
} finally {
  await stopDaemon(daemon);
  bench.cleanup();
}
times.sort((a, b) => a - b);
const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))].toFixed(2);
console.log(
  `http hook POST until 200 {} (PostToolUse, journaled): median ${at(0.5)} ms, p90 ${at(0.9)} ms, n=${events}`,
);
