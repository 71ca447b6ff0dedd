import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { FakeMessage } from '../../harness/slack/fake-slack.js';
import { waitFor } from './helpers.js';
import { useProcessCleanup } from './process-helpers.js';
import {
  SLACK_APPROVER,
  askFor,
  asPosted,
  decision,
  permissionRequest,
  refusedWith,
  setUpRemote,
  slackAskFor,
  type RemoteSetup,
} from './remote-setup.js';

/**
 * Slack as a remote answer channel of the real daemon: the built hook asks, the fake Slack shows the
 * message and plays the clicks over Socket Mode; with ntfy configured too, the first answer wins.
 */
const { pids, cleanups } = useProcessCleanup();

const STRANGER = 'U0STRANGER9';

/** The text and the buttons Slack shows now for this message. */
function shownNow(message: FakeMessage): { text: string; buttons: number } {
  const last = message.versions.at(-1)!;
  const blocks = (last.blocks ?? []) as { type: string; elements?: unknown[] }[];
  return {
    text: JSON.stringify(last),
    buttons: blocks.filter((b) => b.type === 'actions').flatMap((b) => b.elements ?? []).length,
  };
}

/** Waits for the daemon's log to hold this line (the log is written apart from the record). */
const loggedLine = (s: RemoteSetup, msg: string) =>
  waitFor(() => s.daemonLog().some((r) => r.msg === msg), 10_000, `"${msg}" in the daemon's log`);

describe('remote answers through Slack (Socket Mode)', () => {
  it('a configured approver denies; a click from anyone else changes nothing and is written down', async () => {
    const s = await setUpRemote({ channels: ['slack'], pids, cleanups });
    const ran = s.hook(permissionRequest(s, 'touch slack-denied.out'));
    const message = await slackAskFor(s.slack, 'touch slack-denied.out');
    expect(shownNow(message).buttons).toBe(2);

    s.slack.click(message, STRANGER, 'hookd_deny');
    const stranger = await refusedWith(s, 'not-approver');
    expect(stranger).toMatchObject({ by: STRANGER, via: 'slack', decision: 'deny' });
    await loggedLine(s, `remote answer refused (not-approver) from ${STRANGER} via slack`);
    expect(s.records().filter((r) => r.kind === 'decided')).toEqual([]);
    expect(shownNow(message).buttons).toBe(2);

    s.slack.click(message, SLACK_APPROVER, 'hookd_deny');
    const done = await ran;
    expect(done.code).toBe(0);
    expect(decision(done)).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PermissionRequest',
        decision: { behavior: 'deny', message: 'Denied remotely (slack) by the user.' },
      },
    });
    expect(s.records().find((r) => r.kind === 'decided')).toMatchObject({
      result: 'deny',
      by: SLACK_APPROVER,
      via: 'slack',
    });
    await waitFor(() => shownNow(message).buttons === 0, 10_000, 'the Slack message edited');
    expect(shownNow(message).text).toContain(`Denied by <@${SLACK_APPROVER}> from Slack`);
  });

  it('ntfy and Slack: Allow on ntfy wins, the Slack message is edited, a later Slack click is refused', async () => {
    const s = await setUpRemote({ channels: ['ntfy', 'slack'], pids, cleanups });
    const ran = s.hook(permissionRequest(s, 'touch both.out'));
    const [ask, message] = await Promise.all([
      askFor(s.ntfy, 'touch both.out'),
      slackAskFor(s.slack, 'touch both.out'),
    ]);
    expect(await s.ntfy.press(ask, 'Allow')).toBe(200);
    const done = await ran;
    expect(decision(done)).toEqual({
      hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } },
    });
    await waitFor(() => shownNow(message).buttons === 0, 10_000, 'the Slack message edited');
    expect(shownNow(message).text).toContain('Allowed from ntfy');

    // The approver clicks Deny on the message as first posted: too late, nothing changes.
    s.slack.click(asPosted(message), SLACK_APPROVER, 'hookd_deny');
    const late = await refusedWith(s, 'settled');
    expect(late).toMatchObject({ by: SLACK_APPROVER, via: 'slack', decision: 'deny' });
    await loggedLine(s, `remote answer refused (settled) from ${SLACK_APPROVER} via slack`);
    expect(s.records().filter((r) => r.kind === 'decided')).toEqual([
      expect.objectContaining({ result: 'allow', via: 'ntfy' }),
    ]);
  });

  it('a Slack channel that cannot start is logged and left out; ntfy still answers', async () => {
    const s = await setUpRemote({ channels: ['ntfy', 'slack'], unset: ['SLACK_BOT_TOKEN'], pids, cleanups });
    await waitFor(
      () => s.daemonLog().find((r) => r.msg.includes('Slack answers are off')),
      10_000,
      'the Slack channel refused in the log',
    );
    expect(s.daemonLog().find((r) => r.msg.includes('Slack answers are off'))!.msg).toContain(
      'SLACK_BOT_TOKEN',
    );
    const ran = s.hook(permissionRequest(s, 'touch ntfy-only.out'));
    expect(await s.ntfy.press(await askFor(s.ntfy, 'touch ntfy-only.out'), 'Allow')).toBe(200);
    expect(decision(await ran)).toMatchObject({ hookSpecificOutput: { decision: { behavior: 'allow' } } });
    expect(s.slack.messages).toEqual([]);
    expect(s.slack.linksOpened()).toBe(0);
  });
});

describe('a Slack that does not answer', () => {
  it('does not hold the daemon: it starts, and ntfy answers meanwhile', async () => {
    // apps.connections.open is received and never answered, with the longest timeout the config allows
    // (60 s, beyond the 20 s the set-up waits for the daemon to answer).
    const held: ServerResponse[] = [];
    const silent = createServer((_req, res) => held.push(res));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => {
      for (const res of held) res.destroy();
      return new Promise<void>((resolve) => silent.close(() => resolve()));
    });
    const s = await setUpRemote({
      channels: ['ntfy', 'slack'],
      slackApiBaseUrl: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/api`,
      slackTimeoutMs: 60_000,
      pids,
      cleanups,
    });
    await waitFor(() => held.length === 1, 10_000, 'the daemon to ask Slack for its link');
    const pending = s.hook(permissionRequest(s, 'touch slow-slack'));
    const ask = await askFor(s.ntfy, 'touch slow-slack');
    expect(await s.ntfy.press(ask, 'Allow')).toBe(200);
    expect(decision(await pending)).toEqual({
      hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } },
    });
  });
});
