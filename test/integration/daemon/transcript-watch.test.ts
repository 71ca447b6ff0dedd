import { appendFileSync, mkdirSync, readFileSync, renameSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { handOff } from '../../../src/link/client.js';
import { startDaemon } from '../../../src/daemon/lifecycle/daemon.js';
import { outboxAction } from '../../../src/daemon/admin.js';
import { daemonFiles, readPidFile } from '../../../src/link/runtime-files.js';
import type { SessionState } from '../../../src/notify/session-state.js';
import { REPO_DIR } from '../../helpers/fixtures.js';
import { jsonLines } from '../../helpers/json-lines.js';
import { runCli } from '../../helpers/cli-run.js';
import { handoffOf, loopbackServer, outboxSettled, tempEnv, waitFor } from './helpers.js';
import { killQuietly, spawnDaemon, stopDaemon, useProcessCleanup, writeConfig } from './process-helpers.js';

const { pids, cleanups } = useProcessCleanup();

/** The real Droid 0.225.2 session interrupted at its permission prompt: its hooks and its transcript. */
const RECORDED = join(REPO_DIR, 'test', 'fixtures', 'droid-0.225.2-interrupt');
const SESSION = '2e7aa3df-b62b-4a60-a4f1-a55283d42692';
const hooks = jsonLines<Record<string, unknown>>(join(RECORDED, 'hooks.jsonl'));
const transcriptLines = readFileSync(join(RECORDED, `${SESSION}.jsonl`), 'utf8')
  .split('\n')
  .filter(Boolean);
/** Index of the transcript line that records the given hook (Droid writes one per hook run). */
const lineOfHook = (name: string) =>
  transcriptLines.findIndex((l) => l.includes(`"hookEventName":"${name}"`));
const OUTCOME = transcriptLines.findIndex((l) => l.includes('"agent_turn_outcome"'));

/** Peak resident memory of a process, in bytes (Linux). */
function peakRss(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmHWM:'))!;
  return Number(/(\d+)/.exec(line)![1]) * 1024;
}

/** Reading and driving the sessions of the daemon at `env`: its log, a session's live state, hand-offs. */
function sessionTools(env: Record<string, string>) {
  const log = () => jsonLines<Record<string, unknown>>(join(env.HOOKD_STATE_DIR!, 'logs', 'daemon.log'));
  const live = async () => {
    const ran = await runCli(['sessions', '--live', '--json'], { env });
    return ran.code === 0 ? (JSON.parse(ran.stdout) as SessionState[]) : [];
  };
  const stateOf = async (id: string) => (await live()).find((s) => s.id === id);
  /** Sends the recorded hooks of a session (up to and including `last`), its transcript at `file`. */
  const sendUpTo = async (session: string, file: string, last: string) => {
    for (const payload of hooks) {
      const h = handoffOf({ ...payload, session_id: session, transcript_path: file });
      expect((await handOff(h, { env, timeoutMs: 5000 })).outcome).toBe('acked');
      if (payload.hook_event_name === last) return;
    }
  };
  const watching = (session: string) =>
    waitFor(
      () => log().some((r) => r.msg === 'watching the transcript' && r.sessionId === session),
      15_000,
      `the watch of ${session}`,
    );
  return { log, stateOf, sendUpTo, watching };
}

describe('transcript watching in the daemon', () => {
  it('an interrupt no hook reports: the state moves (transcript-interrupt), the held ask is cancelled', async () => {
    const temp = tempEnv();
    cleanups.push(temp.cleanup);
    cleanups.push(() => killQuietly(readPidFile(daemonFiles(temp.env).lock)));
    const server = await loopbackServer();
    cleanups.push(server.close);
    writeConfig(temp.env, {
      notify: {
        channels: { ops: { type: 'webhook', url: `${server.url}/in` } },
        rules: [{ name: 'needs you', on: 'Notification', channels: ['ops'] }],
        // Held until the test is long over: only a cancel can end it.
        waitingDelayMs: 3_600_000,
      },
    });
    const daemon = await spawnDaemon(temp.env);
    pids.push(daemon.pid!);
    const env = temp.env as Record<string, string>;
    const dir = join(temp.root, 'home', '.factory', 'sessions', '-work');
    mkdirSync(dir, { recursive: true });
    const { log, stateOf, sendUpTo, watching } = sessionTools(env);

    // The session as Droid ran it, its transcript written up to the permission prompt.
    const file = join(dir, `${SESSION}.jsonl`);
    writeFileSync(file, `${transcriptLines.slice(0, lineOfHook('Notification') + 1).join('\n')}\n`);
    await sendUpTo(SESSION, file, 'Notification');
    await waitFor(async () => (await stateOf(SESSION))?.phase === 'waiting', 15_000, 'waiting');
    await watching(SESSION);
    expect(daemonHeld(await outboxAction(temp.env, { action: 'list', state: 'held' }))).toHaveLength(1);

    // Esc at the prompt: the cancelled tool results, then (with no hook) a line far over any read bound,
    // half of a line, and the rest of it with the turn's `cancelled` outcome.
    appendFileSync(file, `${transcriptLines.slice(lineOfHook('Notification') + 1, OUTCOME).join('\n')}\n`);
    const before = peakRss(daemon.pid!);
    const huge = Buffer.alloc(64 * 1024 * 1024, 'x');
    appendFileSync(
      file,
      Buffer.concat([Buffer.from('{"type":"message","text":"'), huge, Buffer.from('"}\n')]),
    );
    const outcome = transcriptLines[OUTCOME]!;
    appendFileSync(file, outcome.slice(0, 20));
    appendFileSync(file, `${outcome.slice(20)}\n`);

    const moved = await waitFor(
      async () => {
        const s = await stateOf(SESSION);
        return s?.transition === 'transcript-interrupt' ? s : undefined;
      },
      30_000,
      'transcript-interrupt',
    );
    expect(moved).toMatchObject({
      id: SESSION,
      phase: 'interrupted',
      agent: 'droid',
      lastEvent: 'transcript',
    });
    // The 64 MiB line was read through, never held: the daemon's peak memory grew far less than it.
    expect(peakRss(daemon.pid!) - before).toBeLessThan(32 * 1024 * 1024);
    // The held "needs your permission" is cancelled, by the transcript, and was never sent.
    const cancelled = await waitFor(async () => {
      const items = (await outboxAction(temp.env, { action: 'list', state: 'cancelled' })).items ?? [];
      return items.length > 0 ? items : undefined;
    }, 10_000);
    expect(cancelled).toHaveLength(1);
    expect(cancelled[0]).toMatchObject({
      waiting: { session: SESSION },
      cancelledBy: 'transcript-interrupt',
    });
    expect(daemonHeld(await outboxAction(temp.env, { action: 'list', state: 'held' }))).toHaveLength(0);
    expect(server.received).toEqual([]);
    expect(log().find((r) => r.msg === 'the session moved on: held notifications cancelled')).toMatchObject({
      sessionId: SESSION,
      transition: 'transcript-interrupt',
    });

    // The daemon is alive and well through it all; it stops cleanly with its watchers.
    expect((await runCli(['status', '--json'], { env })).code).toBe(0);
    await stopDaemon(daemon);
    expect(log().some((r) => r.msg === 'daemon stopped; pending work is kept for the next start')).toBe(true);
  });

  it('a transcript replaced or truncated is read on from its new end', async () => {
    const temp = tempEnv();
    cleanups.push(temp.cleanup);
    // The daemon in this process, its poll (which sees a file replaced or cut) every 50 ms, not 5 s.
    const state = {
      daemon: await startDaemon({ env: temp.env, config: {}, watchConfig: false, transcriptPollMs: 50 }),
    };
    cleanups.push(() => state.daemon.close());
    const env = temp.env as Record<string, string>;
    const dir = join(temp.root, 'home', '.factory', 'sessions', '-work');
    mkdirSync(dir, { recursive: true });
    const { log, stateOf, sendUpTo, watching } = sessionTools(env);
    const outcome = transcriptLines[OUTCOME]!;

    // A transcript replaced by another file (holding an old interrupt): read on from its new end only,
    // so the turn's end written next is what counts.
    const rotated = join(dir, 'rotated.jsonl');
    writeFileSync(rotated, '');
    await sendUpTo('rotated', rotated, 'PreToolUse');
    await watching('rotated');
    const replacement = join(dir, 'replacement.tmp');
    writeFileSync(replacement, `${outcome}\n`);
    renameSync(replacement, rotated);
    await waitFor(
      () => log().some((r) => r.msg === 'transcript replaced or truncated' && r.sessionId === 'rotated'),
      30_000,
      'the replacement seen',
    );
    appendFileSync(rotated, `${outcome.replace('"cancelled"', '"completed"')}\n`);
    await waitFor(
      async () => (await stateOf('rotated'))?.transition === 'transcript-turn-end',
      30_000,
      'transcript-turn-end',
    );
    expect(await stateOf('rotated')).toMatchObject({ phase: 'done', inTurn: false });

    // A transcript truncated: read on from its new end; a failed turn's outcome then fails the session.
    const cut = join(dir, 'cut.jsonl');
    writeFileSync(cut, `${transcriptLines.slice(0, 3).join('\n')}\n`);
    await sendUpTo('cut', cut, 'PreToolUse');
    await watching('cut');
    truncateSync(cut, 0);
    await waitFor(
      () => log().some((r) => r.msg === 'transcript replaced or truncated' && r.sessionId === 'cut'),
      30_000,
      'the truncation seen',
    );
    appendFileSync(cut, `${outcome.replace('"cancelled"', '"model_usage_exhausted"')}\n`);
    await waitFor(
      async () => (await stateOf('cut'))?.transition === 'transcript-turn-failed',
      30_000,
      'transcript-turn-failed',
    );
    expect(await stateOf('cut')).toMatchObject({ phase: 'failed', failure: 'model_usage_exhausted' });
  });

  it('an interrupt read from the transcript stops the escalation ladder of the ask', async () => {
    const temp = tempEnv();
    cleanups.push(temp.cleanup);
    cleanups.push(() => killQuietly(readPidFile(daemonFiles(temp.env).lock)));
    writeConfig(temp.env, {
      notify: {
        channels: { ops: { type: 'webhook', url: 'http://127.0.0.1:9/never' } },
        rules: [
          {
            name: 'needs you',
            on: 'Notification',
            channels: ['ops'],
            escalate: [{ after: '1h', channels: ['ops'] }],
          },
        ],
        waitingDelayMs: 3_600_000,
        presence: { source: 'off' },
      },
    });
    const daemon = await spawnDaemon(temp.env);
    pids.push(daemon.pid!);
    const env = temp.env as Record<string, string>;
    const dir = join(temp.root, 'home', '.factory', 'sessions', '-work');
    mkdirSync(dir, { recursive: true });
    const log = () => jsonLines<Record<string, unknown>>(join(env.HOOKD_STATE_DIR!, 'logs', 'daemon.log'));
    const file = join(dir, `${SESSION}.jsonl`);
    writeFileSync(file, `${transcriptLines.slice(0, lineOfHook('Notification') + 1).join('\n')}\n`);
    for (const payload of hooks) {
      const h = handoffOf({ ...payload, session_id: SESSION, transcript_path: file });
      expect((await handOff(h, { env, timeoutMs: 5000 })).outcome).toBe('acked');
      if (payload.hook_event_name === 'Notification') break;
    }
    await waitFor(() => log().some((r) => r.msg === 'escalation ladder started'), 15_000, 'the ladder');
    await waitFor(
      () => log().some((r) => r.msg === 'watching the transcript' && r.sessionId === SESSION),
      15_000,
      'the watch',
    );
    appendFileSync(
      file,
      `${transcriptLines.slice(lineOfHook('Notification') + 1, OUTCOME + 1).join('\n')}\n`,
    );
    const stopped = await waitFor(
      () => log().find((r) => typeof r.msg === 'string' && r.msg.startsWith('escalation stopped')),
      15_000,
      'the ladder stopped',
    );
    expect(stopped).toMatchObject({ sessionId: SESSION, end: 'ended', by: 'transcript-interrupt' });
    await stopDaemon(daemon);
  });

  it('a "waiting" notification already shown is marked resolved by an interrupt read from the transcript', async () => {
    const temp = tempEnv();
    cleanups.push(temp.cleanup);
    const server = await loopbackServer();
    cleanups.push(server.close);
    const clock = { now: 1_800_000_000_000 };
    const state = {
      daemon: await startDaemon({
        env: temp.env,
        config: {
          notify: {
            waitingDelayMs: 5000,
            channels: { ops: { type: 'webhook', url: `${server.url}/in` } },
            rules: [{ name: 'needs you', on: 'Notification', channels: ['ops'] }],
          },
        },
        now: () => clock.now,
        watchConfig: false,
        housekeepingIntervalMs: 20,
        transcriptPollMs: 50,
      }),
    };
    cleanups.push(() => state.daemon.close());
    const dir = join(temp.root, 'sessions');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `${SESSION}.jsonl`);
    writeFileSync(file, `${transcriptLines.slice(0, lineOfHook('Notification') + 1).join('\n')}\n`);
    for (const payload of hooks.slice(0, 4)) {
      const h = handoffOf({ ...payload, transcript_path: file });
      expect((await handOff(h, { env: temp.env, timeoutMs: 5000 })).outcome).toBe('acked');
    }
    await waitFor(() => state.daemon.stats().events.pending === 0, 10_000, 'the events processed');
    expect(state.daemon.stats().outbox.held).toBe(1);
    // Not answered within the delay (the clock moves while the outbox settles): shown.
    await outboxSettled(state, clock, 1000);
    expect(server.received).toHaveLength(1);
    // Esc: the turn's `cancelled` outcome, and no hook.
    appendFileSync(file, `${transcriptLines[OUTCOME]!}\n`);
    await waitFor(() => server.received.length === 2, 30_000, 'the resolved event');
    const shown = server.received[0]!.json as { id: string };
    expect(server.received[1]!.json).toMatchObject({
      type: 'resolved',
      resolves: shown.id,
      by: 'transcript-interrupt',
      sessionId: SESSION,
    });
  });
});

function daemonHeld(reply: { items?: unknown[] }): unknown[] {
  return reply.items ?? [];
}
