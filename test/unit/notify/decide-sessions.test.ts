import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { notifySettings, type NotifyConfig } from '../../../src/config/schemas/notify-schema.js';
import { parseEvent } from '../../../src/events/parse.js';
import type { HookEvent } from '../../../src/events/types.js';
import {
  answer,
  decide,
  transcriptMove,
  type Decision,
  type NotifyEffect,
} from '../../../src/notify/decide.js';
import type { PresenceState, WaitingAsk } from '../../../src/notify/escalation.js';
import { createNoiseState, observeEvent, recordSent } from '../../../src/notify/noise.js';
import type { Delivery, Ladder } from '../../../src/notify/records.js';
import { observeSession, type SessionTable } from '../../../src/notify/session-state.js';
import { transcriptSignalOf, type TranscriptSignal } from '../../../src/notify/transcript-signals.js';
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
      return describeSend(e.deliveries, e.deferred);
    case 'message':
      return `message starts on ${e.post.join('+')}`;
  }
}

/**
 * A rule's notification is sent (or deferred); the session's message is edited (an update) or answered in
 * its thread (the summary).
 */
function describeSend(deliveries: readonly Delivery[], deferred = false): string {
  const kinds = [...new Set(deliveries.map((d) => d.notification.kind))];
  return kinds
    .map((kind) => {
      const of = deliveries.filter((d) => d.notification.kind === kind);
      const verb = kind === 'update' ? 'edit' : kind === 'summary' ? 'reply' : deferred ? 'defer' : 'send';
      return `${verb} ${of.map((d) => d.channel).join('+')} "${of[0]!.notification.title}"`;
    })
    .join('; ');
}

/** A session's transcript, and after which hook event each kind of record it holds is read. */
interface Transcript {
  path: string;
  after: Partial<Record<TranscriptSignal['kind'], string>>;
}

interface RunOptions {
  /** What presence reads when a rule asks for it. */
  presence?: PresenceState;
  /** The channels that keep one message per session. */
  messageChannels?: readonly string[];
  transcript?: Transcript | undefined;
}

function signalsOf(transcript: Transcript | undefined): TranscriptSignal[] {
  if (!transcript) return [];
  return readFileSync(transcript.path, 'utf8')
    .split('\n')
    .flatMap((line) => transcriptSignalOf(line) ?? []);
}

/**
 * Feeds a recorded session event by event through decide, as the daemon does: the session table and the
 * noise memory move with each event, held "waiting" notifications are released when their time comes;
 * what each event answers (held ones cancelled, shown ones resolved, ladders stopped) comes from answer(),
 * and what a transcript record read after an event does from transcriptMove(). One line per event that
 * decided something.
 */
function run(events: readonly Recorded[], notify: NotifyConfig, options: RunOptions = {}): string[] {
  const { presence, messageChannels = [] } = options;
  const sessions: SessionTable = new Map();
  const noise = createNoiseState();
  let held: Delivery[] = [];
  let shown: Delivery[] = [];
  let ladders: Ladder[] = [];
  const asks = new Map<string, WaitingAsk>();
  const signals = signalsOf(options.transcript);
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
      session: sid ? sessions.get(sid) : undefined,
      before,
      messageChannels,
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
      if (e.t === 'message')
        sessions.set(e.session, { ...sessions.get(e.session)!, messageChannels: e.channels });
      const text = describeEffect(e, at);
      if (text) out.push(text);
    }
    for (const s of decision.evaluation.skipped)
      if (!s.reason.startsWith('filter:') && !s.reason.startsWith('rule disabled'))
        out.push(`skip "${s.rule}": ${s.reason}`);
    if (out.length > 0) lines.push(`${file} [${state?.phase ?? '-'}]: ${out.join('; ')}`);
    // The transcript records the watcher reads after this event (one second later on the fake clock).
    for (const signal of signals.filter((g) => options.transcript!.after[g.kind] === file)) {
      const current = sid ? sessions.get(sid) : undefined;
      if (!sid || !current) continue;
      const m = transcriptMove({
        state: current,
        signal,
        held: held.filter((d) => d.waiting?.session === sid),
        shown: shown.filter((d) => d.waiting?.session === sid),
        ladders: ladders.filter((l) => l.session === sid),
        messageChannels,
        at: at + 1000,
      });
      if (!m) {
        lines.push(`  transcript ${signal.kind}: nothing to do`);
        continue;
      }
      if (m.state) sessions.set(sid, m.state);
      const told = [
        ...(m.cancel.length > 0 ? [`cancel ${m.cancel.map((d) => d.channel).join('+')}`] : []),
        ...(m.resolved.length > 0 ? [`resolve ${m.resolved.map((d) => d.channel).join('+')}`] : []),
        ...(m.halt.length > 0 ? ['stop ladder (ended)'] : []),
        ...(m.messages.length > 0 ? [describeSend(m.messages)] : []),
      ];
      held = held.filter((d) => !m.cancel.includes(d));
      shown = shown.filter((d) => !m.resolved.some((r) => r.notification.resolves?.deliveryId === d.id));
      ladders = ladders.filter((l) => !m.halt.includes(l));
      lines.push(
        `  transcript ${signal.kind} [${sessions.get(sid)!.phase}]: ${told.join('; ') || 'the state only'}`,
      );
    }
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
/** A Slack channel that keeps one message per session (`mode: session-message`). */
const SLACK = notifySettings({
  channels: {
    team: {
      type: 'slack',
      botToken: '${SLACK_BOT_TOKEN}',
      channel: '#agents',
      mode: 'session-message',
    },
  },
  rules: [
    { name: 'needs you', on: ['Notification', 'PermissionRequest'], channels: ['desktop', 'team'] },
    { name: 'finished', on: 'Stop', session: 'main', channels: ['team'] },
  ],
});
const SLACK_MESSAGES = { messageChannels: ['team'] };

