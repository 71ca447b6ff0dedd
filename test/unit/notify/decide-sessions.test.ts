import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { notifySettings, type NotifyConfig } from '../../../src/config/notify-schema.js';
import { parseEvent } from '../../../src/events/parse.js';
import type { HookEvent } from '../../../src/events/types.js';
import { answer, decide, type Decision, type NotifyEffect } from '../../../src/notify/decide.js';
import type { PresenceState, WaitingAsk } from '../../../src/notify/escalation.js';
import { createNoiseState, observeEvent, recordSent } from '../../../src/notify/noise.js';
import type { Delivery, Ladder } from '../../../src/notify/records.js';
import { observeSession, type SessionTable } from '../../../src/notify/session-state.js';
import {
  CLAUDE_FIXTURES_DIR,
  CLAUDE_SCENARIOS,
  recordedClaudeEvents,
} from '../../helpers/claude-recorded.js';
import { droidFixtures, FIXTURES_DIR } from '../../helpers/fixtures.js';

const START = 1_795_444_900_000;
/** The recorded events, two seconds apart on the fake clock. */
const STEP = 2000;

interface Recorded {
  file: string;
  event: HookEvent;
}

function parsed(raw: string, file: string, n: number, agent?: 'droid'): Recorded {
  const p = parseEvent(raw, {}, { now: () => START + n * STEP, id: () => file }, agent);
  if (!p.ok) throw new Error(`${file}: ${p.detail}`);
  return { file, event: p.event };
}

function droidSession(mode: 'exec' | 'jsonrpc'): Recorded[] {
  return droidFixtures()
    .filter((f) => f.mode === mode)
    .map((f, n) => parsed(f.raw, f.file.split('/')[1]!, n, 'droid'));
}

function hooksJsonl(path: string, agent?: 'droid'): Recorded[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line, n) => {
      const name = (JSON.parse(line) as { hook_event_name: string }).hook_event_name;
      return parsed(line, `${String(n + 1).padStart(2, '0')}-${name}`, n, agent);
    });
}

function claudeSession(scenario: (typeof CLAUDE_SCENARIOS)[number]): Recorded[] {
  return recordedClaudeEvents(scenario, { startMs: START, stepMs: STEP }).map((e) => ({
    file: e.file.replace(/\.json$/, ''),
    event: e.event,
  }));
}

function describeEffect(e: NotifyEffect, at: number): string | undefined {
  const to = (ds: readonly Delivery[]) => ds.map((d) => d.channel).join('+');
  switch (e.t) {
    case 'remember':
      return undefined;
    case 'escalate':
      return `escalate "${e.ladder.rule}" ${e.ladder.steps.map((s) => `+${s.afterMs / 1000}s ${s.channels.join('+')}`).join(', ')}`;
    case 'hold':
      return `hold ${to(e.deliveries)} "${e.deliveries[0]!.notification.title}" until +${(e.until - at) / 1000}s`;
    case 'coalesce':
      return `coalesce ${e.fired.channels.join('+')} "${e.fired.rule}"`;
    case 'send':
      return `${e.deferred ? 'defer' : 'send'} ${to(e.deliveries)} "${e.deliveries[0]!.notification.title}"`;
  }
}

/**
 * Feeds a recorded session event by event through decide, as the daemon does: the session table and the
 * noise memory move with each event, held "waiting" notifications are released when their time comes;
 * what each event answers (held ones cancelled, shown ones resolved, ladders stopped) comes from answer(). One line per event that decided something.
 */
function run(events: readonly Recorded[], notify: NotifyConfig, presence?: PresenceState): string[] {
  const sessions: SessionTable = new Map();
  const noise = createNoiseState();
  let held: Delivery[] = [];
  let shown: Delivery[] = [];
  let ladders: Ladder[] = [];
  const asks = new Map<string, WaitingAsk>();
  const lines: string[] = [];
  for (const { file, event } of events) {
    const at = event.receivedAt;
    const out: string[] = [];
    const due = held.filter((d) => d.heldUntil! <= at);
    if (due.length > 0) out.push(`release ${due.map((d) => d.channel).join('+')}`);
    shown.push(...due);
    held = held.filter((d) => d.heldUntil! > at);
    const before = event.sessionId ? sessions.get(event.sessionId) : undefined;
    observeEvent(noise, event, at);
    const state = observeSession(sessions, event, at);
    const sid = event.sessionId;
    if (sid) {
      const a = answer({
        event,
        held: held.filter((d) => d.waiting?.session === sid),
        ladders: ladders.filter((l) => l.session === sid),
        shown: shown.filter((d) => d.waiting?.session === sid),
        lastAsk: asks.get(sid),
        wasWaiting: before?.phase === 'waiting',
      });
      if (a.cancel.length > 0) out.push(`cancel ${a.cancel.map((d) => d.channel).join('+')}`);
      if (a.resolve.length > 0) out.push(`resolve ${a.resolve.map((d) => d.channel).join('+')}`);
      for (const kind of ['answered', 'ended'] as const)
        if (a.halt[kind].length > 0) out.push(`stop ladder (${kind})`);
      if (a.how) out.push(`tell ${a.how}`);
      held = held.filter((d) => !a.cancel.includes(d));
      shown = shown.filter((d) => !a.resolve.includes(d));
      ladders = ladders.filter((l) => !a.halt.answered.includes(l) && !a.halt.ended.includes(l));
      if (a.ask === 'forget') asks.delete(sid);
      else if (a.ask !== 'keep') asks.set(sid, a.ask);
    }
    const input = {
      event,
      enrichment: {},
      notify,
      noise,
      session: event.sessionId ? sessions.get(event.sessionId) : undefined,
      sessionFailed: state?.transition === 'stop-failure' || state?.transition === 'ended-mid-turn',
      at,
    };
    let decision = decide(input);
    if ('needs' in decision) {
      out.push(`(reads presence: ${presence ?? 'unknown'})`);
      decision = decide({ ...input, presence: presence ?? 'unknown' }) as Decision;
    }
    for (const e of decision.effects) {
      if (e.t === 'remember') recordSent(noise, e.sent, at);
      if (e.t === 'hold') held.push(...e.deliveries);
      if (e.t === 'send') shown.push(...e.deliveries.filter((d) => d.waiting));
      if (e.t === 'escalate') ladders.push(e.ladder);
      const text = describeEffect(e, at);
      if (text) out.push(text);
    }
    for (const s of decision.evaluation.skipped)
      if (!s.reason.startsWith('filter:') && !s.reason.startsWith('rule disabled'))
        out.push(`skip "${s.rule}": ${s.reason}`);
    if (out.length > 0) lines.push(`${file} [${state?.phase ?? '-'}]: ${out.join('; ')}`);
  }
  return lines;
}

