import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { failed } from '../../../src/events/failed.js';
import type { CommandOutcome, EventHandoff, HookEvent } from '../../../src/events/types.js';
import { classifyOutcome } from '../../../src/ledger/tracked-session.js';
import { createSessionTracker } from '../../../src/ledger/tracker.js';
import { buildTemplateContext } from '../../../src/notify/notification.js';
import { createNoiseState } from '../../../src/notify/noise.js';
import { eventFacts } from '../../../src/notify/rules.js';
import { runCommand, type CommandResult } from '../../../src/runner/run-command.js';
import { makeTempDir } from '../../helpers/temp.js';

// "Did this command fail?" was decided in six places that disagreed. The ledger counted a
// blocking guard's exit 2 as fine while a notification's {{commands.failed}} counted it as a failure.

let tmp: ReturnType<typeof makeTempDir>;
beforeEach(() => {
  tmp = makeTempDir();
});
afterEach(() => tmp.cleanup());

const NOW = 1_800_000_000_000;

function run(command: string, cwd = tmp.dir): Promise<CommandResult> {
  return runCommand({
    command,
    cwd,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    stdin: Buffer.from('{"hook_event_name":"PreToolUse"}'),
    timeoutMs: 10_000,
    killGraceMs: 300,
    maxOutputBytes: 64 * 1024,
  });
}

function outcome(name: string, result: CommandResult, blocking: boolean): CommandOutcome {
  return {
    name,
    command: name,
    exitCode: result.exitCode,
    signal: result.signal,
    timedOut: result.timedOut,
    durationMs: result.durationMs,
    blocking,
    ...(result.spawnError ? { spawnError: result.spawnError } : {}),
  };
}

describe('one failure rule for real command ends', () => {
  it('a guard that blocks (exit 2) did not fail; a spawn error, a signal, a non-blocking exit 2 did', async () => {
    const ends = {
      guard: outcome('guard', await run('echo "no rm -rf" >&2; exit 2'), true),
      ok: outcome('ok', await run('exit 0'), false),
      exit2: outcome('exit2', await run('exit 2'), false),
      exit1: outcome('exit1', await run('exit 1'), true),
      spawn: outcome('spawn', await run('exit 0', join(tmp.dir, 'missing')), true),
      signal: outcome('signal', await run('kill -TERM $$'), false),
    };
    expect(ends.spawn.spawnError).toBeDefined();
    expect(ends.signal.signal).toBe('SIGTERM');
    const verdict = Object.fromEntries(Object.entries(ends).map(([k, o]) => [k, failed(o, o.blocking)]));
    expect(verdict).toEqual({ guard: false, ok: false, exit2: true, exit1: true, spawn: true, signal: true });
  });

  it('the ledger and a notification count the same event the same way', async () => {
    const results = [
      outcome('guard', await run('exit 2'), true),
      outcome('spawn', await run('exit 0', join(tmp.dir, 'missing')), true),
      outcome('signal', await run('kill -TERM $$'), false),
      outcome('ok', await run('exit 0'), false),
    ];
    const event: HookEvent = {
      id: 'e1',
      receivedAt: NOW,
      agent: 'claude',
      name: 'PreToolUse',
      sessionId: 's1',
      payload: { session_id: 's1', hook_event_name: 'PreToolUse' },
    };

    const tracker = createSessionTracker({
      ledger: { record: async () => 'written' as const },
      idleCloseMs: 3_600_000,
    });
    const handoff: EventHandoff = { v: 1, type: 'event', event, results };
    await tracker.onEvent(handoff);
    const session = tracker.snapshot().sessions[0]!;
    await tracker.close();

    const facts = eventFacts(event, {}, createNoiseState(), NOW, results);
    const context = buildTemplateContext(event, {}, facts, results) as { commands: { failed: number } };

    expect(session.hookFailures + session.hookTimeouts).toBe(2);
    expect(facts.commandsFailed).toBe(2);
    expect(context.commands.failed).toBe(2);
    expect(results.map((r) => classifyOutcome(r))).toEqual(['ok', 'failure', 'failure', 'ok']);
  });
});
