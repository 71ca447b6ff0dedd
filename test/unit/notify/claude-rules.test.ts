import { describe, expect, it } from 'vitest';
import { evaluateRules, type RuleEvaluation } from '../../../src/notify/rules.js';
import {
  createNoiseState,
  deserializeNoise,
  observeEvent,
  recordSent,
  serializeNoise,
} from '../../../src/notify/noise.js';
import { notifySettings } from '../../../src/config/schemas/notify-schema.js';
import type { HookEvent } from '../../../src/events/types.js';
import {
  CLAUDE_SCENARIOS,
  recordedClaudeEvents,
  type ClaudeScenario,
} from '../../helpers/claude-recorded.js';

interface Played {
  file: string;
  event: HookEvent;
  result: RuleEvaluation;
}

/** Every event of a recorded scenario through the rules in order, remembering what was sent as the daemon does. */
function play(scenario: ClaudeScenario, notify: Record<string, unknown> = {}): Played[] {
  const config = notifySettings(notify);
  const noise = createNoiseState();
  return recordedClaudeEvents(scenario).map(({ file, event }) => {
    const now = event.receivedAt;
    observeEvent(noise, event, now);
    const result = evaluateRules(event, {}, config, noise, now);
    recordSent(
      noise,
      result.fired.map((f) => ({
        dedupeKey: f.dedupeKey,
        idle: event.payload.notification_type === 'idle_prompt',
        ...(event.sessionId ? { sessionId: event.sessionId } : {}),
        ...(f.permissionAsk ? { permissionAsk: f.permissionAsk } : {}),
      })),
      now,
    );
    return { file, event, result };
  });
}

const fired = (played: Played[]) =>
  played.flatMap((p) => p.result.fired.map((f) => `${p.file}: ${f.rule}: ${f.notification.title}`));

describe('the default rules over every recorded Claude Code 2.1.330 scenario', () => {
  it.each(CLAUDE_SCENARIOS)('%s: every event goes through the rules without a throw', (scenario) => {
    const played = play(scenario);
    expect(played.length).toBeGreaterThan(0);
    for (const p of played)
      expect(p.result.facts.sessionKind).toBe(p.event.payload.agent_id ? 'subagent' : 'main');
  });

  it('the TUI run: PermissionRequest notifies once, the paused Stop is held, the real finish and the idle prompt notify', () => {
    const played = play('tui');
    expect(fired(played)).toEqual([
      '07-PermissionRequest-Write.json: default: needs you: demo: needs your permission',
      '20-Stop.json: default: finished: demo: finished',
      '21-Notification-idle_prompt.json: default: needs you: demo: waiting for your input',
    ]);
    const notification = played.find((p) => p.file.startsWith('08-'))!.result;
    expect(notification.skipped).toContainEqual({
      rule: 'default: needs you',
      index: 0,
      reason:
        'duplicate: this rule notified the PermissionRequest for Write of this session 1.0s ago; this permission_prompt is the same request',
    });
    const paused = played.find((p) => p.file === '17-Stop.json')!.result;
    expect(paused.skipped).toContainEqual({
      rule: 'default: finished',
      index: 1,
      reason:
        'held: Stop with 1 background task(s) still running (Tiny sub task): the turn paused, the work is not finished; the Stop after them notifies',
    });
  });

  it('the stream-json run: PermissionRequest notifies, its permission_prompt 6 s later does not, the Stop does', () => {
    expect(fired(play('stream'))).toEqual([
      '07-PermissionRequest-Write.json: default: needs you: demo: needs your permission',
      '17-Stop.json: default: finished: demo: finished',
    ]);
  });

  it('the extras run: the StopFailure is a critical "failed" notification with the error and the last message', () => {
    const played = play('extras');
    expect(fired(played)).toEqual([
      '31-Stop.json: default: finished: demo: finished',
      // 35-Stop said "First turn done." again: the same text within the dedupe window.
      '41-StopFailure-unknown.json: default: failed: demo: failed (unknown)',
      '44-Stop.json: default: finished: demo: finished',
    ]);
    expect(played.find((p) => p.file === '35-Stop.json')!.result.skipped[1]!.reason).toMatch(/^dedupe: /);
    const failure = played.find((p) => p.file.startsWith('41-'))!.result.fired[0]!;
    expect(failure.notification).toMatchObject({
      urgency: 'critical',
      body: 'API Error: 400 fake-model-server: scripted error',
      event: 'StopFailure',
    });
  });

  it('print and auto: one "finished" each', () => {
    expect(fired(play('print'))).toEqual(['15-Stop.json: default: finished: demo: finished']);
    expect(fired(play('auto'))).toEqual(['07-Stop.json: default: finished: demo: finished']);
  });

  it('a permission_prompt for another tool than the notified PermissionRequest is not a duplicate', () => {
    const config = notifySettings({});
    const noise = createNoiseState();
    const events = recordedClaudeEvents('stream').map((r) => r.event);
    const request = events.find((e) => e.name === 'PermissionRequest')!;
    observeEvent(noise, request, 1);
    const first = evaluateRules(request, {}, config, noise, 1);
    recordSent(
      noise,
      first.fired.map((f) => ({
        dedupeKey: f.dedupeKey,
        idle: false,
        sessionId: request.sessionId!,
        permissionAsk: f.permissionAsk!,
      })),
      1,
    );
    const notification = events.find((e) => e.name === 'Notification')!;
    const other = {
      ...notification,
      payload: { ...notification.payload, message: 'Claude needs your permission to use Bash' },
    };
    observeEvent(noise, other, 2);
    expect(evaluateRules(other, {}, config, noise, 2).fired).toHaveLength(1);
    // Once the tool ran (answered), a later ask is news again.
    const post = events.find((e) => e.name === 'PostToolUse' && e.payload.tool_name === 'Write')!;
    observeEvent(noise, post, 3);
    observeEvent(noise, notification, 4);
    expect(evaluateRules(notification, {}, config, noise, 4).fired).toHaveLength(1);
  });
});

