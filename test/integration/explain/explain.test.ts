import { readdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { handOff } from '../../../src/link/client.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startDaemon, type DaemonHandle } from '../../../src/daemon/lifecycle/daemon.js';
import { explainEvent } from '../../../src/explain/explain-event.js';
import { makeDoctorHome, writeJson, type DoctorHome } from '../doctor/doctor-env.js';

let h: DoctorHome;
let daemon: DaemonHandle | undefined;

beforeEach(() => {
  h = makeDoctorHome();
});
afterEach(async () => {
  await daemon?.close();
  daemon = undefined;
  h.cleanup();
});

const cmd = (command: string, more: Record<string, unknown> = {}) => ({ type: 'command', command, ...more });
const payload = (name: string, more: Record<string, unknown> = {}) => ({
  hook_event_name: name,
  session_id: 'sess-1',
  cwd: h.project,
  ...more,
});
const explain = (p: Record<string, unknown>, env = h.env) => explainEvent(p, { env });

describe('explain: commands', () => {
  it('lists what would run, and for every other entry why not', async () => {
    writeJson(h.env.HOOKD_CONFIG!, {
      hooks: {
        PreToolUse: [
          {
            matcher: 'Execute',
            commandRegex: 'rm -rf',
            hooks: [cmd('./guard.sh', { name: 'guard', blocking: true, timeout: 5 })],
          },
          { matcher: 'Create', hooks: [cmd('echo create', { name: 'on-create' })] },
          { matcher: 'Execute', commandRegex: '^git ', hooks: [cmd('echo git')] },
          {
            hooks: [
              cmd('echo off', { name: 'parked', enabled: false }),
              cmd('./log.sh', { blocking: false, context: true }),
            ],
          },
        ],
      },
    });
    const x = await explain(
      payload('PreToolUse', { tool_name: 'Execute', tool_input: { command: 'rm -rf /tmp/x' } }),
    );
    expect(x.event).toMatchObject({
      name: 'PreToolUse',
      sessionId: 'sess-1',
      matcher: { field: 'tool_name', value: 'Execute' },
    });
    expect(x.commands.run).toEqual([
      {
        name: 'guard',
        command: './guard.sh',
        timeoutMs: 5000,
        blocking: true,
        // A blocking command's plain stdout is context, as under the agent (where the event reads it).
        context: true,
        origin: 'user',
      },
      {
        name: './log.sh',
        command: './log.sh',
        timeoutMs: 30_000,
        blocking: false,
        context: true,
        origin: 'user',
      },
    ]);
    expect(x.commands.notRun).toEqual([
      { entry: 1, reason: 'matcher "Create" does not match tool_name "Execute"', commands: ['on-create'] },
      {
        entry: 2,
        reason: 'commandRegex "^git " does not match tool_input.command "rm -rf /tmp/x"',
        commands: ['echo git'],
      },
    ]);
    expect(x.commands.disabled).toEqual(['parked']);
  });

  it('shows an invalid config file as ignored, with its issues', async () => {
    writeJson(h.env.HOOKD_CONFIG!, { hooks: { Stop: [{ hooks: [cmd('x', { timeout: -1 })] }] } });
    const x = await explain(payload('Stop'));
    const user = x.config.files.find((f) => f.level === 'user')!;
    expect(user.ok).toBe(false);
    expect(user.issues[0]!.path).toBe('hooks.Stop[0].hooks[0].timeout');
    expect(x.commands.run).toEqual([]);
  });

  it('writes nothing: no config cache, no spool, no daemon started', async () => {
    writeJson(h.env.HOOKD_CONFIG!, { hooks: { Stop: [{ hooks: [cmd(`touch ${h.root}/ran`)] }] } });
    const before = readdirSync(h.root, { recursive: true }).sort();
    const x = await explain(payload('Stop'));
    expect(x.commands.run).toHaveLength(1);
    expect(readdirSync(h.root, { recursive: true }).sort()).toEqual(before);
  });

  it('says when HOOKD=0 turns everything off', async () => {
    const x = await explain(payload('Stop'), { ...h.env, HOOKD: '0' });
    expect(x.disabled).toBe('HOOKD=0 is set: hookd would do nothing for this event');
  });
});

describe('explain: notification rules', () => {
  it('uses the built-in rules when none are written', async () => {
    const x = await explain(payload('Stop'));
    expect(x.notifications.builtInRules).toBe(true);
    expect(x.notifications.fire).toEqual([
      expect.objectContaining({
        rule: 'default: finished',
        channels: ['desktop'],
        title: 'project: finished',
        coalesced: false,
      }),
    ]);
    expect(x.notifications.notFire).toEqual([
      {
        rule: 'default: needs you',
        index: 0,
        reason: 'filter: event Stop is not one of Notification, PermissionRequest',
      },
      { rule: 'default: failed', index: 2, reason: 'filter: event Stop is not one of StopFailure' },
    ]);
    expect(x.notifications.noiseState).toEqual({
      consulted: false,
      note: 'cooldown/dedupe state not consulted: daemon not running',
    });
  });

  it('gives the reason of every filter that rejects the event', async () => {
    writeJson(h.env.HOOKD_CONFIG!, {
      notify: {
        channels: {
          team: { type: 'slack', webhookUrl: '${SLACK_WEBHOOK_URL}' },
          parked: { type: 'webhook', url: 'http://127.0.0.1:9/x', enabled: false },
        },
        rules: [
          {
            name: 'permissions',
            on: 'Notification',
            notificationType: 'permission_prompt',
            channels: ['team'],
          },
          { name: 'elsewhere', on: 'Notification', project: '~/work/**', channels: ['team'] },
          { name: 'off', on: 'Notification', enabled: false, channels: ['team'] },
          { name: 'sub-agents', on: 'Notification', session: 'subagent', channels: ['team'] },
          { name: 'idle', on: 'Notification', notificationType: 'idle_prompt', channels: ['team', 'parked'] },
        ],
      },
    });
    const x = await explain(
      payload('Notification', { notification_type: 'idle_prompt', message: 'waiting' }),
    );
    expect(x.notifications.builtInRules).toBe(false);
    expect(x.notifications.notFire).toEqual([
      {
        rule: 'permissions',
        index: 0,
        reason: 'filter: notification_type idle_prompt is not one of permission_prompt',
      },
      { rule: 'elsewhere', index: 1, reason: `filter: project ${h.project} does not match ~/work/**` },
      { rule: 'off', index: 2, reason: 'rule disabled (enabled: false)' },
      { rule: 'sub-agents', index: 3, reason: 'filter: session is a main session (rule wants subagent)' },
    ]);
    expect(x.notifications.fire).toHaveLength(1);
    expect(x.notifications.fire[0]!.channelProblems).toEqual([
      'team: SLACK_WEBHOOK_URL not set here, so it cannot deliver',
      'parked: disabled (enabled: false), nothing is sent there',
    ]);
  });

  it('shows quiet hours, urgent exceptions and coalescing', async () => {
    writeJson(h.env.HOOKD_CONFIG!, {
      notify: {
        rules: [
          { name: 'done', on: 'SubagentStop', channels: ['desktop'] },
          { name: 'urgent', on: 'SubagentStop', urgency: 'critical', channels: ['desktop'] },
        ],
        quietHours: { windows: [{ start: '00:00', end: '00:00' }] },
      },
    });
    const x = await explain(payload('SubagentStop', { task_name: 'lint' }));
    const [done, urgent] = x.notifications.fire;
    expect(done!.heldUntil).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(done!.coalesced).toBe(true);
    expect(urgent!.heldUntil).toBeUndefined();
  });

  it('says when notifications are off altogether', async () => {
    writeJson(h.env.HOOKD_CONFIG!, { notify: { enabled: false } });
    const off = await explain(payload('Stop'));
    expect(off.notifications.fire).toEqual([]);
    expect(off.notifications.notFire.map((s) => s.reason)).toEqual([
      'notify.enabled is false',
      'notify.enabled is false',
      'notify.enabled is false',
    ]);
    writeJson(h.env.HOOKD_CONFIG!, {});
    const noDaemon = await explain(payload('Stop'), { ...h.env, HOOKD_DAEMON: '0' });
    expect(noDaemon.notifications.off).toContain('HOOKD_DAEMON=0');
  });

  it("consults the running daemon's noise state: a notification it just sent explains as a duplicate", async () => {
    const received: string[] = [];
    const server = createServer((req, res) => {
      req.on('data', (d: Buffer) => received.push(d.toString()));
      req.on('end', () => res.end('ok'));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/in`;
    try {
      const notify = {
        channels: { ops: { type: 'webhook', url } },
        rules: [{ name: 'finished', on: 'Stop', channels: ['ops'], title: 'done in {{project}}' }],
      };
      writeJson(h.env.HOOKD_CONFIG!, { notify });
      const before = await explain(payload('Stop'));
      expect(before.notifications.fire.map((f) => f.rule)).toEqual(['finished']);
      daemon = await startDaemon({ env: h.env, config: { notify }, watchConfig: false });
      const event = {
        id: 'e-1',
        receivedAt: Date.now(),
        agent: 'droid' as const,
        name: 'Stop',
        sessionId: 'sess-1',
        cwd: h.project,
        payload: payload('Stop'),
      };
      const ack = await handOff(
        { v: 1, type: 'event', event, results: [] },
        { env: h.env, autoStart: false, timeoutMs: 5000 },
      );
      expect(ack.outcome).toBe('acked');
      for (let i = 0; i < 500 && received.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
      expect(received).toHaveLength(1);
      const after = await explain(payload('Stop'));
      expect(after.notifications.noiseState).toEqual({
        consulted: true,
        note: 'cooldown/dedupe state of the running daemon consulted',
      });
      expect(after.notifications.fire).toEqual([]);
      expect(after.notifications.notFire).toEqual([
        expect.objectContaining({ rule: 'finished', reason: expect.stringMatching(/^dedupe/) }),
      ]);
    } finally {
      server.close();
    }
  });
});
