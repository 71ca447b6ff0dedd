import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Logger } from 'pino';
import { RemoteAnswers } from '../../../src/remote/answers.js';
import { remoteConfigSchema } from '../../../src/config/schemas/remote-schema.js';
import { inputHash } from '../../../src/remote/canonical.js';
import { tempEnv, waitFor } from './helpers.js';
import { killQuietly, useProcessCleanup } from './process-helpers.js';
import {
  ANSWERS,
  PHONE_TOKEN,
  ASKS,
  askFor,
  decision,
  permissionRequest,
  refusedWith,
  runHook,
  setUpRemote,
  type RemoteSetup,
} from './remote-setup.js';

/**
 * Remote answers end to end below the agent: the built hook and a real daemon, a loopback ntfy server
 * with access control, the test pressing the buttons of the published notification as the phone would.
 * The ntfy config is the example of docs/remote.md as written, but for the server (the loopback one).
 */
const { pids, cleanups } = useProcessCleanup();

const setUp = (options: { waitSec?: number; hooks?: Record<string, unknown> } = {}) =>
  setUpRemote({ ...options, pids, cleanups });

/**
 * A hookd guard on every Bash prompt that blocks only the one command the guard test asks about: the
 * other tests' prompts pass it and go on to the phone.
 */
const GUARD = {
  type: 'command',
  command: 'if grep -q "touch guarded.out"; then echo "no touching" >&2; exit 2; fi',
  name: 'no-touch',
};

/**
 * One daemon, ntfy server and config for the file, stopped and removed after it; each test makes its own
 * prompts, and its hook processes are killed after it.
 */
let shared: RemoteSetup;
const filePids: number[] = [];
const fileCleanups: (() => Promise<void> | void)[] = [];
beforeAll(async () => {
  shared = await setUpRemote({
    hooks: { PermissionRequest: [{ matcher: 'Bash', hooks: [GUARD] }] },
    pids: filePids,
    cleanups: fileCleanups,
  });
});
afterAll(async () => {
  for (const pid of filePids.splice(0)) killQuietly(pid);
  for (const cleanup of fileCleanups.splice(0).reverse()) await cleanup();
});

/**
 * The shared set-up as one test sees it: the records and ntfy messages from this test on (the tests of
 * the file run one after another).
 */
function fresh(): RemoteSetup {
  const records = shared.records().length;
  const messages = shared.ntfy.messages().length;
  const ntfy = {
    ...shared.ntfy,
    messages: (topic?: string) =>
      shared.ntfy
        .messages()
        .slice(messages)
        .filter((m) => topic === undefined || m.topic === topic),
  };
  return {
    ...shared,
    ntfy,
    records: () => shared.records().slice(records),
    hook: (payload, agent) => runHook({ env: shared.env, project: shared.project, pids }, payload, agent),
  };
}

/** Runs the built hook on one event, as Claude Code does. */
const hook = (s: RemoteSetup, payload: Record<string, unknown>, agent = 'claude') => s.hook(payload, agent);

