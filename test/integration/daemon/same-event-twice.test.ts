import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLedger } from '../../../src/ledger/ledger.js';
import { makeTempDir } from '../../helpers/temp.js';
import { isAlive, killHard, readPid } from '../../helpers/procs.js';
import { loopbackServer, waitFor } from './helpers.js';
import { spawnDaemon, stopDaemon, useProcessCleanup } from './process-helpers.js';
import {
  daemonLogText,
  handOffEnv,
  hookLogRecords,
  journaledTags,
  onToolEvents,
  startFastDaemon,
  startHook,
  toolEvent,
  writeFastConfig,
  type Transport,
} from './fast-client-helpers.js';

// One hookd entry that fires twice for one event (Droid runs the identical command of its user and
// project `.factory` folders twice): with a real daemon up, the guard runs once, the second call answers
// what the first one did, and the event is handed on (journaled, notified) once. On both transports: the
// native fast client (the daemon runs the event) and the Node path (`node dist/hookd.cjs hook`, the
// fast listener off: the hook process runs it and asks the daemon first). Without a daemon, or when
// the first call dies, each call runs the guard itself: a guard twice, never a guard skipped.

const { pids, cleanups } = useProcessCleanup();
let tmp: ReturnType<typeof makeTempDir>;
let env: Record<string, string>;
let daemon: ChildProcess | undefined;

beforeEach(() => {
  tmp = makeTempDir('hktwice-');
  env = handOffEnv(tmp.dir);
});
afterEach(async () => {
  await stopDaemon(daemon);
  daemon = undefined;
  tmp.cleanup();
});

const side = () => join(tmp.dir, 'side-effect.txt');
const gate = () => join(tmp.dir, 'gate');
const lines = () => (existsSync(side()) ? readFileSync(side(), 'utf8').split('\n').filter(Boolean) : []);
const waiting = () => daemonLogText(env).includes('waits for its answer');

/** A guard that records each run (and its pid), waits for the test's gate, then blocks with a reason. */
const GUARD = [
  'echo ran >> "$SIDE"',
  'echo $$ > "$SIDE.pid.$(wc -l < "$SIDE" | tr -d " ")"',
  'while [ ! -e "$GATE" ]; do sleep 0.02; done',
  `printf '{"reason":"held"}'`,
  'echo "blocked: rm is not allowed" >&2',
  'exit 2',
].join('; ');

const pre = (tag: string) =>
  toolEvent(tag, { hook_event_name: 'PreToolUse', tool_input: { command: 'rm -rf x' } });

