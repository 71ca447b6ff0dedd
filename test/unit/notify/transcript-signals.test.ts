import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseEvent } from '../../../src/events/parse.js';
import {
  nextSessionState,
  transcriptTransition,
  type SessionState,
} from '../../../src/notify/session-state.js';
import { transcriptSignalOf } from '../../../src/notify/transcript-signals.js';
import { CLAUDE_FIXTURES_DIR, FIXTURES_DIR, REPO_DIR } from '../../helpers/fixtures.js';

/** The Droid 0.225.2 session interrupted at its permission prompt (`droid.interrupt_session`), recorded. */
const INTERRUPT_DIR = join(REPO_DIR, 'test', 'fixtures', 'droid-0.225.2-interrupt');
const INTERRUPTED = '2e7aa3df-b62b-4a60-a4f1-a55283d42692';
/** The Claude Code 2.1.330 session interrupted at its permission prompt (an `interrupt` control request). */
const CLAUDE_INTERRUPT_DIR = join(REPO_DIR, 'test', 'fixtures', 'claude-code-2.1.330-interrupt');
const CLAUDE_INTERRUPTED = 'fd3c71a9-e4e7-4219-96e4-248125a3a539';

function transcripts(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => join(dir, name))
    .filter(
      (file) => file.endsWith('.jsonl') && /\/(sessions|projects)\//.test(file) && statSync(file).isFile(),
    );
}

/** `<file name>: kind detail` for every line of a transcript that carries a signal. */
function signalsOf(file: string): string[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .flatMap((line) => {
      const signal = transcriptSignalOf(line);
      return signal ? [`${signal.kind} ${signal.detail}`] : [];
    });
}

describe('transcript records no hook reports, over the real transcripts', () => {
  it('Droid 0.225.2: each turn ends with an agent_turn_outcome; `completed` is the end of a turn', () => {
    const files = transcripts(join(FIXTURES_DIR, 'factory-home'));
    expect(files).toHaveLength(3);
    const found = Object.fromEntries(files.map((f) => [f.split('/').pop()!, signalsOf(f)]));
    expect(found).toEqual({
      '38467040-96b6-4e45-bf6d-91edf75b2209.jsonl': [],
      '48e23316-6280-4a11-966d-13493854823f.jsonl': ['turn-end completed'],
      '9414a522-3430-47b5-9f03-3dfadc677129.jsonl': ['turn-end completed'],
    });
  });

  it('Droid 0.225.2 interrupted at its permission prompt: the `cancelled` outcome is an interrupt', () => {
    const file = join(INTERRUPT_DIR, `${INTERRUPTED}.jsonl`);
    expect(signalsOf(file)).toEqual(['interrupt cancelled']);
    // Its "Tool execution cancelled by user" tool results are no signal of their own.
    expect(readFileSync(file, 'utf8')).toContain('Tool execution cancelled by user');
  });

  it('Claude Code 2.1.330: each end_turn of the main conversation ends a turn; sub-agents say nothing', () => {
    const files = transcripts(CLAUDE_FIXTURES_DIR);
    const mains = files.filter((f) => !f.includes('/subagents/'));
    expect(mains).toHaveLength(5);
    for (const file of files) {
      const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
      const endTurns = lines.filter((l) => {
        const j = JSON.parse(l) as {
          type?: string;
          isSidechain?: boolean;
          message?: { stop_reason?: string };
        };
        return j.type === 'assistant' && j.message?.stop_reason === 'end_turn' && j.isSidechain !== true;
      }).length;
      expect(signalsOf(file), file).toEqual(Array<string>(endTurns).fill('turn-end end_turn'));
      if (file.includes('/subagents/')) expect(endTurns).toBe(0);
      else expect(endTurns).toBeGreaterThan(0);
    }
  });

  it('Claude Code 2.1.330 interrupted at its permission prompt: the "[Request interrupted by user for tool use]" line', () => {
    // No hook fired for it (its hooks: ... PermissionRequest, Notification, then the next prompt).
    const file = join(CLAUDE_INTERRUPT_DIR, `${CLAUDE_INTERRUPTED}.jsonl`);
    expect(signalsOf(file)).toEqual([
      'interrupt [Request interrupted by user for tool use]',
      'turn-end end_turn',
    ]);
    // The same text inside the next API request's blob is no user line: not read twice.
    expect(readFileSync(file, 'utf8').split('[Request interrupted by user for tool use]').length - 1).toBe(2);
  });

  it('Claude Code: "[Request interrupted by user]" as a string content too; lookalikes are not', () => {
    // A real user line of the recorded interrupt, in its other shape (string content, the marker Esc
    // writes outside a tool: both markers are strings of the 2.1.330 binary).
    const file = join(CLAUDE_INTERRUPT_DIR, `${CLAUDE_INTERRUPTED}.jsonl`);
    const typed = readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((j) => j.type === 'user' && JSON.stringify(j).includes('[Request interrupted by user'))!;
    const withContent = (content: unknown, extra: Record<string, unknown> = {}) =>
      JSON.stringify({ ...typed, ...extra, message: { role: 'user', content } });
    expect(transcriptSignalOf(withContent('[Request interrupted by user]'))).toEqual({
      kind: 'interrupt',
      detail: '[Request interrupted by user]',
    });
    expect(
      transcriptSignalOf(withContent([{ type: 'text', text: '[Request interrupted by user for tool use]' }])),
    ).toEqual({ kind: 'interrupt', detail: '[Request interrupted by user for tool use]' });
    // A sub-agent's line, a prompt quoting the marker, a corrupt or partial line: nothing.
    expect(transcriptSignalOf(withContent('[Request interrupted by user]', { isSidechain: true }))).toBe(
      undefined,
    );
    expect(transcriptSignalOf(withContent('why do I see [Request interrupted by user] here?'))).toBe(
      undefined,
    );
    expect(transcriptSignalOf(withContent('[Request interrupted by user]').slice(0, 80))).toBe(undefined);
    expect(transcriptSignalOf('{"type":"agent_turn_outcome","turnId":"t","reason":7}')).toBe(undefined);
    expect(transcriptSignalOf('"agent_turn_outcome"')).toBe(undefined);
  });

  it('Droid outcomes other than completion and interrupt are failed turns', () => {
    const outcome = (reason: string) =>
      transcriptSignalOf(
        JSON.stringify({ type: 'agent_turn_outcome', turnId: 't', reason, resultKind: 'text' }),
      );
    expect(outcome('process_exit')).toEqual({ kind: 'interrupt', detail: 'process_exit' });
    expect(outcome('permission_rejected')).toEqual({ kind: 'turn-end', detail: 'permission_rejected' });
    expect(outcome('spec_handoff')).toEqual({ kind: 'turn-end', detail: 'spec_handoff' });
    expect(outcome('model_usage_exhausted')).toEqual({
      kind: 'turn-failed',
      detail: 'model_usage_exhausted',
    });
  });
});

