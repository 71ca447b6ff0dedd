import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  createDesktopAnswerChannel,
  type DesktopAnswerChannel,
} from '../../../src/remote/desktop-channel.js';
import type { PermissionAsk, RemoteAnswer } from '../../../src/remote/types.js';
import type { SpawnLike } from '../../../src/process/run.js';
import { createSpawner, type Spawner } from '../../../src/spawner/spawner.js';
import {
  describeWithDesktop,
  startDesktopSession,
  type DesktopSession,
} from '../../helpers/desktop-session.js';
import { makeTempDir } from '../../helpers/temp.js';
import { waitFor } from '../../helpers/wait.js';

/**
 * Allow/Deny on a real desktop notification: Xvfb, a private D-Bus session and dunst as the notification
 * server (test/helpers/desktop-session.ts, without a hookd daemon); the channel runs here against that
 * bus, and the test presses the buttons through dunst's context menu.
 */

let seq = 0;
function makeAsk(
  over: Partial<PermissionAsk> = {},
  summary: Partial<PermissionAsk['summary']> = {},
): PermissionAsk {
  seq += 1;
  return {
    id: `ask-${seq}`,
    agent: 'claude',
    session: 's-1',
    project: '/home/u/src/app',
    expiresAt: Date.now() + 120_000,
    tokens: { allow: `allow-token-${seq}`, deny: `deny-token-${seq}` },
    ...over,
    summary: {
      title: `Claude Code wants to run Bash #${seq}`,
      tool: 'Bash',
      command: 'npm test',
      ...summary,
    },
  };
}

/** A started process and its argv. */
interface Started {
  child: ChildProcess;
  args: readonly string[];
}

/** node's spawn, keeping every child so the test can check each one is gone (and kill it if not). */
function recordingSpawn(children: Started[], base: SpawnLike = spawn): SpawnLike {
  return ((file: string, args: readonly string[], options: object) => {
    const child = (base as (f: string, a: readonly string[], o: object) => ChildProcess)(file, args, options);
    children.push({ child, args });
    return child;
  }) as SpawnLike;
}

/** The notify-send processes that wait for an answer (not the platform check's programs). */
const waiting = (children: Started[]) =>
  children.filter((c) => c.args.includes('--wait')).map((c) => c.child);

