import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { outboxAction } from '../../src/daemon/admin.js';
import { describeWithAgent } from '../harness/availability.js';
import type { ClaudeRun } from '../harness/claude/run-claude.js';
import { claudeTestbed, type ClaudeTestbed } from '../harness/claude/testbed.js';
import { jsonLines } from '../helpers/json-lines.js';
import { loopbackServer, waitFor } from '../integration/daemon/helpers.js';

// Esc at a permission prompt of the REAL Claude Code 2.1.330 fires no hook: the only sign is the
// "[Request interrupted by user for tool use]" line of its transcript. The stream-json driver answers the
// Write's permission prompt, once its Notification hook has run, with an `interrupt` control request
// (what Esc does); a real daemon, started here, holds the "needs your permission" notifications
// (notify.waitingDelayMs far longer than the test) and must cancel them from the transcript alone.

describeWithAgent('claude', 'an interrupt no hook reports, under the real Claude Code 2.1.330', (bin) => {
  let bed: ClaudeTestbed;
  let env: Record<string, string>;
  let receiver: Awaited<ReturnType<typeof loopbackServer>>;
  let run: ClaudeRun;
  const daemonLog = () =>
    jsonLines<Record<string, unknown>>(join(env.HOOKD_STATE_DIR!, 'logs', 'daemon.log'));

  beforeAll(async () => {
    bed = claudeTestbed('hki-');
    receiver = await loopbackServer();
    env = bed.daemonEnv();
    await bed.startDaemon(env, {
      // The recorder tells the driver when the Notification hook has run.
      hooks: Object.fromEntries(
        ['SessionStart', 'Notification'].map((e) => [e, [{ hooks: [bed.recorder()] }]]),
      ),
      notify: {
        channels: { ops: { type: 'webhook', url: `${receiver.url}/hookd` } },
        rules: [{ name: 'asks', on: ['PermissionRequest', 'Notification'], channels: ['ops'] }],
        waitingDelayMs: 3_600_000,
      },
      enrich: { gitBranch: false },
      daemon: { handoffTimeoutMs: 5000 },
    });
    await bed.install();
    run = await bed.run(bin, {
      mode: 'stream',
      env,
      permissionMode: 'default',
      permission: { behavior: 'interrupt', when: { file: bed.capture, contains: '"ev":"Notification"' } },
      prompt: 'Write hook-demo.txt, then report.',
      script: [{ write: { path: 'hook-demo.txt', content: 'never written\n' } }, { text: 'Written.' }],
    });
  });

  afterAll(async () => {
    await bed?.close();
    await receiver?.close();
  });

  it('the held "needs your permission" notifications are cancelled by the transcript interrupt, never sent', async () => {
    expect(run.result, run.stderr).toMatchObject({ timedOut: false, turns: ['error_during_execution'] });
    expect(run.result.permissions).toEqual([{ tool: 'Write', conditionMet: true }]);
    const sessionId = bed.captured().find((c) => c.ev === 'SessionStart')!.sid;
    const cancel = await waitFor(
      () =>
        daemonLog().find(
          (r) => r.msg === 'the session moved on: held notifications cancelled' && r.sessionId === sessionId,
        ),
      60_000,
      'the cancel record',
    );
    expect(cancel.transition).toBe('transcript-interrupt');
    expect(
      daemonLog().find((r) => r.msg === 'transcript: a record no hook reported' && r.sessionId === sessionId),
    ).toMatchObject({ signal: 'interrupt', detail: '[Request interrupted by user for tool use]' });
    // The ask was held, then cancelled (its Notification permission_prompt is the same ask: a duplicate).
    const items = (await outboxAction(env, { action: 'list', state: 'all' })).items ?? [];
    expect(items.map((d) => [d.notification.event, d.state, d.cancelledBy])).toEqual([
      ['PermissionRequest', 'cancelled', 'transcript-interrupt'],
    ]);
    expect(receiver.received).toEqual([]);
  });
});
