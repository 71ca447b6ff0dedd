import { afterEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { createLedger } from '../../../src/ledger/ledger.js';
import { saveTrackerSnapshot, trackerStatePath } from '../../../src/ledger/tracker.js';
import { REPO_DIR } from '../../helpers/fixtures.js';
import { runHookd } from '../../helpers/run-hookd.js';
import { killHard, readPid } from '../../helpers/procs.js';
import { BIN, ensureBuilt, exited, writeConfig } from './process-helpers.js';
import { tempEnv, waitFor } from './helpers.js';
import { jsonLines } from '../../helpers/json-lines.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const isRoot = process.getuid?.() === 0;
const NOBODY = 65534;
const mode = (path: string) => lstatSync(path).mode & 0o7777;

function envOf(t: ReturnType<typeof tempEnv>): Record<string, string> {
  return Object.fromEntries(Object.entries(t.env).filter(([, v]) => v !== undefined)) as Record<
    string,
    string
  >;
}

const records = (file: string) => jsonLines(file);

describe('the hook trusts only a private runtime dir', () => {
  it.runIf(isRoot)(
    'does not hand the event to a listener of another uid in a dir that uid owns; spools and logs instead',
    async () => {
      ensureBuilt();
      const t = tempEnv();
      cleanups.push(t.cleanup);
      chmodSync(t.root, 0o755); // let the other uid reach its own folder inside
      const run = join(t.root, 'run');
      mkdirSync(run, { mode: 0o700 });
      chownSync(run, NOBODY, NOBODY);
      const socket = join(run, 'hookd.sock');
      const received = join(run, 'received.txt');
      const listener = spawn(
        process.execPath,
        [
          '-e',
          `const net = require('node:net'); const fs = require('node:fs');
           net.createServer((s) => { let buf = '';
             s.on('data', (d) => { buf += d; fs.appendFileSync(${JSON.stringify(received)}, d);
               const nl = buf.indexOf('\\n'); if (nl < 0) return;
               const m = JSON.parse(buf.slice(0, nl)); buf = buf.slice(nl + 1);
               s.write(JSON.stringify({ v: 1, ok: true, pong: true, id: m.event && m.event.id }) + '\\n'); });
           }).listen(${JSON.stringify(socket)});`,
        ],
        { uid: NOBODY, gid: NOBODY, stdio: 'ignore' },
      );
      cleanups.push(() => killHard(listener.pid));
      await waitFor(() => existsSync(socket), 10_000, 'the foreign listener');
      writeConfig(t.env, { daemon: { autoStart: false } });
      const env = { ...envOf(t), HOOKD_RUNTIME_DIR: run };
      const ran = await runHookd(['hook'], {
        env,
        stdin: JSON.stringify({
          hook_event_name: 'Stop',
          session_id: 's1',
          cwd: t.root,
          DB_PASSWORD: 'hunter2-secret',
        }),
      });
      expect(ran.code).toBe(0);
      expect(existsSync(received) ? readFileSync(received, 'utf8') : '').toBe('');
      const log = records(join(t.env.HOOKD_STATE_DIR!, 'logs', 'hookd.log')).find((r) => r.kind === 'event');
      expect(log?.handoff).toBe('spooled');
      expect(String(log?.handoffError)).toMatch(/belongs to another user \(uid 65534\)/);
      expect(
        readdirSync(join(t.env.HOOKD_STATE_DIR!, 'spool')).filter((n) => n.endsWith('.json')),
      ).toHaveLength(1);
    },
  );
});

describe('planted files', () => {
  it('daemon start refuses a runtime dir others can write, and never writes through a planted hookd.pid symlink', async () => {
    ensureBuilt();
    const t = tempEnv();
    cleanups.push(t.cleanup);
    const run = join(t.root, 'run');
    mkdirSync(run);
    chmodSync(run, 0o1777);
    const victim = join(t.root, 'victim.txt');
    writeFileSync(victim, 'precious\n');
    symlinkSync(victim, join(run, 'hookd.pid'));
    writeConfig(t.env, {});
    cleanups.push(() => {
      for (const lock of [join(run, 'hookd.lock'), join(t.env.HOOKD_STATE_DIR!, 'daemon', 'daemon.lock')])
        killHard(readPid(lock));
    });
    const child = spawn(process.execPath, [BIN, 'daemon', 'start', '--timeout', '5000'], {
      env: t.env as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const { code } = await exited(child);
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
    expect(mode(run)).toBe(0o1777);
    expect(code).not.toBe(0);
    expect(stderr).toMatch(/writable by others/);
  });

  it('the ledger, the open sessions and their folders are private (0600 files in 0700 dirs)', async () => {
    const t = tempEnv();
    cleanups.push(t.cleanup);
    const dataDir = t.env.HOOKD_DATA_DIR!;
    const ledger = createLedger({ dataDir });
    await ledger.record({ v: 1, sessionId: 's1', endedAtMs: 1 } as never);
    await saveTrackerSnapshot(trackerStatePath(dataDir), { v: 1, sessions: [] });
    expect(mode(join(dataDir, 'ledger'))).toBe(0o700);
    expect(mode(ledger.path)).toBe(0o600);
    expect(mode(trackerStatePath(dataDir))).toBe(0o600);
  });

  it('hooks/log-commands.mjs writes under HOOKD_STATE_DIR, 0600 in a 0700 dir, with tokens redacted', async () => {
    const t = tempEnv();
    cleanups.push(t.cleanup);
    const child = spawn(process.execPath, [join(REPO_DIR, 'hooks', 'log-commands.mjs')], {
      env: { PATH: process.env.PATH, HOME: t.root, HOOKD_STATE_DIR: t.env.HOOKD_STATE_DIR },
      stdio: ['pipe', 'ignore', 'inherit'],
    });
    child.stdin.end(
      JSON.stringify({
        session_id: 's1',
        tool_name: 'Execute',
        tool_input: { command: 'curl -H "Authorization: Bearer ghp_abcdefghijklmnopqrstuvwxyz0123456789" x' },
        tool_response: 'ok\n[Process exited with code 0]',
      }),
    );
    expect((await exited(child)).code).toBe(0);
    const file = join(t.env.HOOKD_STATE_DIR!, 'commands.jsonl');
    expect(mode(file)).toBe(0o600);
    expect(statSync(t.env.HOOKD_STATE_DIR!).mode & 0o777).toBe(0o700);
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain('ghp_abcdefghijklmnopqrstuvwxyz0123456789');
    expect(records(file)[0]?.exitCode).toBe(0);
  });
});
