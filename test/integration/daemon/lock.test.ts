import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { killHard } from '../../helpers/procs.js';
import { BIN, bundleFixture, ensureBuilt, exited, spawnDaemon, writeConfig } from './process-helpers.js';
import { tempEnv, waitFor } from './helpers.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

let bundleDir: string;
let childScript: string;
beforeAll(async () => {
  bundleDir = mkdtempSync(join(tmpdir(), 'hkd-lock-'));
  childScript = join(bundleDir, 'lock-child.mjs');
  await bundleFixture(join(import.meta.dirname, 'fixtures', 'lock-child.ts'), childScript);
});
afterAll(() => rmSync(bundleDir, { recursive: true, force: true }));

describe('one lock', () => {
  it('two daemons on one state dir, one with XDG_RUNTIME_DIR and one without: the second refuses', async () => {
    ensureBuilt();
    const t = tempEnv();
    cleanups.push(t.cleanup);
    writeConfig(t.env, {});
    const desktop = { ...t.env, HOOKD_RUNTIME_DIR: undefined, XDG_RUNTIME_DIR: join(t.root, 'xdg') };
    const ssh = { ...t.env, HOOKD_RUNTIME_DIR: undefined, XDG_RUNTIME_DIR: undefined };
    const first = await spawnDaemon(desktop);
    cleanups.push(() => killHard(first.pid));
    const second = spawn(process.execPath, [BIN, 'daemon', 'run'], {
      env: ssh as NodeJS.ProcessEnv,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    cleanups.push(() => killHard(second.pid));
    let stderr = '';
    second.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const ended = await Promise.race([
      exited(second),
      waitFor(
        () => existsSync(join(t.env.HOOKD_STATE_DIR!, 'run', 'hookd.sock')),
        15_000,
        'second socket',
      ).then(() => 'listening' as const),
    ]);
    expect(ended).not.toBe('listening');
    expect(stderr).toContain(`already running (pid ${first.pid})`);
  });

  it('many processes taking over one stale lock at once: never two holders', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hkd-race-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const rounds = 12;
    const children: ChildProcess[] = [];
    for (let i = 0; i < 8; i++) {
      const child = spawn(process.execPath, [childScript, dir, String(rounds)], { stdio: 'ignore' });
      children.push(child);
      cleanups.push(() => killHard(child.pid));
    }
    for (let round = 0; round < rounds; round++) {
      writeFileSync(join(dir, 'the.lock'), '99999999'); // left by a process that is gone
      writeFileSync(join(dir, `go-${round}`), '');
      await waitFor(
        () => existsSync(join(dir, `done-${round}`)) && statSync(join(dir, `done-${round}`)).size === 8,
        30_000,
        `round ${round}`,
      );
    }
    for (const child of children) await exited(child);
    const lines = readFileSync(join(dir, 'trace.txt'), 'utf8').trim().split('\n');
    let holder: string | undefined;
    const overlaps: string[] = [];
    for (const line of lines) {
      if (line.startsWith('+')) {
        if (holder) overlaps.push(`${line} while ${holder} held it`);
        holder = line.slice(1);
      } else if (line.slice(1) === holder) holder = undefined;
    }
    expect(overlaps).toEqual([]);
    expect(lines).toHaveLength(8 * rounds * 2);
  });
});