const DEFAULTS = notifySettings({});
const AT_ONCE = notifySettings({ waitingDelayMs: 0 });
/** Quiet all day in any time zone: the recordings run at 14:41 UTC, never at a local 23:59. */
const QUIET = notifySettings({ quietHours: { windows: [{ start: '00:00', end: '23:59' }] } });
const LADDER = notifySettings({
  channels: {
    phone: { type: 'ntfy', topic: 'hookd-test-topic' },
  },
  rules: [
    {
      name: 'needs you',
      on: ['Notification', 'PermissionRequest'],
      channels: ['desktop', 'phone'],
      escalate: [{ after: '5m', channels: ['phone'] }],
    },
    { name: 'finished', on: 'Stop', session: 'main', channels: ['desktop', 'phone'] },
  ],
});

describe('decide over recorded sessions of both agents (fake clock, no daemon)', () => {
  const cases: [string, () => Recorded[]][] = [
    ['Droid 0.225.2 exec', () => droidSession('exec')],
    ['Droid 0.225.2 jsonrpc', () => droidSession('jsonrpc')],
    [
      'Droid 0.225.2 permission prompt interrupted',
      () => hooksJsonl(join(FIXTURES_DIR, '..', 'droid-0.225.2-interrupt', 'hooks.jsonl'), 'droid'),
    ],
    ...CLAUDE_SCENARIOS.map((s): [string, () => Recorded[]] => [
      `Claude Code 2.1.330 ${s}`,
      () => claudeSession(s),
    ]),
    [
      'Claude Code 2.1.330 permission prompt interrupted',
      () => hooksJsonl(join(CLAUDE_FIXTURES_DIR, '..', 'claude-code-2.1.330-interrupt', 'hooks.jsonl')),
    ],
  ];
  it.each(cases)('%s', (name, events) => {
    const recorded = events();
    const table = {
      defaults: run(recorded, DEFAULTS),
      'waitingDelayMs 0': run(recorded, AT_ONCE),
      'quiet hours': run(recorded, QUIET),
      'ladder, presence active': run(recorded, LADDER, 'active'),
      'ladder, presence idle': run(recorded, LADDER, 'idle'),
    };
    expect(table).toMatchSnapshot(name);
  });

  it('holds a permission ask, cancels it when the tool ran, dedupes the second ask, sends the Stop', () => {
    const lines = run(claudeSession('stream'), DEFAULTS);
    const verbs = lines.map((l) =>
      l
        .split(': ')
        .slice(1)
        .join(': ')
        .replace(/^\(reads presence: \w+\); /, ''),
    );
    expect(verbs.map((v) => v.split(' ')[0])).toEqual(['hold', 'skip', 'cancel', 'send']);
    expect(lines[2]).toMatch(/^09-PostToolUse-Write \[working\]: cancel desktop; tell answered$/);
    expect(lines[1]).toContain('duplicate');
    // Without the delay nothing is held, so nothing waits to be cancelled.
    expect(run(claudeSession('stream'), AT_ONCE).some((l) => l.includes('cancel'))).toBe(false);
  });

  it('is pure: the same input gives the same decision and leaves the noise memory as it was', () => {
    const [start, ...rest] = droidSession('jsonrpc');
    const ask = rest.find((r) => r.event.name === 'Notification')!;
    const noise = createNoiseState();
    observeEvent(noise, start!.event, start!.event.receivedAt);
    const before = JSON.stringify([...noise.sent], null, 0);
    const input = {
      event: ask.event,
      enrichment: {},
      notify: DEFAULTS,
      noise,
      at: ask.event.receivedAt,
      presence: 'unknown' as const,
    };
    const a = decide(input);
    const b = decide(input);
    expect(a).toEqual(b);
    expect(JSON.stringify([...noise.sent], null, 0)).toBe(before);
    expect('effects' in a && a.effects.map((e) => e.t)).toEqual(['remember', 'hold']);
  });

  it('asks for presence only when a fired rule depends on it', () => {
    const ask = droidSession('jsonrpc').find((r) => r.event.name === 'Notification')!;
    const input = { event: ask.event, enrichment: {}, noise: createNoiseState(), at: ask.event.receivedAt };
    expect(decide({ ...input, notify: LADDER })).toEqual({ needs: 'presence' });
    expect('effects' in decide({ ...input, notify: LADDER, presence: 'idle' })).toBe(true);
  });
});