describe.each(['fast', 'node'] as const satisfies readonly Transport[])(
  'the same event twice, %s transport',
  (transport) => {
    /** The user config: the fast listener on for the fast client only; a webhook as the one channel. */
    const configure = (hooks: Record<string, unknown>, webhook?: string) =>
      writeFastConfig(env, hooks, {
        daemon: { fastListener: transport === 'fast' },
        ...(webhook
          ? { notify: { channels: { desktop: { type: 'webhook', url: webhook } }, waitingDelayMs: 0 } }
          : {}),
      });
    const start = async () => {
      daemon = await (transport === 'fast' ? startFastDaemon(env) : spawnDaemon(env));
    };
    const hook = (stdin: Buffer) => {
      const h = startHook(transport, { env: { ...env, SIDE: side(), GATE: gate() }, cwd: tmp.dir, stdin });
      pids.push(h.child.pid!);
      return h;
    };
    const tag = (name: string) => `${transport}${name}`;

    it('runs the guard once: the second call waits and answers the same exit code, stdout and stderr', async () => {
      configure(onToolEvents(GUARD, { blocking: true }));
      await start();
      const first = hook(pre(tag('1-twice'))).done;
      await waitFor(() => lines().length === 1, 20_000, 'the first call to start the guard');
      const second = hook(pre(tag('1-twice'))).done;
      await waitFor(waiting, 20_000, 'the second call to wait for the first');
      writeFileSync(gate(), '');
      const [a, b] = await Promise.all([first, second]);
      expect(a.code, a.stderr.toString()).toBe(2);
      expect(b.code, b.stderr.toString()).toBe(2);
      expect(b.stdout.toString()).toBe(a.stdout.toString());
      expect(b.stderr.toString()).toBe(a.stderr.toString());
      expect(a.stderr.toString()).toContain('rm is not allowed');
      expect(lines()).toEqual(['ran']);
      await waitFor(() => journaledTags(env).includes(tag('1-twice')), 20_000, 'the event in the journal');
      // handed on once: one record
      await stopDaemon(daemon);
      daemon = undefined;
      expect(journaledTags(env).filter((t) => t === tag('1-twice'))).toHaveLength(1);
    });

    it('the same bytes after another event of its session are a new event (a repeated tool call): its guard runs', async () => {
      writeFileSync(gate(), '');
      configure(onToolEvents(GUARD, { blocking: true }));
      await start();
      const a = await hook(pre(tag('2-again'))).done;
      // The agent's next step reaches the daemon before it sends the same event again.
      const next = toolEvent(tag('2-next'), { hook_event_name: 'UserPromptSubmit', prompt: 'again' });
      expect((await hook(next).done).code).toBe(0);
      const b = await hook(pre(tag('2-again'))).done;
      expect([a.code, b.code]).toEqual([2, 2]);
      expect(b.stdout.toString()).toBe(a.stdout.toString());
      expect(lines()).toEqual(['ran', 'ran']);
    });

    it('a Stop that fires twice at once is journaled and notified once', async () => {
      const server = await loopbackServer();
      cleanups.push(server.close);
      // an observer that holds the event until its copy has arrived: without one, "at once" would be a race
      const hold = 'while [ ! -e "$GATE" ]; do sleep 0.02; done';
      configure(
        { Stop: [{ hooks: [{ type: 'command', command: hold, blocking: false }] }] },
        `${server.url}/n`,
      );
      await start();
      const stop = toolEvent(tag('3-stop'), { hook_event_name: 'Stop', tool_name: undefined });
      const first = hook(stop).done;
      const second = hook(stop).done;
      await waitFor(waiting, 20_000, 'the copy to wait');
      writeFileSync(gate(), '');
      const runs = await Promise.all([first, second]);
      expect(runs.map((r) => r.code)).toEqual([0, 0]);
      await waitFor(() => server.received.length > 0, 20_000, 'the notification');
      await stopDaemon(daemon);
      daemon = undefined;
      expect(journaledTags(env).filter((t) => t === tag('3-stop'))).toHaveLength(1);
      expect(server.received).toHaveLength(1);
    });

    it('without a daemon both calls run the guard (a guard twice, never a guard skipped)', async () => {
      writeFileSync(gate(), '');
      configure(onToolEvents(GUARD, { blocking: true }));
      const [a, b] = await Promise.all([hook(pre(tag('4-down'))).done, hook(pre(tag('4-down'))).done]);
      expect([a.code, b.code]).toEqual([2, 2]);
      expect(lines()).toEqual(['ran', 'ran']);
    });

    it('a call whose first call is killed mid-run runs the guard itself', async () => {
      configure(onToolEvents(GUARD, { blocking: true }));
      await start();
      const lead = hook(pre(tag('5-killed')));
      await waitFor(() => lines().length === 1, 20_000, 'the first call to start the guard');
      const second = hook(pre(tag('5-killed'))).done;
      await waitFor(waiting, 20_000, 'the second call to wait for the first');
      // The agent kills the first call. The daemon kills the guard of a fast client that went away; a
      // hook process leaves its guard (started in a group of its own) to the test, killed only once the
      // process is gone: a guard that dies first is an answer its copies get.
      const guard = await waitFor(() => readPid(`${side()}.pid.1`), 20_000, "the first guard's pid");
      lead.child.kill('SIGKILL');
      await lead.done;
      if (transport === 'node') killHard(guard);
      await waitFor(() => !isAlive(guard), 20_000, 'the first guard to be gone');
      await waitFor(() => lines().length === 2, 20_000, 'the second call to run the guard itself');
      writeFileSync(gate(), '');
      const b = await second;
      expect(b.code, b.stderr.toString()).toBe(2);
      expect(b.stderr.toString()).toContain('rm is not allowed');
      expect(lines()).toEqual(['ran', 'ran']);
    });
  },
);

/** A call of the guarded event on `transport`, as the agent starts it. */
function guardCall(transport: Transport, stdin: Buffer, more: Record<string, string> = {}) {
  const h = startHook(transport, {
    env: { ...env, ...more, SIDE: side(), GATE: gate() },
    cwd: tmp.dir,
    stdin,
  });
  pids.push(h.child.pid!);
  return h.done;
}

/**
 * Starts `first`, then `second` once the first runs its guard, until the daemon logs `waitsLog` (the second
 * waits); then lets the guard block: both calls answer exit 2 with the same output, the guard ran once.
 */
