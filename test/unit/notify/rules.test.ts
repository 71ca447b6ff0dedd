import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { evaluateRules } from '../../../src/notify/rules.js';
import { createNoiseState, observeEvent, recordSent } from '../../../src/notify/noise.js';
import { notifySettings } from '../../../src/config/schemas/notify-schema.js';
import type { HookEvent } from '../../../src/events/types.js';
import { FIXTURES_DIR } from '../../helpers/fixtures.js';
import { join } from 'node:path';

const FIXTURES = join(FIXTURES_DIR, 'jsonrpc');
function event(file: string, extra: Record<string, unknown> = {}, id = file): HookEvent {
  const payload = {
    ...(JSON.parse(readFileSync(`${FIXTURES}/${file}`, 'utf8')) as Record<string, unknown>),
    ...extra,
  };
  return {
    id,
    receivedAt: 1_000_000,
    agent: 'droid',
    name: String(payload.hook_event_name),
    sessionId: String(payload.session_id),
    cwd: String(payload.cwd),
    payload,
  };
}
const NOW = 2_000_000;

describe('evaluateRules', () => {
  it('without rules: the defaults notify "needs your permission" and a main session\'s Stop on the desktop', () => {
    const config = notifySettings({});
    const permission = evaluateRules(event('04-Notification.json'), {}, config, createNoiseState(), NOW);
    expect(permission.builtInRules).toBe(true);
    expect(permission.fired).toHaveLength(1);
    expect(permission.fired[0]!.channels).toEqual(['desktop']);
    expect(permission.fired[0]!.notification).toMatchObject({
      title: 'demo: needs your permission',
      body: 'Factory CLI needs permission to execute 1 tool(s)',
    });
    const stop = evaluateRules(event('16-Stop.json'), {}, config, createNoiseState(), NOW);
    expect(stop.fired.map((f) => f.notification.title)).toEqual(['demo: finished']);
  });

  it("skips a sub-agent's Stop with the default rules, and says why", () => {
    const noise = createNoiseState();
    observeEvent(noise, event('10-SessionStart-startup.json'), NOW);
    const result = evaluateRules(event('12-Stop.json'), {}, notifySettings({}), noise, NOW);
    expect(result.fired).toEqual([]);
    expect(result.skipped).toContainEqual({
      rule: 'default: finished',
      index: 1,
      reason: 'filter: session is a sub-agent (rule wants main)',
    });
  });

  it('filters on tool, notification type, project glob, duration and SessionEnd reason, explaining each miss', () => {
    const config = notifySettings({
      channels: { ops: { type: 'webhook', url: 'http://127.0.0.1:1/' } },
      rules: [
        { name: 'edits', on: 'PreToolUse', tool: 'Edit|Create', channels: ['ops'] },
        { name: 'idle', on: 'Notification', notificationType: 'idle_prompt', channels: ['ops'] },
        { name: 'work', on: 'Stop', project: '~/work/**', channels: ['ops'] },
        { name: 'long', on: 'Stop', minDurationMs: 60_000, channels: ['ops'] },
        { name: 'logout', on: 'SessionEnd', reason: ['logout', 'clear'], channels: ['ops'] },
      ],
    });
    const why = (e: HookEvent, rule: string) =>
      evaluateRules(e, {}, config, createNoiseState(), NOW, { home: '/home/dev' }).skipped.find(
        (s) => s.rule === rule,
      )?.reason;
    expect(why(event('03-PreToolUse-Execute.json'), 'edits')).toBe(
      'filter: tool Execute does not match Edit|Create',
    );
    expect(why(event('06-PreToolUse-Create.json'), 'edits')).toBeUndefined();
    expect(why(event('04-Notification.json'), 'idle')).toBe(
      'filter: notification_type permission_prompt is not one of idle_prompt',
    );
    expect(why(event('16-Stop.json'), 'work')).toBe(
      'filter: project /home/dev/projects/demo does not match ~/work/**',
    );
    expect(why(event('16-Stop.json', { cwd: '/home/dev/work/api/src' }), 'work')).toBeUndefined();
    expect(why(event('16-Stop.json'), 'long')).toBe('filter: duration 1207ms is under minDurationMs 60000');
    expect(why(event('19-SessionEnd.json'), 'logout')).toBe(
      'filter: reason other is not one of logout, clear',
    );
  });

  it('renders templates from event, payload and enrichment fields', () => {
    const config = notifySettings({
      rules: [
        {
          on: 'Stop',
          channels: ['desktop'],
          title: '{{session.title | default:"untitled"}} ({{project | upper}})',
          body: '{{lastMessage | truncate:12}} after {{duration}}',
          urgency: 'critical',
          sound: 'bell',
        },
      ],
    });
    const [fired] = evaluateRules(
      event('16-Stop.json'),
      { session: { title: 'Fix the build' }, lastMessage: 'All 42 tests pass now.' },
      config,
      createNoiseState(),
      NOW,
    ).fired;
    expect(fired!.notification).toMatchObject({
      title: 'Fix the build (DEMO)',
      body: 'All 42 test… after 1.2s',
      urgency: 'critical',
      sound: 'bell',
    });
  });

  it('dedupes identical notifications inside the window, and applies per-session cooldowns', () => {
    const config = notifySettings({
      rules: [{ name: 'r', on: 'Notification', channels: ['desktop'], cooldownMs: 60_000 }],
      noise: { dedupeWindowMs: 10_000 },
    });
    const noise = createNoiseState();
    const first = evaluateRules(event('04-Notification.json'), {}, config, noise, NOW);
    expect(first.fired).toHaveLength(1);
    recordSent(
      noise,
      first.fired.map((f) => ({ dedupeKey: f.dedupeKey, cooldownKey: f.cooldownKey!, idle: false })),
      NOW,
    );
    expect(
      evaluateRules(event('07-Notification.json'), {}, config, noise, NOW + 5000).skipped[0]!.reason,
    ).toMatch(/^dedupe: identical notification sent 5.0s ago/);
    const other = event('07-Notification.json', { message: 'a different question' });
    expect(evaluateRules(other, {}, config, noise, NOW + 5000).skipped[0]!.reason).toMatch(
      /^cooldown: this rule fired for the session 5.0s ago/,
    );
    expect(evaluateRules(other, {}, config, noise, NOW + 61_000).fired).toHaveLength(1);
  });

  it('defers notifications during quiet hours, but lets critical ones through when allowed', () => {
    const config = notifySettings({
      rules: [
        { name: 'normal', on: 'Stop', channels: ['desktop'] },
        { name: 'urgent', on: 'Stop', channels: ['desktop'], urgency: 'critical' },
      ],
      quietHours: { windows: [{ start: '22:00', end: '07:00' }] },
    });
    const night = new Date(2026, 0, 5, 23, 30).getTime();
    const fired = evaluateRules(event('16-Stop.json'), {}, config, createNoiseState(), night).fired;
    expect(fired.map((f) => [f.rule, f.deferred ?? null])).toEqual([
      ['normal', 'quiet hours'],
      ['urgent', null],
    ]);
    expect(fired[0]!.quietEndsAt).toBe(new Date(2026, 0, 6, 7, 0).getTime());
  });

  it('marks coalescible events and reports notify.enabled=false', () => {
    const sub = evaluateRules(
      event('14-SubagentStop.json'),
      {},
      notifySettings({ rules: [{ on: 'SubagentStop', channels: ['desktop'] }] }),
      createNoiseState(),
      NOW,
    );
    expect(sub.fired[0]!.coalesce).toBe(true);
    const off = evaluateRules(
      event('16-Stop.json'),
      {},
      notifySettings({ enabled: false }),
      createNoiseState(),
      NOW,
    );
    expect(off.fired).toEqual([]);
    expect(off.skipped.map((s) => s.reason)).toEqual([
      'notify.enabled is false',
      'notify.enabled is false',
      'notify.enabled is false',
    ]);
  });
});
