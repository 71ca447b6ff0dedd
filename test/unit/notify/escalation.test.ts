import { describe, expect, it } from 'vitest';
import {
  answerTo,
  applyPresence,
  describeLadder,
  dueSteps,
  escalatedNotification,
  firingsOf,
  nextDueAt,
  waitingAskOf,
  type LadderStep,
} from '../../../src/notify/escalation.js';
import { notifySchema } from '../../../src/config/schemas/notify-schema.js';
import { mergeProjectNotify } from '../../../src/config/project-notify.js';
import { breaksQuietHours } from '../../../src/notify/quiet-hours.js';

const MIN = 60_000;
const LADDER: LadderStep[] = [
  { afterMs: 5 * MIN, channels: ['slack'] },
  { afterMs: 15 * MIN, channels: ['phone'], repeatMs: 10 * MIN, maxRepeats: 3 },
];

describe('the ladder schedule', () => {
  it('each step once, a repeating one 1 + maxRepeats times (3 by default)', () => {
    expect(firingsOf(LADDER[0]!)).toBe(1);
    expect(firingsOf(LADDER[1]!)).toBe(4);
    expect(firingsOf({ afterMs: 0, channels: ['x'], repeatMs: MIN })).toBe(4);
  });

  it('steps fall due at start + after (+ k * repeat), in order, until all are sent', () => {
    let progress = [0, 0];
    const sent: string[] = [];
    for (let minute = 0; minute <= 120; minute++) {
      for (const d of dueSteps(LADDER, 0, progress, minute * MIN)) {
        sent.push(`${minute}:${d.step}.${d.repeat}`);
        progress = progress.map((p, i) => (i === d.step ? d.sent : p));
      }
    }
    expect(sent).toEqual(['5:0.0', '15:1.0', '25:1.1', '35:1.2', '45:1.3']);
    expect(nextDueAt(LADDER, 0, progress)).toBeUndefined();
  });

  it('sendings missed (the daemon was down, quiet hours) become one: the latest, the others skipped', () => {
    const due = dueSteps(LADDER, 0, [0, 0], 40 * MIN);
    expect(due).toEqual([
      { step: 0, repeat: 0, sent: 1, skipped: 0, dueAt: 5 * MIN },
      { step: 1, repeat: 2, sent: 3, skipped: 2, dueAt: 35 * MIN },
    ]);
    expect(nextDueAt(LADDER, 0, [1, 3])).toBe(45 * MIN);
    expect(dueSteps(LADDER, 0, [1, 3], 44 * MIN)).toEqual([]);
  });

  it('the next due time is the earliest unsent sending', () => {
    expect(nextDueAt(LADDER, 1000, [0, 0])).toBe(1000 + 5 * MIN);
    expect(nextDueAt(LADDER, 1000, [1, 0])).toBe(1000 + 15 * MIN);
    expect(nextDueAt(LADDER, 1000, [1, 1])).toBe(1000 + 25 * MIN);
  });

  it('reads for people, and an escalated notification says how long it waited', () => {
    expect(describeLadder(LADDER)).toBe(
      'slack after 5m00s; phone after 15m00s, then every 10m00s up to 3 times',
    );
    const n = escalatedNotification(
      {
        title: 'demo: needs you',
        body: 'b',
        urgency: 'normal',
        rule: 'r',
        event: 'Notification',
        eventIds: ['e'],
        count: 1,
        at: 0,
        fields: [],
      },
      1,
      2,
      35 * MIN,
    );
    expect(n.title).toBe('Still waiting (35m00s): demo: needs you');
    expect(n.fields).toEqual([{ label: 'Escalation', value: 'step 2, reminder 2' }]);
  });
});