describe('remote answers through a loopback ntfy server', () => {
  it('Allow on the phone answers the prompt; the same button again is refused as a replay', async () => {
    const s = fresh();
    const ran = hook(s, permissionRequest(s, 'touch allowed.out'));
    const ask = await askFor(s.ntfy, 'touch allowed.out');
    expect(ask.title).toContain('Bash');
    expect(ask.actions!.map((a) => a.label)).toEqual(['Allow', 'Deny']);
    expect(await s.ntfy.press(ask, 'Allow')).toBe(200);
    const done = await ran;
    expect(done.code).toBe(0);
    expect(decision(done)).toEqual({
      hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } },
    });
    // "Resolved" follows the ask (ntfy cannot edit).
    await waitFor(
      () => s.ntfy.messages(ASKS).some((m) => m.title?.startsWith('Resolved:')),
      10_000,
      'resolved',
    );
    expect(await s.ntfy.press(ask, 'Allow')).toBe(200);
    const replay = await refusedWith(s, 'replayed');
    expect(replay).toMatchObject({ by: 'ntfy', via: 'ntfy', decision: 'allow' });
    expect(s.records().filter((r) => r.kind === 'decided')).toHaveLength(1);
  });

  it('Deny answers with a denial the model reads; a post without the token changes nothing', async () => {
    const s = fresh();
    const ran = hook(s, permissionRequest(s, 'touch denied.out'));
    const ask = await askFor(s.ntfy, 'touch denied.out');
    const deny = ask.actions!.find((a) => a.label === 'Deny')!;
    // Someone who guessed the reply topic but has no token: the server refuses, the ask stays open.
    expect(await s.ntfy.post(ANSWERS, deny.body!, undefined)).toBe(403);
    expect(await s.ntfy.post(ANSWERS, 'approve', PHONE_TOKEN)).toBe(200);
    await refusedWith(s, 'unknown-token');
    expect(await s.ntfy.press(ask, 'Deny')).toBe(200);
    const done = await ran;
    expect(decision(done)).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PermissionRequest',
        decision: { behavior: 'deny', message: 'Denied remotely (ntfy) by the user.' },
      },
    });
  });

  it('an answer for another call, or for the same tool with other input, never counts for this one', async () => {
    const s = fresh();
    const first = hook(s, permissionRequest(s, 'touch one.out'));
    const firstAsk = await askFor(s.ntfy, 'touch one.out');
    await s.ntfy.press(firstAsk, 'Deny');
    expect(decision(await first)).toMatchObject({ hookSpecificOutput: { decision: { behavior: 'deny' } } });
    const second = hook(s, permissionRequest(s, 'touch two.out'));
    const secondAsk = await askFor(s.ntfy, 'touch two.out');
    // The first call's Allow, pressed late: refused, and the second call is still waiting.
    await s.ntfy.press(firstAsk, 'Allow');
    const refused = await refusedWith(s, 'settled');
    // The refusal names the call the token was bound to: the first one, by the hash of its input.
    expect(refused).toMatchObject({
      inputSha256: inputHash({ command: 'touch one.out', description: 'scripted command' }),
    });
    expect(s.records().filter((r) => r.kind === 'decided')).toHaveLength(1);
    await s.ntfy.press(secondAsk, 'Deny');
    expect(decision(await second)).toMatchObject({ hookSpecificOutput: { decision: { behavior: 'deny' } } });
  });

  it('answered at the terminal: the hook stops waiting with no decision and a later Allow is refused', async () => {
    const s = fresh();
    const ran = hook(s, permissionRequest(s, 'touch terminal.out'));
    const ask = await askFor(s.ntfy, 'touch terminal.out');
    // The user answered at the keyboard: the tool ran and its PostToolUse reaches the daemon.
    const post = await hook(s, {
      session_id: 'sess-1',
      cwd: s.project,
      hook_event_name: 'PostToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'touch terminal.out' },
      tool_response: { stdout: '' },
    });
    expect(post.code).toBe(0);
    const done = await ran;
    expect(done.code).toBe(0);
    expect(done.stdout).toBe('');
    expect(s.records().find((r) => r.kind === 'decided')).toMatchObject({ result: 'answered-at-terminal' });
    await s.ntfy.press(ask, 'Allow');
    await refusedWith(s, 'after-terminal');
    await waitFor(
      () => s.ntfy.messages(ASKS).some((m) => m.message.startsWith('Answered at the terminal')),
      10_000,
      'the resolved message',
    );
  });

  it('at most two asks per session are pushed; a third prompt falls to the terminal at once', async () => {
    const s = fresh();
    const a = hook(s, permissionRequest(s, 'touch a.out', 'sess-limit'));
    const b = hook(s, permissionRequest(s, 'touch b.out', 'sess-limit'));
    const askA = await askFor(s.ntfy, 'touch a.out');
    const askB = await askFor(s.ntfy, 'touch b.out');
    const c = await hook(s, permissionRequest(s, 'touch c.out', 'sess-limit'));
    expect(c.stdout).toBe('');
    expect(s.records().find((r) => r.kind === 'not-asked')).toMatchObject({ reason: 'limit' });
    expect(s.ntfy.messages(ASKS).some((m) => m.message.includes('touch c.out'))).toBe(false);
    await s.ntfy.press(askA, 'Deny');
    await s.ntfy.press(askB, 'Deny');
    await Promise.all([a, b]);
  });
});