async function guardOnce(
  first: () => ReturnType<typeof guardCall>,
  second: () => ReturnType<typeof guardCall>,
  waitsLog: string,
) {
  const one = first();
  await waitFor(() => lines().length === 1, 20_000, 'the first call to start the guard');
  const two = second();
  await waitFor(() => daemonLogText(env).includes(waitsLog), 20_000, 'the second call to wait for the first');
  writeFileSync(gate(), '');
  const [a, b] = await Promise.all([one, two]);
  expect([a.code, b.code]).toEqual([2, 2]);
  expect(b.stdout.toString()).toBe(a.stdout.toString());
  expect(b.stderr.toString()).toBe(a.stderr.toString());
  expect(lines()).toEqual(['ran']);
}

describe('a command marked "local"', () => {
  it('runs once too: the fast client hands both calls to the Node path, which asks the daemon', async () => {
    writeFastConfig(env, onToolEvents(GUARD, { blocking: true, local: true }));
    daemon = await startFastDaemon(env);
    const call = () => guardCall('fast', pre('l1'));
    await guardOnce(call, call, 'in another hook process: waits for its answer');
  });
});

// One copy on each transport (one settings file runs the native client, another the Node command): the
// daemon keeps one book for both, so the guard runs once whichever call comes first. The fast command
// carries HOOKD_NODE as install writes it; the Node command does not.
describe.each([
  ['fast', 'node', 'in another hook process: waits for its answer'],
  ['node', 'fast', 'the same event is running: waits for its answer'],
] as const)('the same event on two transports, %s first', (firstOn, secondOn, waitsLog) => {
  it('runs the guard once: the second call answers what the first did', async () => {
    writeFastConfig(env, onToolEvents(GUARD, { blocking: true }));
    daemon = await startFastDaemon(env);
    const call = (transport: Transport) => () =>
      guardCall(
        transport,
        pre(`x${firstOn}-both`),
        transport === 'fast' ? { HOOKD_NODE: process.execPath } : {},
      );
    await guardOnce(call(firstOn), call(secondOn), waitsLog);
  });
});

// A copy whose process reaches the daemon only after a fast guard answered (Gemini CLI runs two entries
// of one command at once; Codex's copies come 5-15 ms apart): within a second, with nothing else of its
// session in between, it gets the first call's answer. Either call on either transport: both tell the
// daemon the event's session.
describe.each([
  ['fast', 'fast'],
  ['fast', 'node'],
  ['node', 'fast'],
  ['node', 'node'],
] as const satisfies readonly (readonly [Transport, Transport])[])(
  'a copy that comes after the first call answered (first on %s, copy on %s)',
  (firstOn, copyOn) => {
    it('gets the same exit code, stdout and stderr; the guard runs once and the event is journaled once', async () => {
      writeFileSync(gate(), '');
      writeFastConfig(env, onToolEvents(GUARD, { blocking: true }));
      daemon = await startFastDaemon(env);
      const tagged = `after${firstOn}${copyOn}-copy`;
      const start = (transport: Transport, holdStdin: boolean) => {
        const h = startHook(transport, {
          // Both wait for their stdin as long as the test needs (the same value: part of the event's key).
          env: { ...env, SIDE: side(), GATE: gate(), HOOKD_STDIN_TIMEOUT_MS: '600000' },
          cwd: tmp.dir,
          stdin: pre(tagged),
          holdStdin,
        });
        pids.push(h.child.pid!);
        return h;
      };
      // The copy is started first and gets its event once the first call has answered: it reaches the
      // daemon right after, as the agent's second process does.
      const copy = start(copyOn, true);
      const a = await start(firstOn, false).done;
      expect(a.code, a.stderr.toString()).toBe(2);
      copy.release();
      const b = await copy.done;
      expect(b.code, b.stderr.toString()).toBe(2);
      expect(b.stdout.toString()).toBe(a.stdout.toString());
      expect(b.stderr.toString()).toBe(a.stderr.toString());
      expect(lines()).toEqual(['ran']);
      expect(daemonLogText(env)).toContain('answered just before');
      await waitFor(() => journaledTags(env).includes(tagged), 20_000, 'the event in the journal');
      await stopDaemon(daemon);
      daemon = undefined;
      expect(journaledTags(env).filter((t) => t === tagged)).toHaveLength(1);
    });
  },
);