describe('what answers a waiting notification (answerTo)', () => {
  const ev = (name: string, payload: Record<string, unknown> = {}) => ({ name, payload });
  const permission = waitingAskOf(ev('PermissionRequest', { tool_name: 'Write' }));

  it('a permission ask is answered by its own tool only', () => {
    expect(permission).toEqual({ kind: 'permission', tool: 'Write' });
    expect(answerTo(ev('PostToolUse', { tool_name: 'Write' }), permission)).toBe('answered');
    expect(answerTo(ev('PreToolUse', { tool_name: 'Write' }), permission)).toBe('answered');
    expect(answerTo(ev('PermissionDenied', { tool_name: 'Write' }), permission)).toBe('answered');
    expect(answerTo(ev('PostToolUse', { tool_name: 'Execute' }), permission)).toBeUndefined();
    const byId = { kind: 'permission' as const, tool: 'Bash', toolUseId: 'tu1' };
    expect(answerTo(ev('PostToolUse', { tool_name: 'Bash', tool_use_id: 'tu2' }), byId)).toBeUndefined();
    expect(answerTo(ev('PostToolUse', { tool_name: 'Bash', tool_use_id: 'tu1' }), byId)).toBe('answered');
  });

  it("a person's prompt answers anything; a sub-agent, a task notification, a Stop-hook continuation never", () => {
    expect(answerTo(ev('UserPromptSubmit', { prompt: 'go on' }), permission)).toBe('answered');
    expect(
      answerTo(ev('UserPromptSubmit', { prompt: '<task-notification>x</task-notification>' }), permission),
    ).toBeUndefined();
    expect(answerTo(ev('PostToolUse', { tool_name: 'Write', agent_id: 'a1' }), permission)).toBeUndefined();
    expect(
      answerTo(ev('PostToolUse', { tool_name: 'Write', stop_hook_active: true }), permission),
    ).toBeUndefined();
    expect(
      answerTo(ev('Notification', { notification_type: 'idle_prompt' }), { kind: 'other' }),
    ).toBeUndefined();
  });

  it("a sub-agent's permission ask is answered by that sub-agent's tool, not the main session's nor another sub-agent's", () => {
    const sub = waitingAskOf(ev('PermissionRequest', { tool_name: 'Write', agent_id: 'a1' }));
    expect(sub).toEqual({ kind: 'permission', tool: 'Write', agentId: 'a1' });
    expect(answerTo(ev('PostToolUse', { tool_name: 'Write', agent_id: 'a1' }), sub)).toBe('answered');
    expect(answerTo(ev('PostToolUse', { tool_name: 'Write', agent_id: 'a2' }), sub)).toBeUndefined();
    expect(answerTo(ev('PostToolUse', { tool_name: 'Write' }), sub)).toBeUndefined();
    expect(answerTo(ev('SubagentStop', { agent_id: 'a1' }), sub)).toBeUndefined();
    expect(answerTo(ev('UserPromptSubmit', { prompt: 'stop that' }), sub)).toBe('answered');
  });

  it('the session ending ends everything; the turn ending ends a permission ask only', () => {
    expect(answerTo(ev('SessionEnd'), { kind: 'other' })).toBe('ended');
    expect(answerTo(ev('Stop'), permission)).toBe('ended');
    expect(answerTo(ev('Stop'), { kind: 'other' })).toBeUndefined();
    // Any tool answers an ask without details (held before asks were recorded).
    expect(answerTo(ev('PostToolUse', { tool_name: 'Execute' }), undefined)).toBe('answered');
  });

  it("Codex CLI's Interrupt (the user stopped the turn) ends every ask, as an interrupt in a transcript does", () => {
    expect(answerTo(ev('Interrupt'), permission)).toBe('ended');
    expect(answerTo(ev('Interrupt'), { kind: 'other' })).toBe('ended');
  });
});