describe('remote answers where an allow would bypass a rule of the user', () => {
  it("a call under one of the user's Claude Code ask rules may be denied from afar, never allowed", async () => {
    const s = fresh();
    const settings = join(s.env.HOME!, '.claude', 'settings.json');
    mkdirSync(join(s.env.HOME!, '.claude'), { recursive: true });
    writeFileSync(settings, JSON.stringify({ permissions: { ask: ['Bash(touch rule-ask:*)'] } }));
    try {
      const { permission_suggestions: _none, ...request } = permissionRequest(s, 'touch rule-ask x.out');
      const ran = hook(s, request);
      const ask = await askFor(s.ntfy, 'touch rule-ask x.out');
      await s.ntfy.press(ask, 'Allow');
      await refusedWith(s, 'allow-not-allowed');
      expect(s.records().find((r) => r.kind === 'asked')).toMatchObject({ denyOnly: true });
      await s.ntfy.press(ask, 'Deny');
      expect(decision(await ran)).toMatchObject({ hookSpecificOutput: { decision: { behavior: 'deny' } } });
    } finally {
      rmSync(settings); // the other tests' prompts fall under no rule of the user
    }
  });

  it('a hookd guard that blocks wins: the prompt is never sent away', async () => {
    const s = fresh();
    const ran = await hook(s, permissionRequest(s, 'touch guarded.out', 'sess-guard'));
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain('no touching');
    expect(s.ntfy.messages(ASKS).filter((m) => m.message.includes('guarded.out'))).toEqual([]);
    expect(s.records().filter((r) => 'session' in r && r.session === 'sess-guard')).toEqual([]);
  });

  it('Droid: nothing is sent away (its PreToolUse allow would bypass its deny list)', async () => {
    const s = fresh();
    const ran = await hook(
      s,
      {
        session_id: 'droid-1',
        cwd: s.project,
        permission_mode: 'auto-high',
        hook_event_name: 'PreToolUse',
        tool_name: 'Execute',
        tool_input: { command: 'chown -R me .' },
      },
      'droid',
    );
    expect(ran).toMatchObject({ code: 0, stdout: '' });
    expect(s.ntfy.messages(ASKS).filter((m) => m.message.includes('chown'))).toEqual([]);
    expect(s.records().filter((r) => 'session' in r && r.session === 'droid-1')).toEqual([]);
  });
});

describe('a server named by a variable', () => {
  it('is checked once filled in: the public ntfy.sh is refused and nothing is sent there', async () => {
    const temp = tempEnv();
    cleanups.push(temp.cleanup);
    const errors: string[] = [];
    const log = { error: (_: object, msg: string) => errors.push(msg), warn: () => {}, info: () => {} };
    const calls: string[] = [];
    const remote = new RemoteAnswers({
      env: { ...temp.env, NTFY_SERVER: 'https://ntfy.sh', NTFY_TOKEN: 'tk_x', NTFY_REPLY_TOKEN: 'tk_y' },
      logger: log as unknown as Logger,
      now: Date.now,
      presence: () => Promise.resolve({ state: 'unknown' }),
      fetch: (url) => {
        calls.push(url);
        return Promise.reject(new Error('no network in this test'));
      },
      remote: () =>
        remoteConfigSchema.parse({
          ntfy: {
            server: '${NTFY_SERVER}',
            topic: 'a',
            replyTopic: 'b',
            token: '${NTFY_TOKEN}',
            replyToken: '${NTFY_REPLY_TOKEN}',
          },
        }),
    });
    await remote.start();
    const reply = await remote.ask({
      agent: 'claude',
      session: 's',
      project: temp.root,
      tool: 'Bash',
      input: { command: 'ls' },
      suggestions: true,
      waitMs: 5000,
    });
    await remote.close();
    expect(reply).toEqual({ ok: true, reason: 'off' });
    expect(errors).toEqual([expect.stringContaining('ntfy.sh is a public server')]);
    expect(calls).toEqual([]);
  });
});

describe('the reply subscription', () => {
  it('reconnects after the server drops it, and an answer posted meanwhile is not lost', async () => {
    const s = fresh();
    const ran = hook(s, permissionRequest(s, 'touch reconnect.out'));
    const ask = await askFor(s.ntfy, 'touch reconnect.out');
    // The daemon's next subscription waits unanswered, so it cannot see the answer live.
    const release = s.ntfy.holdSubscriptions();
    s.ntfy.dropSubscribers();
    await waitFor(() => s.ntfy.heldSubscribers() === 1, 10_000, 'the daemon subscribing again');
    // The phone answers while the daemon is not subscribed: the reconnect resumes from the last message.
    expect(await s.ntfy.press(ask, 'Allow')).toBe(200);
    expect(s.ntfy.subscribers()).toBe(0);
    release();
    expect(decision(await ran)).toMatchObject({ hookSpecificOutput: { decision: { behavior: 'allow' } } });
    expect(s.ntfy.subscribers()).toBe(1);
  });
});

describe('remote answers that come too late', () => {
  it('expired: the hook gives up with no decision (never an allow) and a later Allow is refused', async () => {
    const s = await setUp({ waitSec: 2.5 });
    const ran = hook(s, permissionRequest(s, 'touch late.out'));
    const ask = await askFor(s.ntfy, 'touch late.out');
    const done = await ran;
    expect(done.stdout).toBe('');
    expect(s.records().find((r) => r.kind === 'decided')).toMatchObject({ result: 'expired' });
    await s.ntfy.press(ask, 'Allow');
    await refusedWith(s, 'expired');
  });
});
