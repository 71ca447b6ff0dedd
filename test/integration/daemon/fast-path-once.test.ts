import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REPO_DIR } from '../../helpers/fixtures.js';
import { makeTempDir } from '../../helpers/temp.js';
import { waitFor } from './helpers.js';
import { stopDaemon, useProcessCleanup } from './process-helpers.js';
import {
  daemonLogText,
  handOffEnv,
  journaledTags,
  onToolEvents,
  startFastDaemon,
  startHook,
  toolEvent,
  TRANSPORTS,
  writeFastConfig,
} from './fast-client-helpers.js';

// One hookd entry that fires twice for one event (Droid runs the entry of ~/.factory and the copy it
// imports from Claude Code's settings): through the real native client and a real daemon, the guard
// runs once, both calls answer alike, and the event is journaled (so notified) once. Without a daemon
// each call runs the guard itself: a guard twice, never a guard skipped.
//
// And the right agent: hookd's entry in Claude Code's settings (`--agent claude`) fired by Cursor (from
// its documented payload, test/fixtures/cursor-docs/: written from its docs, not recorded) is Cursor's
// event for the command and in the journal, under hookd's event name.

const { pids } = useProcessCleanup();
let tmp: ReturnType<typeof makeTempDir>;
let env: Record<string, string>;
let daemon: Awaited<ReturnType<typeof startFastDaemon>> | undefined;

beforeEach(() => {
  tmp = makeTempDir('hkonce-');
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

/** A guard that records each run, waits for the test's gate, then blocks with a reason on stderr and JSON on stdout. */
const GUARD = [
  'echo ran >> "$SIDE"',
  'while [ ! -e "$GATE" ]; do sleep 0.02; done',
  `printf '{"reason":"held"}'`,
  'echo "blocked: rm is not allowed" >&2',
  'exit 2',
].join('; ');

function hook(stdin: Buffer) {
  const h = startHook('fast', { env: { ...env, SIDE: side(), GATE: gate() }, cwd: tmp.dir, stdin });
  pids.push(h.child.pid!);
  return h.done;
}

const pre = (tag: string) =>
  toolEvent(tag, { hook_event_name: 'PreToolUse', tool_input: { command: 'rm -rf x' } });

describe('the same event twice', () => {
  it('runs the guard once: the second call waits and answers the same exit code, stdout and stderr', async () => {
    writeFastConfig(env, onToolEvents(GUARD, { blocking: true }));
    daemon = await startFastDaemon(env);
    const first = hook(pre('s1-twice'));
    await waitFor(() => lines().length === 1, 20_000, 'the first call to start the guard');
    const second = hook(pre('s1-twice'));
    await waitFor(
      () => daemonLogText(env).includes('waits for its answer'),
      20_000,
      'the second call to reach the daemon while the first runs',
    );
    writeFileSync(gate(), '');
    const [a, b] = await Promise.all([first, second]);
    expect(a.code, a.stderr.toString()).toBe(2);
    expect(b.code, b.stderr.toString()).toBe(2);
    expect(b.stdout.toString()).toBe(a.stdout.toString());
    expect(b.stderr.toString()).toBe(a.stderr.toString());
    expect(a.stderr.toString()).toContain('rm is not allowed');
    expect(lines()).toEqual(['ran']);
    await waitFor(() => journaledTags(env).includes('s1-twice'), 20_000, 'the event in the journal');
    // handed on once: one record, one notification
    await stopDaemon(daemon);
    daemon = undefined;
    expect(journaledTags(env).filter((t) => t === 's1-twice')).toHaveLength(1);
  });

  it('the same bytes after the first call answered are a new event (a repeated tool call): its guard runs', async () => {
    writeFileSync(gate(), '');
    writeFastConfig(env, onToolEvents(GUARD, { blocking: true }));
    daemon = await startFastDaemon(env);
    const a = await hook(pre('s2-again'));
    const b = await hook(pre('s2-again'));
    expect([a.code, b.code]).toEqual([2, 2]);
    expect(b.stdout.toString()).toBe(a.stdout.toString());
    expect(lines()).toEqual(['ran', 'ran']);
  });

  it('a Stop that fires twice at once is journaled (so notified) once', async () => {
    // an observer that holds the event until its copy has arrived: without one, "at once" would be a race
    const hold = 'while [ ! -e "$GATE" ]; do sleep 0.02; done';
    writeFastConfig(env, { Stop: [{ hooks: [{ type: 'command', command: hold, blocking: false }] }] });
    daemon = await startFastDaemon(env);
    const stop = toolEvent('s3-stop', { hook_event_name: 'Stop', tool_name: undefined });
    const first = hook(stop);
    const second = hook(stop);
    await waitFor(() => daemonLogText(env).includes('waits for its answer'), 20_000, 'the copy to wait');
    writeFileSync(gate(), '');
    const runs = await Promise.all([first, second]);
    expect(runs.map((r) => r.code)).toEqual([0, 0]);
    await waitFor(() => journaledTags(env).includes('s3-stop'), 20_000, 'the event in the journal');
    await stopDaemon(daemon);
    daemon = undefined;
    expect(journaledTags(env).filter((t) => t === 's3-stop')).toHaveLength(1);
  });

  it('without a daemon both calls run the guard (a guard twice, never a guard skipped)', async () => {
    writeFileSync(gate(), '');
    writeFastConfig(env, onToolEvents(GUARD, { blocking: true }));
    const [a, b] = await Promise.all([hook(pre('s4-down')), hook(pre('s4-down'))]);
    expect([a.code, b.code]).toEqual([2, 2]);
    expect(lines()).toEqual(['ran', 'ran']);
  });
});

/** The journal's `in` records: the event each carries. */
function journaled(): { agent: string; name: string; sessionId?: string }[] {
  const file = join(env.HOOKD_STATE_DIR!, 'daemon', 'journal.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map(
      (l) =>
        JSON.parse(l) as { t: string; h?: { event: { agent: string; name: string; sessionId?: string } } },
    )
    .filter((r) => r.t === 'in' && r.h)
    .map((r) => r.h!.event);
}

describe("Cursor running hookd's Claude Code entry", () => {
  it('is recorded as Cursor: the command sees it, the journal keeps it', async () => {
    const seen = join(tmp.dir, 'seen.txt');
    writeFastConfig(env, {
      PreToolUse: [
        {
          hooks: [
            { type: 'command', command: `printf '%s %s\\n' "$HOOKD_AGENT" "$HOOKD_EVENT" >> '${seen}'` },
          ],
        },
      ],
    });
    daemon = await startFastDaemon(env);
    for (const name of ['preToolUse-Shell.json', 'stop.json']) {
      const stdin = readFileSync(join(REPO_DIR, 'test', 'fixtures', 'cursor-docs', name));
      const h = startHook(TRANSPORTS.fast('claude'), { env, cwd: tmp.dir, stdin });
      pids.push(h.child.pid!);
      const ran = await h.done;
      expect(ran.code, ran.stderr.toString()).toBe(0);
    }
    expect(readFileSync(seen, 'utf8')).toBe('cursor PreToolUse\n');
    await waitFor(() => journaled().length === 2, 20_000, 'both events in the journal');
    expect(journaled().map((e) => [e.agent, e.name, e.sessionId])).toEqual([
      ['cursor', 'PreToolUse', 'c0ffee00-1111-4222-8333-444455556666'],
      ['cursor', 'Stop', 'c0ffee00-1111-4222-8333-444455556666'],
    ]);
  });
});