describe('presence', () => {
  const remote = (c: string) => c !== 'desk';
  it('active: local channels now, the ladder unchanged; idle: the first remote step at once; unknown: as written', () => {
    expect(applyPresence(['desk', 'slack'], LADDER, 'active', remote)).toMatchObject({
      now: ['desk'],
      steps: LADDER,
      applied: 'local-only',
    });
    const idle = applyPresence(['desk'], LADDER, 'idle', remote);
    expect(idle.applied).toBe('remote-at-once');
    expect(idle.steps.map((s) => s.afterMs)).toEqual([0, 15 * MIN]);
    expect(applyPresence(['desk', 'slack'], LADDER, 'unknown', remote)).toMatchObject({
      now: ['desk', 'slack'],
      steps: LADDER,
      applied: 'as-written',
    });
    expect(applyPresence(['desk'], [], 'idle', remote).applied).toBe('as-written');
  });
});

describe('quiet-hours breakthrough', () => {
  const quiet = { windows: [{ start: '22:00', end: '07:00' }], allowUrgent: true, digest: true };
  it("the rule's breakthrough wins; else urgent ones pass when allowUrgent", () => {
    expect(breaksQuietHours(undefined, true, quiet)).toBe(true);
    expect(breaksQuietHours(undefined, true, { ...quiet, allowUrgent: false })).toBe(false);
    expect(breaksQuietHours(undefined, false, quiet)).toBe(false);
    expect(breaksQuietHours(true, false, { ...quiet, allowUrgent: false })).toBe(true);
    expect(breaksQuietHours(false, true, quiet)).toBe(false);
  });
});

describe('the escalate config', () => {
  const parse = (escalate: unknown) =>
    notifySchema.safeParse({
      channels: { slack: { type: 'webhook', url: 'http://x' } },
      rules: [{ on: 'Notification', channels: ['desktop'], escalate }],
    });

  it('takes ms or "30s" / "5m" / "1h" strings', () => {
    const parsed = parse([
      { after: '90s', channels: ['slack'] },
      { after: 300_000, channels: ['slack'], repeat: '1h', maxRepeats: 2 },
    ]);
    expect(parsed.success && parsed.data.rules![0]!.escalate).toEqual([
      { after: 90_000, channels: ['slack'] },
      { after: 300_000, channels: ['slack'], repeat: 3_600_000, maxRepeats: 2 },
    ]);
  });

  it("a project rule's ladder sends to the project's channels under their daemon names", () => {
    const user = notifySchema.parse({ channels: { slack: { type: 'webhook', url: 'http://x' } } });
    const merged = mergeProjectNotify(
      user,
      {
        channels: { team: { type: 'webhook', url: 'http://y' } },
        rules: [
          {
            on: 'Notification',
            channels: ['desktop'],
            escalate: [{ after: '5m', channels: ['team', 'slack'] }],
          },
        ],
      },
      '/p/.hookd/config.json',
      { channelName: (name) => `${name}@p` },
    );
    expect(merged.ok && merged.notify.rules!.at(-1)!.escalate).toEqual([
      { after: 300_000, channels: ['team@p', 'slack'] },
    ]);
  });

  it('rejects unknown channels, steps out of order, bad durations, a repeat under 10 s, maxRepeats alone', () => {
    const issues = (escalate: unknown) =>
      parse(escalate).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`) ?? [];
    expect(issues([{ after: '5m', channels: ['phone'] }])).toEqual([
      'rules.0.escalate.0.channels.0: unknown channel "phone"',
    ]);
    expect(
      issues([
        { after: '5m', channels: ['slack'] },
        { after: '1m', channels: ['slack'] },
      ])[0],
    ).toContain('steps go in order');
    expect(issues([{ after: '5 minutes', channels: ['slack'] }])[0]).toContain('rules.0.escalate.0.after');
    expect(issues([{ after: '5m', channels: ['slack'], repeat: '5s' }])[0]).toContain(
      'repeat at most every 10s',
    );
    expect(issues([{ after: '5m', channels: ['slack'], maxRepeats: 2 }])[0]).toContain(
      'maxRepeats needs repeat',
    );
  });
});
