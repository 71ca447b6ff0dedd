import { cpSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { handOff } from '../../../src/link/client.js';
import { explainEvent } from '../../../src/explain/explain-event.js';
import { createLedger } from '../../../src/ledger/ledger.js';
import type { HookEvent } from '../../../src/events/types.js';
import {
  claudeHomeOf,
  recordedClaudeEvents,
  type ClaudeScenario,
  type RecordedClaudeEvent,
} from '../../helpers/claude-recorded.js';
import { loopbackServer, tempEnv, waitFor } from './helpers.js';
import { ensureBuilt, exited, killQuietly, spawnDaemon, writeConfig } from './process-helpers.js';
import { jsonLines } from '../../helpers/json-lines.js';

interface Posted {
  title: string;
  body: string;
  urgency: string;
  event: string;
  rule: string;
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
beforeAll(() => ensureBuilt());

/**
 * A real `hookd daemon run` process with a webhook stand-in on loopback, and a scenario's recorded
 * Claude Code session store copied to its HOME. With `notify` undefined the daemon runs its default
 * rules; the only channel, named "desktop", is the webhook, so those rules post there.
 */
async function startClaudeDaemon(scenario: ClaudeScenario, notify: Record<string, unknown> = {}) {
  const temp = tempEnv();
  cleanups.push(temp.cleanup);
  const server = await loopbackServer();
  cleanups.push(server.close);
  const claudeHome = join(temp.root, '.claude');
  cpSync(claudeHomeOf(scenario), claudeHome, { recursive: true });
  writeConfig(temp.env, {
    // Delay-then-cancel off (waiting-delay.test.ts tests it): the replayed asks are sent at once.
    notify: {
      channels: { desktop: { type: 'webhook', url: `${server.url}/hook` } },
      waitingDelayMs: 0,
      ...notify,
    },
    enrich: { gitBranch: false },
  });
  const daemon: ChildProcess = await spawnDaemon(temp.env);
  cleanups.push(async () => {
    if (daemon.exitCode === null && daemon.signalCode === null) {
      daemon.kill('SIGTERM');
      const timer = setTimeout(() => killQuietly(daemon.pid), 10_000);
      await exited(daemon);
      clearTimeout(timer);
    }
  });
  const events = recordedClaudeEvents(scenario, { claudeHome, startMs: Date.UTC(2026, 10, 23, 14, 0) });
  let sent = 0;
  const send = async (list: readonly RecordedClaudeEvent[] | HookEvent[]) => {
    for (const item of list) {
      const event = 'event' in item ? item.event : item;
      const result = await handOff(
        { v: 1, type: 'event', event, results: [] },
        { env: temp.env, timeoutMs: 5000 },
      );
      expect(result.outcome).toBe('acked');
      sent++;
    }
  };
  const status = async () => {
    const { requestDaemon } = await import('../../../src/link/client.js');
    const reply = await requestDaemon({ v: 1, type: 'status' }, { env: temp.env, timeoutMs: 2000 });
    return reply.ok
      ? (reply.reply.status as { events: { processed: number }; outbox: { pending: number } })
      : undefined;
  };
  /** Waits until every event sent was processed and every notification delivered. */
  const settled = async () => {
    await waitFor(
      async () => {
        const s = await status();
        return s && s.events.processed === sent && s.outbox.pending === 0;
      },
      20_000,
      `${sent} events processed and delivered`,
    );
  };
  // The notifications posted (not the `resolved` events of answered ones, docs/sessions.md).
  const posted = () =>
    server.received
      .map((r) => (r.json as { notification?: Posted }).notification)
      .filter((n): n is Posted => n !== undefined);
  const logRecords = () => jsonLines(join(temp.env.HOOKD_STATE_DIR!, 'logs', 'daemon.log'));
  const ledger = createLedger({ dataDir: temp.env.HOOKD_DATA_DIR! });
  /** The ledger's records, once there is one. */
  const recorded = () =>
    waitFor(async () => {
      const list = await ledger.list();
      return list.length > 0 && list;
    });
  return { env: temp.env, events, send, settled, posted, logRecords, recorded };
}

describe('Claude Code sessions through the real daemon (recorded 2.1.330 events, default rules)', () => {
  it('TUI run: one "needs your permission" for PermissionRequest + Notification, no "finished" while a background task runs, and the ledger record', async () => {
    const t = await startClaudeDaemon('tui');
    const upTo = (prefix: string) => t.events.findIndex((e) => e.file.startsWith(prefix));
    // Up to the PermissionRequest: the daemon notifies it.
    await t.send(t.events.slice(0, upTo('07-') + 1));
    await t.settled();
    expect(t.posted().map((n) => n.title)).toEqual(['Needs your permission: Write']);
    // `hookd explain` of the Notification that follows about 6 s later says it would be a duplicate.
    const notification = t.events[upTo('08-')]!;
    const explained = await explainEvent(JSON.parse(notification.raw) as Record<string, unknown>, {
      env: { ...t.env, ...notification.env },
    });
    expect(explained.notifications.fire).toEqual([]);
    expect(explained.notifications.notFire).toContainEqual({
      rule: 'default: needs you',
      index: 0,
      reason: expect.stringMatching(
        /^duplicate: this rule notified the PermissionRequest for Write of this session [\d.]+m?s ago/,
      ) as string,
    });
    await t.send(t.events.slice(upTo('08-')));
    await t.settled();

    const posted = t.posted();
    expect(posted.map((n) => `${n.event}: ${n.title}`)).toEqual([
      'PermissionRequest: Needs your permission: Write',
      'Stop: Finished: Run the shell command echo hi, then create the file hook-demo.txt, then ask a… in demo',
      'Notification: Waiting for your input',
    ]);
    expect(posted[1]!.body).toContain('All done: ran `echo hi`, created hook-demo.txt and ran a sub-agent.');
    expect(posted[1]!.body).toContain('90 tokens');

    const evaluated = t.logRecords().filter((r) => r.msg === 'rules evaluated');
    const byId = (prefix: string) =>
      evaluated.find((r) => r.eventId === `tui-${t.events[upTo(prefix)]!.file}`);
    expect(byId('08-')?.skipped).toContainEqual(
      expect.stringMatching(
        /^default: needs you: duplicate: this rule notified the PermissionRequest for Write/,
      ),
    );
    expect(byId('17-')?.skipped).toContainEqual(
      'default: finished: held: Stop with 1 background task(s) still running (Tiny sub task): the turn paused, the work is not finished; the Stop after them notifies',
    );

    const sessionId = t.events[0]!.event.sessionId!;
    const records = await t.recorded();
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      sessionId,
      agent: 'claude',
      isSubagent: false,
      project: '/home/dev/projects/demo',
      projectName: 'demo',
      reason: 'prompt_input_exit',
      durationMs: (t.events.length - 1) * 1000,
      messageCount: 13,
      promptCount: 1,
      model: 'claude-opus-5-5',
      tokens: { input: 60, output: 30, cacheRead: 0, cacheWrite: 0, thinking: 0, total: 90 },
      toolCalls: { Bash: 1, Write: 1, Agent: 1 },
      // The sub-agent, not the two forks of /compact.
      subagentCount: 1,
      eventCount: t.events.length,
    });
  });

  it('extras run: the StopFailure is an urgent "failed" notification with the error and the last message; the ledger keeps the project dir while cwd followed cd', async () => {
    const t = await startClaudeDaemon('extras');
    // End the session while the agent is in sub/ (after `cd sub`): the payload's cwd follows cd,
    // CLAUDE_PROJECT_DIR does not.
    const inSub = t.events.filter((e) => e.event.cwd === '/home/dev/projects/demo/sub');
    expect(inSub.length).toBeGreaterThan(0);
    await t.send(t.events);
    await t.settled();
    const failed = t.posted().filter((n) => n.event === 'StopFailure');
    expect(failed).toEqual([
      expect.objectContaining({
        title:
          'Failed: Run the shell command echo hi, then create the file hook-demo.txt, then ask a… in demo',
        body: 'Error: unknown\nAPI Error: 400 fake-model-server: scripted error',
        urgency: 'critical',
        rule: 'default: failed',
      }),
    ]);
    const [record] = await t.recorded();
    expect(record).toMatchObject({
      agent: 'claude',
      project: '/home/dev/projects/demo',
      promptCount: 4,
      tokens: { input: 100, output: 50, total: 150 },
      model: 'claude-sonnet-5-5',
    });
  });

  it('a session that ends in a directory it cd-ed into is recorded under its project dir', async () => {
    const t = await startClaudeDaemon('extras');
    const upToSub = t.events.findIndex((e) => e.file.startsWith('16-'));
    const end = t.events.at(-1)!.event;
    const endInSub: HookEvent = {
      ...end,
      cwd: '/home/dev/projects/demo/sub',
      payload: { ...end.payload, cwd: '/home/dev/projects/demo/sub' },
    };
    await t.send(t.events.slice(0, upToSub + 1));
    await t.send([endInSub]);
    await t.settled();
    const [record] = await t.recorded();
    expect(record).toMatchObject({
      project: '/home/dev/projects/demo',
      projectName: 'demo',
      cwd: '/home/dev/projects/demo/sub',
    });
  });

  it("stream run: sub-agent events (the parent's session_id + agent_id) match session: subagent, the others session: main", async () => {
    const t = await startClaudeDaemon('stream', {
      rules: [
        {
          name: 'sub',
          on: ['SubagentStart', 'SubagentStop', 'PreToolUse'],
          session: 'subagent',
          channels: ['desktop'],
          title: 'sub-agent {{event.name}} {{subagent.agentId}} {{tool}}',
        },
        {
          name: 'main',
          on: ['SubagentStart', 'SubagentStop', 'PreToolUse'],
          session: 'main',
          channels: ['desktop'],
          title: 'main {{event.name}} {{tool}}',
        },
      ],
      noise: { dedupeWindowMs: 0, coalesceWindowMs: 0 },
    });
    // A sub-agent's own tool call, as Claude Code sends it ([subagent-tool-payload] in the spec): the
    // recorded Bash call with the sub-agent's agent_id and agent_type added.
    const bash = t.events.find((e) => e.file === '03-PreToolUse-Bash.json')!.event;
    const subagentBash: HookEvent = {
      ...bash,
      id: 'stream-subagent-bash',
      payload: { ...bash.payload, agent_id: 'a705158c88d3ccfa8', agent_type: 'general-purpose' },
    };
    await t.send(t.events);
    await t.send([subagentBash]);
    await t.settled();
    expect(t.posted().map((n) => n.title)).toEqual([
      'main PreToolUse Bash',
      'main PreToolUse Write',
      'main PreToolUse Agent',
      'sub-agent SubagentStart a705158c88d3ccfa8',
      'sub-agent SubagentStop a705158c88d3ccfa8',
      'sub-agent SubagentStop abbc4ecf67111fc16',
      'sub-agent SubagentStop a8c2a69daed8d0eac',
      'sub-agent PreToolUse a705158c88d3ccfa8 Bash',
    ]);
    expect(existsSync(join(t.env.HOOKD_DATA_DIR!, 'ledger', 'sessions.jsonl'))).toBe(true);
  });
});