const DROID_INTERRUPT_DIR = join(FIXTURES_DIR, '..', 'droid-0.225.2-interrupt');
const CLAUDE_INTERRUPT_DIR = join(CLAUDE_FIXTURES_DIR, '..', 'claude-code-2.1.330-interrupt');
/** Droid writes the turn's outcome (`cancelled`) after its Stop hook ran. */
const DROID_TRANSCRIPT: Transcript = {
  path: join(DROID_INTERRUPT_DIR, '2e7aa3df-b62b-4a60-a4f1-a55283d42692.jsonl'),
  after: { interrupt: '05-Stop' },
};
/** Claude Code writes the interrupt while its permission prompt shows, the end of the next turn at its Stop. */
const CLAUDE_TRANSCRIPT: Transcript = {
  path: join(CLAUDE_INTERRUPT_DIR, 'fd3c71a9-e4e7-4219-96e4-248125a3a539.jsonl'),
  after: { interrupt: '05-Notification', 'turn-end': '08-Stop' },
};

describe('decide over recorded sessions of both agents (fake clock, no daemon)', () => {
  const cases: [string, () => Recorded[], Transcript?][] = [
    ['Droid 0.225.2 exec', () => droidSession('exec')],
    ['Droid 0.225.2 jsonrpc', () => droidSession('jsonrpc')],
    [
      'Droid 0.225.2 permission prompt interrupted',
      () => hooksJsonl(join(DROID_INTERRUPT_DIR, 'hooks.jsonl'), 'droid'),
      DROID_TRANSCRIPT,
    ],
    ...CLAUDE_SCENARIOS.map((s): [string, () => Recorded[]] => [
      `Claude Code 2.1.330 ${s}`,
      () => claudeSession(s),
    ]),
    [
      'Claude Code 2.1.330 permission prompt interrupted',
      () => hooksJsonl(join(CLAUDE_INTERRUPT_DIR, 'hooks.jsonl')),
      CLAUDE_TRANSCRIPT,
    ],
  ];
  it.each(cases)('%s', (name, events, transcript) => {
    const recorded = events();
    const table = {
      defaults: run(recorded, DEFAULTS, { transcript }),
      'waitingDelayMs 0': run(recorded, AT_ONCE, { transcript }),
      'quiet hours': run(recorded, QUIET, { transcript }),
      'ladder, presence active': run(recorded, LADDER, { presence: 'active', transcript }),
      'ladder, presence idle': run(recorded, LADDER, { presence: 'idle', transcript }),
      'slack, one message per session': run(recorded, SLACK, { ...SLACK_MESSAGES, transcript }),
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

  it('Slack keeps one message per session: posted with the first rule notification, edited, summed up', () => {
    const session = droidSession('jsonrpc');
    const lines = run(session, SLACK, SLACK_MESSAGES);
    expect(lines[0]).toMatch(
      /^04-Notification\.json \[waiting\]: .*hold desktop\+team .*; message starts on team$/,
    );
    // Answered: the held ask is cancelled; the message shows the new state (no rule notification for it).
    expect(lines[1]).toBe(
      '05-PostToolUse-Execute.json [working]: cancel desktop+team; tell answered; edit team "demo: working"',
    );
    expect(lines).toContain('16-Stop.json [done]: send team "demo: finished"; reply team "Summary: done"');
    expect(lines.at(-1)).toBe(
      '19-SessionEnd.json [ended]: edit team "demo: ended"; reply team "Summary: ended"',
    );
    expect(lines.filter((l) => l.includes('message starts'))).toHaveLength(1);
    // The Stop's own notification goes to the message: no edit to it for the same event.
    expect(lines.find((l) => l.startsWith('16-Stop'))).not.toContain('edit');
    // Without a channel that keeps one, nothing is edited or summed up.
    const plain = run(session, SLACK);
    expect(plain.some((l) => / (edit|reply) |message starts/.test(l))).toBe(false);
  });

  it('applies what a transcript says that no hook reported: the interrupt and the turn end', () => {
    const claude = hooksJsonl(join(CLAUDE_INTERRUPT_DIR, 'hooks.jsonl'));
    const lines = run(claude, DEFAULTS, { transcript: CLAUDE_TRANSCRIPT });
    const at = lines.findIndex((l) => l.startsWith('  transcript interrupt'));
    expect(lines[at - 1]).toMatch(/^05-Notification \[waiting\]: /);
    // Esc on the permission prompt: the held ask is cancelled before its delay ran out.
    expect(lines[at]).toBe('  transcript interrupt [interrupted]: cancel desktop');
    // The end of a turn its Stop already reported changes nothing.
    expect(lines).toContain('  transcript turn-end: nothing to do');
    // With a ladder, the interrupt stops it too (the ask is over).
    expect(run(claude, LADDER, { presence: 'idle', transcript: CLAUDE_TRANSCRIPT })).toContain(
      '  transcript interrupt [interrupted]: cancel desktop+phone; stop ladder (ended)',
    );
    // Droid writes the cancelled turn after its Stop: the session's message then shows the interrupt.
    const droid = hooksJsonl(join(DROID_INTERRUPT_DIR, 'hooks.jsonl'), 'droid');
    const slack = run(droid, SLACK, { ...SLACK_MESSAGES, transcript: DROID_TRANSCRIPT });
    const after = slack.findIndex((l) => l.startsWith('  transcript'));
    expect(slack[after - 1]).toMatch(/^05-Stop \[done\]: /);
    expect(slack[after]).toBe('  transcript interrupt [interrupted]: edit team "demo: interrupted"');
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
