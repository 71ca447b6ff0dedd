import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { remoteRecordFile } from '../../src/remote/answers.js';
import type { BrokerRecord } from '../../src/remote/broker.js';
import { describeWithAgent } from '../harness/availability.js';
import { toolResults } from '../harness/claude/fake-model.js';
import type { ClaudeRun } from '../harness/claude/run-claude.js';
import { claudeTestbed, type ClaudeTestbed } from '../harness/claude/testbed.js';
import { startLoopbackNtfy, type LoopbackNtfy, type NtfyMessage } from '../harness/ntfy/server.js';
import { jsonLines } from '../helpers/json-lines.js';
import { waitFor } from '../helpers/wait.js';

// Remote answers under the REAL Claude Code 2.1.330 (`claude -p`, permission mode default): hookd installed
// as a user installs it, a real daemon, a loopback ntfy server with access control. The test is the
// phone: it performs the Allow action of the first published ask and the Deny action of the second.
// `touch <file>` needs a permission in mode default; whether the file exists says whether it ran.

const DAEMON_TOKEN = 'tk_e2e_daemon';
const PHONE_TOKEN = 'tk_e2e_phone';

describeWithAgent('claude', 'answering Claude Code 2.1.330 permission prompts from ntfy', (bin) => {
  let bed: ClaudeTestbed;
  let env: Record<string, string>;
  let ntfy: LoopbackNtfy;
  let run: ClaudeRun;

  const askFor = (file: string): Promise<NtfyMessage> =>
    waitFor(
      () => ntfy.messages('asks').find((m) => m.actions && m.message.includes(`touch ${file}`)),
      120_000,
      `the ask for touch ${file}`,
    );

  beforeAll(async () => {
    bed = claudeTestbed('hkr-');
    ntfy = await startLoopbackNtfy({
      [DAEMON_TOKEN]: { read: ['answers'], write: ['asks'] },
      [PHONE_TOKEN]: { read: [], write: ['answers'] },
    });
    env = { ...bed.daemonEnv(), NTFY_TOKEN: DAEMON_TOKEN };
    await bed.startDaemon(env, {
      notify: { presence: { source: 'off' } },
      enrich: { gitBranch: false },
      remote: {
        ntfy: {
          server: ntfy.url,
          topic: 'asks',
          replyTopic: 'answers',
          token: '${NTFY_TOKEN}',
          replyToken: PHONE_TOKEN,
        },
      },
    });
    await waitFor(() => ntfy.subscribers() === 1, 20_000, 'the reply subscription');
    await bed.install();
    const running = bed.run(bin, {
      mode: 'print',
      permissionMode: 'default',
      env,
      prompt: 'Create the two marker files.',
      script: [{ bash: 'touch remote-allow.out' }, { bash: 'touch remote-deny.out' }, { text: 'Done.' }],
      deadlineSec: 150,
    });
    // The phone: Allow the first ask, Deny the second.
    const phone = (async () => {
      await ntfy.press(await askFor('remote-allow.out'), 'Allow');
      await ntfy.press(await askFor('remote-deny.out'), 'Deny');
    })();
    run = await running;
    await phone;
  }, 300_000);

  afterAll(async () => {
    await bed?.close();
    await ntfy?.close();
  });

  it('Allow from the phone: the tool runs', () => {
    expect(run.result).toMatchObject({ code: 0, timedOut: false });
    expect(existsSync(join(bed.work, 'remote-allow.out'))).toBe(true);
  });

  it('Deny from the phone: the tool does not run and the model sees the denial', () => {
    expect(existsSync(join(bed.work, 'remote-deny.out'))).toBe(false);
    const results = toolResults(run.requests.slice(-1));
    expect(results).toHaveLength(2);
    expect(results[1]).toEqual({ text: 'Denied remotely (ntfy) by the user.', isError: true });
  });

  it('each decision is recorded with who and where, and the asks are resolved on the phone', async () => {
    const records = () => jsonLines<BrokerRecord>(remoteRecordFile(env));
    const decided = records().filter((r) => r.kind === 'decided');
    expect(decided.map((r) => r.kind === 'decided' && [r.result, r.by, r.via])).toEqual([
      ['allow', 'ntfy', 'ntfy'],
      ['deny', 'ntfy', 'ntfy'],
    ]);
    await waitFor(
      () => ntfy.messages('asks').filter((m) => m.title?.startsWith('Resolved:')).length === 2,
      10_000,
      'two resolved messages',
    );
  });
});