describe('the transcript transitions of the session state machine', () => {
  /** The recorded hooks of an interrupted session, through the machine, up to the `nth` `upTo` event. */
  function through(dir: string, agent: 'droid' | 'claude', upTo: string, nth = 1): SessionState {
    let state: SessionState | undefined;
    let seen = 0;
    const lines = readFileSync(join(dir, 'hooks.jsonl'), 'utf8').split('\n').filter(Boolean);
    for (const [n, raw] of lines.entries()) {
      const parsed = parseEvent(raw, {}, { now: () => 1000 + n, id: () => `e${n}` }, agent);
      if (!parsed.ok) throw new Error(raw);
      state = nextSessionState(state, parsed.event, 1000 + n);
      if (parsed.event.name === upTo && ++seen === nth) return state;
    }
    throw new Error(`no ${upTo}`);
  }
  const interruptedSession = (upTo: string) => through(INTERRUPT_DIR, 'droid', upTo);

  it('transcript-interrupt: the recorded Claude session, waiting for a permission no hook says was refused', () => {
    const asked = through(CLAUDE_INTERRUPT_DIR, 'claude', 'Notification');
    expect(asked).toMatchObject({ phase: 'waiting', waitingFor: 'permission', transition: 'permission-ask' });
    const signal = { kind: 'interrupt', detail: '[Request interrupted by user for tool use]' } as const;
    expect(transcriptTransition(asked, signal, 5000)).toMatchObject({
      id: CLAUDE_INTERRUPTED,
      phase: 'interrupted',
      transition: 'transcript-interrupt',
    });
    // Its next prompt is the next hook it fired.
    expect(through(CLAUDE_INTERRUPT_DIR, 'claude', 'UserPromptSubmit', 2)).toMatchObject({
      phase: 'working',
      transition: 'prompt',
    });
  });

  it('transcript-interrupt: the recorded Droid session, done by its Stop, was interrupted', () => {
    const asked = interruptedSession('Notification');
    expect(asked).toMatchObject({ phase: 'waiting', waitingFor: 'permission', transition: 'permission-ask' });
    // Droid fires Stop for the interrupted turn, then writes the turn's `cancelled` outcome.
    const stopped = interruptedSession('Stop');
    expect(stopped).toMatchObject({ phase: 'done', transition: 'stop', inTurn: false });
    const moved = transcriptTransition(stopped, { kind: 'interrupt', detail: 'cancelled' }, 5000);
    expect(moved).toMatchObject({
      id: INTERRUPTED,
      phase: 'interrupted',
      transition: 'transcript-interrupt',
      lastEvent: 'transcript',
      since: 5000,
      lastEventAt: 5000,
      inTurn: false,
    });
    // While waiting too (Esc at the prompt, before the Stop is in): interrupted, no longer waiting.
    const fromWaiting = transcriptTransition(asked, { kind: 'interrupt', detail: 'cancelled' }, 5000);
    expect(fromWaiting.phase).toBe('interrupted');
    expect(fromWaiting.waitingFor).toBeUndefined();
    // Twice, or on an ended session: nothing moves.
    expect(transcriptTransition(moved, { kind: 'interrupt', detail: 'cancelled' }, 6000)).toBe(moved);
    const ended = interruptedSession('SessionEnd');
    expect(transcriptTransition(ended, { kind: 'interrupt', detail: 'cancelled' }, 6000)).toBe(ended);
  });

  it('transcript-turn-end and transcript-turn-failed: only a turn under way (no Stop seen) moves', () => {
    const working = interruptedSession('PreToolUse');
    expect(working).toMatchObject({ phase: 'working', inTurn: true });
    expect(transcriptTransition(working, { kind: 'turn-end', detail: 'completed' }, 7000)).toMatchObject({
      phase: 'done',
      transition: 'transcript-turn-end',
      inTurn: false,
      since: 7000,
    });
    expect(transcriptTransition(working, { kind: 'turn-failed', detail: 'error' }, 7000)).toMatchObject({
      phase: 'failed',
      transition: 'transcript-turn-failed',
      failure: 'error',
    });
    // After the Stop (a question asked, or done), the turn's outcome written next changes nothing.
    const stopped = interruptedSession('Stop');
    expect(transcriptTransition(stopped, { kind: 'turn-end', detail: 'completed' }, 7000)).toBe(stopped);
    const asks = { ...stopped, phase: 'waiting' as const, waitingFor: 'question' as const };
    expect(transcriptTransition(asks, { kind: 'turn-end', detail: 'completed' }, 7000)).toBe(asks);
  });
});