describe('rule filters with Claude semantics', () => {
  it('session: subagent fires for the events that carry agent_id, and main for the others', () => {
    const played = play('stream', {
      channels: { ops: { type: 'webhook', url: 'http://127.0.0.1:1/' } },
      rules: [
        {
          name: 'sub',
          on: '*',
          session: 'subagent',
          channels: ['ops'],
          title: '{{event.name}} {{subagent.agentId}}',
        },
      ],
      noise: { dedupeWindowMs: 0 },
    });
    expect(played.flatMap((p) => p.result.fired.map((f) => f.notification.title))).toEqual([
      'SubagentStart a705158c88d3ccfa8',
      'SubagentStop a705158c88d3ccfa8',
      'SubagentStop abbc4ecf67111fc16',
      'SubagentStop a8c2a69daed8d0eac',
    ]);
    const main = played.find((p) => p.file === '03-PreToolUse-Bash.json')!.result;
    expect(main.skipped[0]!.reason).toBe('filter: session is a main session (rule wants subagent)');
  });

  it("a sub-agent's own tool call (parent session_id + agent_id) is a sub-agent event", () => {
    const tool = recordedClaudeEvents('stream').find((r) => r.file === '03-PreToolUse-Bash.json')!.event;
    const fromSubagent: HookEvent = {
      ...tool,
      payload: { ...tool.payload, agent_id: 'a705158c88d3ccfa8', agent_type: 'general-purpose' },
    };
    const config = notifySettings({
      channels: { ops: { type: 'webhook', url: 'http://127.0.0.1:1/' } },
      rules: [{ on: 'PreToolUse', session: 'main', channels: ['ops'] }],
    });
    const result = evaluateRules(fromSubagent, {}, config, createNoiseState(), 1);
    expect(result.fired).toEqual([]);
    expect(result.facts.sessionKind).toBe('subagent');
    // Even when the enrichment (of the parent session) says "main".
    expect(
      evaluateRules(fromSubagent, { session: { isSubagent: false } }, config, createNoiseState(), 1).facts
        .sessionKind,
    ).toBe('subagent');
  });

  it('a rule on UserPromptSubmit does not fire for a <task-notification> prompt, and says why', () => {
    const played = play('tui', {
      channels: { ops: { type: 'webhook', url: 'http://127.0.0.1:1/' } },
      rules: [{ name: 'prompts', on: 'UserPromptSubmit', channels: ['ops'], title: '{{promptFrom}}' }],
    });
    expect(fired(played)).toEqual(['02-UserPromptSubmit.json: prompts: person']);
    expect(played.find((p) => p.file === '18-UserPromptSubmit.json')!.result.skipped).toEqual([
      {
        rule: 'prompts',
        index: 0,
        reason:
          'filter: the prompt is a <task-notification> (a background task reporting back), not typed by a person',
      },
    ]);
  });
});

describe('the permission asks in the noise state that `hookd explain` asks the daemon for', () => {
  it('survive the JSON round trip, and malformed parts read as nothing', () => {
    const noise = createNoiseState();
    recordSent(
      noise,
      [{ dedupeKey: 'k', idle: false, sessionId: 's1', permissionAsk: { rule: 'r', tool: 'Write' } }],
      5,
    );
    const back = deserializeNoise(JSON.parse(JSON.stringify(serializeNoise(noise))));
    expect([...back.permissionAsks.get('s1')!]).toEqual([['r', { tool: 'Write', at: 5 }]]);
    const bad = deserializeNoise({ permissionAsks: [['s2', 'x'], ['s3', [['r', { at: 'no' }]]], 7] });
    expect(bad.permissionAsks.size).toBe(0);
  });
});
