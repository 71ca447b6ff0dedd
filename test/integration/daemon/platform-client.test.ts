import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildNativeClientCommand } from '../../../src/install/hookd-command.js';
import { collectRun } from '../../helpers/run-hookd.js';
import { makeTempDir } from '../../helpers/temp.js';
import { BIN, stopDaemon, useProcessCleanup } from './process-helpers.js';
import {
  handOffEnv,
  NATIVE_CLIENT,
  onToolEvents,
  startFastDaemon,
  toolEvent,
  writeFastConfig,
} from './fast-client-helpers.js';

// The native client as a platform package carries it: in node_modules/@hookd-dev/hookd-<platform>/bin/,
// away from hookd.cjs. The command install writes names the hookd.cjs its Node path runs (HOOKD_CJS);
// with a daemon and without, a guard decides.

const { pids } = useProcessCleanup();
let tmp: ReturnType<typeof makeTempDir>;
let env: Record<string, string>;
let client: string;
const daemons: { pid?: number }[] = [];

beforeEach(() => {
  tmp = makeTempDir('hkpc-');
  env = handOffEnv(tmp.dir);
  const bin = join(tmp.dir, 'node_modules', '@hookd-dev', 'hookd-linux-x64', 'bin');
  mkdirSync(bin, { recursive: true });
  client = join(bin, 'hookd-client');
  copyFileSync(NATIVE_CLIENT, client);
  // A guard that records that it ran, and blocks.
  writeFastConfig(
    env,
    onToolEvents(`echo guard >> '${join(tmp.dir, 'ran')}'; echo 'blocked by the guard' >&2; exit 2`),
  );
});
afterEach(async () => {
  for (const d of daemons.splice(0)) await stopDaemon(d as Parameters<typeof stopDaemon>[0]);
  tmp.cleanup();
});

/** The command as the agent runs it: `sh -c "<command>"`, the event on stdin. */
async function run(command: string) {
  const child = spawn('/bin/sh', ['-c', command], { env, cwd: tmp.dir, stdio: ['pipe', 'pipe', 'pipe'] });
  pids.push(child.pid!);
  return collectRun(child, { stdin: toolEvent('pc-1') });
}

describe('a native client that is not beside hookd.cjs', () => {
  it('no daemon: its Node path runs the hookd.cjs the command names, and the guard blocks', async () => {
    const command = buildNativeClientCommand(client, 'droid', process.execPath, BIN);
    expect(command).toContain(`HOOKD_CJS=${BIN}`);
    const done = await run(command);
    expect(done.stderr).toContain('blocked by the guard');
    expect(done.code).toBe(2);
    expect(readFileSync(join(tmp.dir, 'ran'), 'utf8')).toBe('guard\n');
  });

  it('with a daemon: the event runs there, and the guard blocks', async () => {
    daemons.push(await startFastDaemon(env));
    const done = await run(buildNativeClientCommand(client, 'droid', process.execPath, BIN));
    expect(done.stderr).toContain('blocked by the guard');
    expect(done.code).toBe(2);
    expect(readFileSync(join(tmp.dir, 'ran'), 'utf8')).toBe('guard\n');
  });

  it('a relative HOOKD_CJS is ignored (it would depend on the working directory): the one beside it is tried', async () => {
    const done = await run(
      `HOOKD_NODE='${process.execPath}' HOOKD_CJS=dist/hookd.cjs '${client}' --agent droid`,
    );
    expect(done.code).not.toBe(2);
    expect(done.stderr.toString()).toContain(
      join(tmp.dir, 'node_modules', '@hookd-dev', 'hookd-linux-x64', 'bin', 'hookd.cjs'),
    );
  });
});
