#!/usr/bin/env node
// The floor of the fast path's protocol (issue 12): a minimal bash client doing the same three round trips
// as bin/hookd-client.bash (greeting, request -> ACK, GO -> RESULT; stdin read inline) against a Node server
// that answers at once, interleaved with `node -e 0` and a bare `bash -c 'exit 0'`. No authentication, no
// environment, no event run: what no bash client of this protocol can go under on this machine.
// Usage: env -u NODE_EXTRA_CA_CERTS node bench/fast-floor.mjs [rounds=40]
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FIXTURES, quantiles, save } from './daemon-common.mjs';

const ROUNDS = Number(process.argv[2] ?? 40);
const dir = mkdtempSync(join(tmpdir(), 'hkfloor-'));
const client = join(dir, 'client.bash');
writeFileSync(
  client,
  [
    'exec 3<>"/dev/tcp/127.0.0.1/$1"',
    'read -r -u 3 -t 2 proto secret rest',
    "IFS= read -r -d '' -n 4000 body",
    'printf \'%s\\n%s\\0%s\\0\\0\' token "$PWD" "$body" >&3',
    'read -r -u 3 -t 2 -n 1 first; read -r -u 3 ack',
    "printf 'GO\\n' >&3",
    'read -r -u 3 result code out err',
    'exit 0',
    '',
  ].join('\n'),
);
const server = createServer((s) => {
  s.write(`HOOKD-FAST2 ${'0123456789abcdef'.repeat(2)} 2 1\n`);
  let phase = 0;
  let buf = '';
  s.on('data', (c) => {
    buf += c.toString('latin1');
    if (phase === 0 && buf.includes('\0\0')) {
      phase = 1;
      buf = '';
      s.write('ACK 1 00000000-0000-0000-0000-000000000000\n');
    } else if (phase === 1 && buf.includes('GO\n')) {
      phase = 2;
      s.end('RESULT 0 0 0\n');
    }
  });
  s.on('error', () => {});
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const port = String(server.address().port);
const input = readFileSync(join(FIXTURES, '05-PostToolUse-Execute.json'));

function timed(file, args, stdin) {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(file, args, { stdio: [stdin ? 'pipe' : 'ignore', 'ignore', 'inherit'] });
    if (stdin) child.stdin.end(stdin);
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolve(Number(process.hrtime.bigint() - start) / 1e6)
        : reject(new Error(`${file}: ${code}`)),
    );
  });
}

try {
  const r = { node: [], bash: [], floor: [] };
  for (let i = 0; i < 3; i++) await timed('/bin/bash', [client, port], input);
  for (let i = 0; i < ROUNDS; i++) {
    r.node.push(await timed(process.execPath, ['-e', '0']));
    r.bash.push(await timed('/bin/bash', ['-c', 'exit 0']));
    r.floor.push(await timed('/bin/bash', [client, port], input));
  }
  const median = (xs) => quantiles(xs).p50;
  const round = (x, d = 2) => Number(x.toFixed(d));
  save('fast-floor', {
    rounds: ROUNDS,
    medianMs: Object.fromEntries(Object.entries(r).map(([k, xs]) => [k, round(median(xs))])),
    floorVsNode: round(median(r.floor.map((x, i) => x / r.node[i])), 3),
  });
} finally {
  server.close();
  rmSync(dir, { recursive: true, force: true });
}