// A first call that holds its connection open and never answers (stopped, not dead) holds its copies no
// longer than the budget it declared: the daemon then tells them to run the event themselves.
describe('a first call that stops answering', () => {
  it('its copy is told to run once the budget the first call declared is over', async () => {
    writeFastConfig(env, onToolEvents(GUARD, { blocking: true }), {
      daemon: { fastListener: false },
      settings: { eventBudgetSec: 1 },
    });
    daemon = await spawnDaemon(env);
    const lead = startHook('node', {
      env: { ...env, SIDE: side(), GATE: gate() },
      cwd: tmp.dir,
      stdin: pre('stopped'),
    });
    pids.push(lead.child.pid!);
    await waitFor(() => lines().length === 1, 20_000, 'the first call to start the guard');
    lead.child.kill('SIGSTOP');
    try {
      const second = guardCall('node', pre('stopped'));
      await waitFor(
        () => daemonLogText(env).includes('in another hook process: waits'),
        20_000,
        'the copy to wait',
      );
      writeFileSync(gate(), ''); // the copy's own guard, once it runs, blocks at once
      const b = await second;
      expect(b.code, b.stderr.toString()).toBe(2);
      expect(lines()).toEqual(['ran', 'ran']);
      const told = hookLogRecords(env).find((r) => r.kind === 'duplicate' && typeof r.reason === 'string');
      expect(told?.reason).toBe('the first call gave no answer within its budget');
    } finally {
      lead.child.kill('SIGKILL');
    }
  });
});

// An event no command is wired to (a Stop under the default config, the common case) that one hookd
// entry fires twice: both calls hand it to the daemon, which journals it once, so the ledger counts it
// once and its notification goes out once.
describe.each(['fast', 'node'] as const satisfies readonly Transport[])(
  'an event with no command, fired twice, %s transport',
  (transport) => {
    const hook = (stdin: Buffer) => {
      const h = startHook(transport, { env, cwd: tmp.dir, stdin });
      pids.push(h.child.pid!);
      return h.done;
    };

    it('is journaled once, counted once in the ledger and notified once', async () => {
      const server = await loopbackServer();
      cleanups.push(server.close);
      writeFastConfig(
        env,
        {},
        {
          daemon: { fastListener: transport === 'fast' },
          notify: { channels: { desktop: { type: 'webhook', url: `${server.url}/n` } }, waitingDelayMs: 0 },
        },
      );
      daemon = await (transport === 'fast' ? startFastDaemon(env) : spawnDaemon(env));
      const tag = `${transport}1-stop`;
      const stop = toolEvent(tag, { hook_event_name: 'Stop', tool_name: undefined });
      const runs = await Promise.all([hook(stop), hook(stop)]);
      expect(runs.map((r) => r.code)).toEqual([0, 0]);
      await waitFor(() => server.received.length > 0, 20_000, 'the notification');
      const end = toolEvent(`${transport}1-end`, { hook_event_name: 'SessionEnd', reason: 'other' });
      expect((await hook(end)).code).toBe(0);
      const ledger = createLedger({ dataDir: env.HOOKD_DATA_DIR! });
      const [record] = await waitFor(
        async () => {
          const list = await ledger.list();
          return list.length > 0 && list;
        },
        20_000,
        'the session in the ledger',
      );
      await stopDaemon(daemon);
      daemon = undefined;
      expect(journaledTags(env).filter((t) => t === tag)).toHaveLength(1);
      expect(record!.eventCount).toBe(2); // the Stop once and the SessionEnd
      expect(server.received).toHaveLength(1);
    });

    it('both calls spooled while the daemon is down: the daemon journals the event once when it starts', async () => {
      writeFastConfig(env, {}, { daemon: { fastListener: transport === 'fast' } });
      const tag = `${transport}2-spooled`;
      const stop = toolEvent(tag, { hook_event_name: 'Stop', tool_name: undefined });
      const runs = await Promise.all([hook(stop), hook(stop)]);
      expect(runs.map((r) => r.code)).toEqual([0, 0]);
      expect(spooled(env)).toBe(2);
      daemon = await spawnDaemon(env);
      await waitFor(() => spooled(env) === 0, 20_000, 'the spool to be drained');
      await stopDaemon(daemon);
      daemon = undefined;
      expect(journaledTags(env).filter((t) => t === tag)).toHaveLength(1);
    });
  },
);

/** The events waiting in the spool. */
const spooled = (env: Record<string, string>) => {
  const dir = join(env.HOOKD_STATE_DIR!, 'spool');
  return existsSync(dir) ? readdirSync(dir).filter((n) => n.endsWith('.json')).length : 0;
};