function alive(pid: number | undefined): boolean {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describeWithDesktop('desktop answers under a real notification server (dunst)', () => {
  let session: DesktopSession | undefined;
  let temp: ReturnType<typeof makeTempDir>;
  let env: Record<string, string | undefined>;
  const children: Started[] = [];
  let channel: DesktopAnswerChannel | undefined;
  let spawner: Spawner | undefined;
  let answers: RemoteAnswer[] = [];
  const logged: { level: string; msg: string; fields: Record<string, unknown> }[] = [];
  const logger = {
    log: (level: string, fields: Record<string, unknown>, msg: string) =>
      void logged.push({ level, msg, fields }),
  };

  beforeAll(async () => {
    temp = makeTempDir('hkd-rd-');
    session = await startDesktopSession(temp.dir, { ...process.env }, { daemon: false });
    env = { PATH: process.env.PATH, DBUS_SESSION_BUS_ADDRESS: session.busAddress() };
  }, 120_000);

  afterEach(async () => {
    await channel?.close();
    channel = undefined;
    await spawner?.close();
    spawner = undefined;
    for (const { child } of children.splice(0)) if (alive(child.pid)) process.kill(-child.pid!, 'SIGKILL');
    answers = [];
    logged.length = 0;
  });

  afterAll(async () => {
    await session?.stop();
    temp?.cleanup();
  }, 30_000);

  async function started(
    options: { spawn?: SpawnLike; now?: () => number } = {},
  ): Promise<DesktopAnswerChannel> {
    channel = createDesktopAnswerChannel({
      spawn: options.spawn ?? recordingSpawn(children),
      env,
      logger,
      ...(options.now ? { now: options.now } : {}),
    });
    await channel.start((answer) => answers.push(answer));
    return channel;
  }

  const showing = (title: string) =>
    waitFor(() => session!.shown().some((s) => s.summary === title), 10_000, title);

  it('Deny pressed on the notification reaches the broker as the ask\'s deny token, from "desktop"', async () => {
    const desk = await started();
    expect(await desk.support()).toMatchObject({ ok: true });
    const ask = makeAsk();
    await desk.ask(ask);
    await showing(ask.summary.title);
    const menu = await session!.chooseAction('deny', ask.summary.title);
    expect(menu).toContain('#Allow');
    expect(menu).toContain('#Deny');
    await waitFor(() => answers.length > 0, 10_000, 'the answer');
    expect(answers).toEqual([{ token: ask.tokens.deny, channel: 'desktop', approver: 'desktop' }]);
    await waitFor(async () => (await session!.displayed()) === 0, 10_000, 'the notification gone');
    // Nothing in the log carries a token.
    expect(JSON.stringify(logged)).not.toContain('token-');
  });

  it("Allow works the same when notify-send runs through the daemon's spawner", async () => {
    spawner = createSpawner({ env: process.env });
    const desk = await started({ spawn: recordingSpawn(children, spawner.spawn) });
    const ask = makeAsk();
    await desk.ask(ask);
    await showing(ask.summary.title);
    expect(spawner.mode()).toBe('spawner');
    await session!.chooseAction('allow', ask.summary.title);
    await waitFor(() => answers.length > 0, 10_000, 'the answer');
    expect(answers).toEqual([{ token: ask.tokens.allow, channel: 'desktop', approver: 'desktop' }]);
  });

  it('settle closes the notification and ends its process, through the spawner too, and no answer comes', async () => {
    spawner = createSpawner({ env: process.env });
    const desk = await started({ spawn: recordingSpawn(children, spawner.spawn) });
    const ask = makeAsk();
    await desk.ask(ask);
    await showing(ask.summary.title);
    expect(await session!.displayed()).toBe(1);
    const pid = await waitFor(() => waiting(children)[0]?.pid, 10_000, 'the pid');
    expect(alive(pid)).toBe(true);
    await desk.settle(ask, { result: 'deny', by: 'U123', via: 'slack' });
    expect(alive(pid)).toBe(false);
    expect(await session!.displayed()).toBe(0);
    // Its buttons are gone with it: nothing is left to press.
    expect(answers).toEqual([]);
    expect(logged.some((l) => l.msg.includes('closed') && l.fields.outcome === 'deny')).toBe(true);
  });

  it('asks settled as soon as they are shown leave nothing on the screen', async () => {
    const desk = await started();
    const asks = Array.from({ length: 10 }, () => makeAsk());
    for (const ask of asks) {
      await desk.ask(ask);
      await desk.settle(ask, { result: 'answered-at-terminal' });
    }
    // Each was shown (ask() resolves once it is) and each was closed again.
    for (const ask of asks) await showing(ask.summary.title);
    expect(await session!.displayed()).toBe(0);
    expect(waiting(children).every((child) => !alive(child.pid))).toBe(true);
  });

  it('at its expiry the notification closes by itself, with no answer', async () => {
    const desk = await started();
    const ask = makeAsk({ expiresAt: Date.now() + 300 });
    await desk.ask(ask);
    await showing(ask.summary.title);
    const [notifySend] = waiting(children);
    expect(notifySend?.pid).toBeDefined();
    await waitFor(() => !alive(notifySend!.pid), 10_000, 'notify-send to end');
    expect(await session!.displayed()).toBe(0);
    expect(answers).toEqual([]);
  });

  it('close() closes every notification still shown', async () => {
    const desk = await started();
    const asks = [makeAsk(), makeAsk()];
    for (const ask of asks) await desk.ask(ask);
    for (const ask of asks) await showing(ask.summary.title);
    expect(await session!.displayed()).toBe(2);
    await desk.close();
    channel = undefined;
    expect(await session!.displayed()).toBe(0);
    expect(waiting(children)).toHaveLength(2);
    expect(children.every(({ child }) => !alive(child.pid))).toBe(true);
  });

  it('hostile text in the ask is shown as text: no option, no shell, no markup', async () => {
    const desk = await started();
    const marker = join(temp.dir, 'pwned');
    const title = `--help $(touch ${marker}) \`touch ${marker}\``;
    const ask = makeAsk({}, { title, command: `rm -rf / ; touch ${marker} <b>bold</b> \u001b[31mred` });
    await desk.ask(ask);
    await showing(title);
    const shown = session!.shown().find((s) => s.summary === title)!;
    expect(shown.body).toContain(`touch ${marker}`);
    expect(shown.body).toContain('x1b[31mred');
    expect(shown.body).not.toContain('\u001b');
    expect(existsSync(marker)).toBe(false);
    await desk.settle(ask, { result: 'expired' });
  });
});
