import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { handOff } from '../../../src/link/client.js';
import { daemonLogPath } from '../../../src/daemon/lifecycle/logger.js';
import { daemonFiles, readPidFile } from '../../../src/link/runtime-files.js';
import { stateDir } from '../../../src/paths.js';
import { jsonLines } from '../../helpers/json-lines.js';
import { fixture, handoffOf, loopbackServer, tempEnv, waitFor } from './helpers.js';
import {
  exited,
  killQuietly,
  spawnDaemon,
  stopDaemon,
  writeConfig,
  useProcessCleanup,
} from './process-helpers.js';

const { pids, cleanups } = useProcessCleanup();

interface RulesRecord {
  msg: string;
  eventId?: string;
  fired?: string[];
  skipped?: string[];
}

async function setup() {
  const temp = tempEnv();
  cleanups.push(temp.cleanup);
  cleanups.push(() => killQuietly(readPidFile(daemonFiles(temp.env).lock)));
  const hook = await loopbackServer();
  cleanups.push(hook.close);
  writeConfig(temp.env, {
    notify: {
      channels: { ops: { type: 'webhook', url: `${hook.url}/hook` } },
      rules: [{ name: 'asks', on: ['Notification'], channels: ['ops'], title: '{{message}}' }],
      noise: { dedupeWindowMs: 600_000 },
      // Sent at once: delay-then-cancel is tested in waiting-delay.test.ts.
      waitingDelayMs: 0,
    },
  });
  const start = async () => {
    const child = await spawnDaemon(temp.env);
    pids.push(child.pid!);
    return child;
  };
  const send = async (message: string) => {
    const handoff = handoffOf({ ...fixture('04-Notification.json'), message });
    expect((await handOff(handoff, { env: temp.env, timeoutMs: 5000 })).outcome).toBe('acked');
    return handoff.event.id;
  };
  /** The "rules evaluated" record of one event, once the daemon has logged it. */
  const evaluated = (eventId: string) =>
    waitFor(
      () =>
        jsonLines<RulesRecord>(daemonLogPath(temp.env)).find(
          (r) => r.msg === 'rules evaluated' && r.eventId === eventId,
        ),
      10_000,
      `the rules of ${eventId}`,
    );
  const noiseFile = join(stateDir(temp.env), 'daemon', 'noise.json');
  return { ...temp, hook, start, send, evaluated, noiseFile };
}

describe('noise state survives a daemon restart', () => {
  it('the same notification after a stop and a start is a duplicate: sent once', async () => {
    const t = await setup();
    let daemon = await t.start();
    const first = await t.send('needs you');
    expect((await t.evaluated(first)).fired).toEqual(['asks']);
    await waitFor(() => t.hook.received.length === 1, 10_000, 'the first delivery');
    await stopDaemon(daemon);

    daemon = await t.start();
    const again = await t.send('needs you');
    const record = await t.evaluated(again);
    expect(record.fired).toEqual([]);
    expect(record.skipped?.some((s) => s.startsWith('asks: dedupe:'))).toBe(true);
    await stopDaemon(daemon);
    expect(t.hook.received).toHaveLength(1);
  });

  it('after a SIGKILL the last persisted state is used', async () => {
    const t = await setup();
    const daemon = await t.start();
    const first = await t.send('killed soon');
    expect((await t.evaluated(first)).fired).toEqual(['asks']);
    await waitFor(() => t.hook.received.length === 1, 10_000, 'the first delivery');
    // The debounced write lands without a shutdown.
    await waitFor(
      () =>
        existsSync(t.noiseFile) &&
        (JSON.parse(readFileSync(t.noiseFile, 'utf8')) as { noise: { sent: unknown[] } }).noise.sent
          .length === 1,
      10_000,
      'the persisted noise state',
    );
    daemon.kill('SIGKILL');
    await exited(daemon);

    const next = await t.start();
    const again = await t.send('killed soon');
    const record = await t.evaluated(again);
    expect(record.fired).toEqual([]);
    expect(record.skipped?.some((s) => s.startsWith('asks: dedupe:'))).toBe(true);
    await stopDaemon(next);
    expect(t.hook.received).toHaveLength(1);
  });
});
