import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { remoteRecordFile } from '../../src/remote/answers.js';
import type { BrokerRecord } from '../../src/remote/broker.js';
import { describeWithAgent } from '../harness/availability.js';
import { toolResults } from '../harness/claude/fake-model.js';
import type { ClaudeRun } from '../harness/claude/run-claude.js';
import { claudeTestbed, type ClaudeTestbed } from '../harness/claude/testbed.js';
import {
  FAKE_APP_TOKEN,
  FAKE_BOT_TOKEN,
  FAKE_CHANNEL_ID,
  startFakeSlack,
  type FakeMessage,
  type FakeSlack,
} from '../harness/slack/fake-slack.js';
import { jsonLines } from '../helpers/json-lines.js';
import { waitFor } from '../helpers/wait.js';

// Remote answers under the REAL Claude Code 2.1.330 (`claude -p`, permission mode default) through Slack:
// hookd installed as a user installs it, a real daemon, a fake Slack that plays Socket Mode. The test is
// the Slack workspace: someone not on the approver list clicks Deny first (nothing happens), then the
// configured approver clicks Deny. `touch <file>` needs a permission in mode default; whether the file
// exists says whether it ran.

const APPROVER = 'U0E2EAPPROVER';
const STRANGER = 'U0E2ESTRANGER';

describeWithAgent('claude', 'answering a Claude Code 2.1.330 permission prompt from Slack', (bin) => {
  let bed: ClaudeTestbed;
  let env: Record<string, string>;
  let slack: FakeSlack;
  let run: ClaudeRun;
  const records = () => jsonLines<BrokerRecord>(remoteRecordFile(env));

  beforeAll(async () => {
    bed = claudeTestbed('hks-');
    slack = await startFakeSlack();
    env = { ...bed.daemonEnv(), SLACK_APP_TOKEN: FAKE_APP_TOKEN, SLACK_BOT_TOKEN: FAKE_BOT_TOKEN };
    await bed.startDaemon(env, {
      notify: { presence: { source: 'off' } },
      enrich: { gitBranch: false },
      remote: {
        slack: {
          appToken: '${SLACK_APP_TOKEN}',
          botToken: '${SLACK_BOT_TOKEN}',
          channel: FAKE_CHANNEL_ID,
          approvers: [APPROVER],
          apiBaseUrl: slack.apiBaseUrl,
        },
      },
    });
    await waitFor(() => slack.linksOpen() === 1, 20_000, 'the Socket Mode link');
    await bed.install();
    const running = bed.run(bin, {
      mode: 'print',
      permissionMode: 'default',
      env,
      prompt: 'Create the marker file.',
      script: [{ bash: 'touch slack-deny.out' }, { text: 'Done.' }],
      deadlineSec: 60,
    });
    const workspace = (async () => {
      const message: FakeMessage = await waitFor(
        () => slack.messages.find((m) => JSON.stringify(m.versions[0]).includes('touch slack-deny.out')),
        60_000,
        'the Slack ask',
      );
      slack.click(message, STRANGER, 'hookd_deny');
      await waitFor(
        () => records().some((r) => r.kind === 'refused' && r.reason === 'not-approver'),
        10_000,
        "the stranger's click refused",
      );
      slack.click(message, APPROVER, 'hookd_deny');
    })();
    run = await running;
    await workspace;
  }, 120_000);

  afterAll(async () => {
    await bed?.close();
    await slack?.close();
  });

  it('Deny from a configured approver: the tool does not run and the model sees the denial', () => {
    expect(run.result).toMatchObject({ code: 0, timedOut: false });
    expect(existsSync(join(bed.work, 'slack-deny.out'))).toBe(false);
    const results = toolResults(run.requests.slice(-1));
    expect(results).toEqual([{ text: 'Denied remotely (slack) by the user.', isError: true }]);
  });

  it("a stranger's click changed nothing; the decision is recorded with who and where", () => {
    expect(records().find((r) => r.kind === 'refused')).toMatchObject({
      reason: 'not-approver',
      by: STRANGER,
      via: 'slack',
    });
    const decided = records().filter((r) => r.kind === 'decided');
    expect(decided.map((r) => r.kind === 'decided' && [r.result, r.by, r.via])).toEqual([
      ['deny', APPROVER, 'slack'],
    ]);
  });
});
