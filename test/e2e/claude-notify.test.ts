import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionRecord } from '../../src/ledger/types.js';
import { describeWithAgent } from '../harness/availability.js';
import type { ClaudeRun } from '../harness/claude/run-claude.js';
import { claudeTestbed, type ClaudeTestbed } from '../harness/claude/testbed.js';
import { jsonLines } from '../helpers/json-lines.js';
import { waitFor } from '../helpers/procs.js';
import { loopbackServer } from '../integration/daemon/helpers.js';

// The notification side under the REAL Claude Code 2.1.330: `hookd install --agent claude`, a real hookd
// daemon started here (outside the run's network and PID namespace, reached through its unix socket), a
// webhook stand-in on loopback. The session's Stop notification names the session and carries the final
// message; the ledger records the session with its duration, messages and tokens.

interface Delivered {
  notification: { title: string; body: string; event: string; sessionId?: string };
}

const FINAL = 'All done: the parser notes are tidy.';

describeWithAgent('claude', 'notifications and ledger under the real Claude Code 2.1.330', (bin) => {
  let bed: ClaudeTestbed;
  let env: Record<string, string>;
  let receiver: Awaited<ReturnType<typeof loopbackServer>>;
  let run: ClaudeRun;
  let sessionId: string;

  const delivered = () =>
    receiver.received.filter((r) => r.method === 'POST').map((r) => r.json as Delivered);
  const ledger = () => jsonLines<SessionRecord>(join(env.HOOKD_DATA_DIR!, 'ledger', 'sessions.jsonl'));

  beforeAll(async () => {
    bed = claudeTestbed('hkn-');
    receiver = await loopbackServer();
    env = bed.daemonEnv();
    await bed.startDaemon(env, {
      hooks: { SessionStart: [{ hooks: [bed.recorder()] }] },
      notify: {
        channels: { ops: { type: 'webhook', url: `${receiver.url}/hookd` } },
        rules: [{ name: 'finished', on: 'Stop', session: 'main', channels: ['ops'] }],
      },
      enrich: { gitBranch: false },
      daemon: { handoffTimeoutMs: 5000 },
    });
    await bed.install();
    run = await bed.run(bin, {
      mode: 'print',
      env,
      prompt: 'Tidy the parser notes.',
      script: [{ bash: 'echo tidy' }, { text: FINAL }],
    });
    sessionId = bed.captured()[0]!.sid;
    await waitFor(
      () =>
        delivered().some((d) => d.notification.event === 'Stop') &&
        ledger().some((r) => r.sessionId === sessionId),
      600,
      100,
    );
  });

  afterAll(async () => {
    await bed?.close();
    await receiver?.close();
  });

  describe('one print session', () => {
    it('the Stop notification names the session and carries the final message', () => {
      expect(run.result).toMatchObject({ code: 0, timedOut: false });
      const stop = delivered().find((d) => d.notification.event === 'Stop');
      expect(stop?.notification.sessionId).toBe(sessionId);
      expect(`${stop!.notification.title}\n${stop!.notification.body}`).toContain(FINAL);
    });

    it('the ledger records the session with duration, messages and tokens', () => {
      const record = ledger().find((r) => r.sessionId === sessionId)!;
      expect(record).toMatchObject({ agent: 'claude', project: bed.work });
      expect(record.durationMs).not.toBeNull();
      expect(record.messageCount).toBeGreaterThan(0);
      expect(record.tokens?.input).toBeGreaterThan(0);
      expect(record.tokens?.output).toBeGreaterThan(0);
    });
  });
});
