import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runDemo } from '../../../src/demo/run-demo.js';
import { createDaemonWiring } from '../../../src/daemon/lifecycle/run-foreground.js';
import { createDaemonLogger } from '../../../src/daemon/lifecycle/logger.js';
import { startSimulator } from '../../../src/platform-api/simulator/index.js';
import { MAIN, SUB, useTempDirs } from './helpers.js';

const temp = useTempDirs();
/** The repository: its demo session and hooks. */
const PACKAGE = fileURLToPath(new URL('../../..', import.meta.url));

function capture() {
  let text = '';
  return {
    out: { write: (t: string) => void (text += t), isTTY: false, color: false },
    text: () => text,
  };
}

describe('runDemo (from the TypeScript source)', () => {
  it('goes on after a hand-off the daemon takes as a copy of the one before (the same event twice in a row)', async () => {
    const dir = temp();
    const tmp = join(dir, 'tmp');
    mkdirSync(tmp);
    // The package's demo session with its first prompt sent twice in a row.
    const root = join(dir, 'package');
    cpSync(join(PACKAGE, 'demo-session'), join(root, 'demo-session'), { recursive: true });
    cpSync(join(PACKAGE, 'hooks'), join(root, 'hooks'), { recursive: true });
    const events = join(root, 'demo-session', 'events');
    copyFileSync(join(events, '02-UserPromptSubmit.json'), join(events, '02b-UserPromptSubmit.json'));
    // Waits as long as the daemon takes over each event: a hand-off it never processes would hold the
    // demo until the test's own limit.
    const summary = await runDemo({
      pauseMs: 0,
      packageRoot: root,
      eventWaitMs: 600_000,
      env: { PATH: process.env.PATH, TMPDIR: tmp },
    });
    expect(summary.drained).toBe(true);
    expect(summary.events).toHaveLength(20);
    expect(summary.events.every((e) => e.handoff === 'acked')).toBe(true);
  });

  it('plays the session through hook commands, the daemon, enrichment, the ledger and the simulator, then removes its temp root', async () => {
    const dir = temp();
    const tmp = join(dir, 'tmp');
    mkdirSync(tmp);
    const { out, text } = capture();
    const summary = await runDemo({ out, pauseMs: 0, env: { PATH: process.env.PATH, TMPDIR: tmp } });

    expect(summary.drained).toBe(true);
    expect(summary.interrupted).toBe(false);
    expect(summary.events).toHaveLength(19);
    expect(summary.events.every((e) => e.handoff === 'acked')).toBe(true);
    expect(summary.commands.map((c) => [c.event, c.name, c.exitCode])).toEqual([
      ['PreToolUse', 'guard', 0],
      ['PostToolUse', 'command-log', 0],
      ['Stop', 'stop-echo', 0],
      ['Stop', 'stop-echo', 0],
    ]);
    expect(summary.commands[3]!.stdout.trim()).toBe('turn finished after 1207 ms');
    expect(summary.commandLog).toMatchObject([{ command: 'echo hi', exitCode: 0, tool: 'Execute' }]);

    const byTitle = new Map(summary.notifications.map((n) => [n.title, n]));
    // The transcript is written as the session went, so each prompt names its own pending tool.
    expect(byTitle.has('Needs your permission: Execute')).toBe(true);
    expect(byTitle.has('Needs your permission: Create')).toBe(true);
    expect(byTitle.get('Finished: Echo, a file and a sub-agent in demo (main)')?.body).toContain(
      'All done: ran `echo hi`, created hook-demo.txt and ran a sub-agent.',
    );
    // The sub-agent's final message is not in its local transcript: the platform API supplied it.
    expect(byTitle.get('Sub-agent finished: Worker: Tiny sub task')?.body).toContain('subagent finished');
    expect(summary.platform.requests).toContainEqual({
      method: 'GET',
      path: `/api/v0/sessions/${SUB}/messages/b73abe42-9177-4f7a-9932-5ff2a01cc296`,
      status: 200,
    });
    expect(byTitle.get('Sub-agent finished: Tiny sub task')?.event).toBe('SubagentStop');
    expect(byTitle.get('Session ended: other')?.sessionId).toBe(MAIN);
    expect(summary.notifications).toHaveLength(6);
    // Then each watcher on the platform API sees its scripted change and raises it once.
    expect(summary.watch.notifications.map((n) => [n.event, n.title])).toEqual([
      ['PlatformWatch', 'Organization credits at 90% of the monthly limit'],
      ['PlatformWatch', expect.stringMatching(/^Computer .+ is error$/)],
      ['PlatformWatch', expect.stringMatching(/^Enterprise controls changed by /)],
      ['PlatformWatch', 'Readiness of https://github.com/acme/demo: 77.8%'],
      ['PlatformWatch', 'new.hire@acme.example joined the organization'],
    ]);

    expect(summary.ledger.map((r) => [r.sessionId, r.title, r.isSubagent, r.reason])).toEqual(
      expect.arrayContaining([
        [MAIN, 'Echo, a file and a sub-agent', false, 'other'],
        [SUB, 'Worker: Tiny sub task', true, 'other'],
      ]),
    );
    expect(summary.ledger).toHaveLength(2);
    const mainTags = summary.platform.tags[MAIN] as { name: string; metadata: Record<string, unknown> }[];
    expect(mainTags).toMatchObject([{ name: 'hookd', metadata: { reason: 'other', subagentCount: 1 } }]);
    expect((summary.platform.tags[SUB] as { name: string }[]).map((t) => t.name)).toEqual([
      'subagent',
      'hookd',
    ]);

    const printed = text();
    expect(printed).toContain('03 PreToolUse Execute echo hi');
    expect(printed).toMatch(/✓ guard exit 0 \d+ms \[blocking\]/);
    expect(printed).toContain('┌ Finished: Echo, a file and a sub-agent in demo (main)');
    expect(printed).toMatch(/48e23316 +demo +Echo, a file and a sub-agent +other/);
    expect(printed).toContain('hookd install');

    expect(summary.keptAt).toBeNull();
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('keeps its temp root with --keep: config, ledger, logs and the session store', async () => {
    const dir = temp();
    const tmp = join(dir, 'tmp');
    mkdirSync(tmp);
    const summary = await runDemo({ pauseMs: 0, keep: true, env: { PATH: process.env.PATH, TMPDIR: tmp } });
    const root = summary.keptAt!;
    expect(root.startsWith(join(tmp, 'hookd-demo-'))).toBe(true);
    expect(existsSync(join(root, 'config.json'))).toBe(true);
    expect(existsSync(join(root, 'data', 'ledger', 'sessions.jsonl'))).toBe(true);
    expect(existsSync(join(root, 'state', 'logs', 'daemon.log'))).toBe(true);
    expect(readdirSync(join(root, 'home', '.factory', 'sessions'))).toEqual([
      sessionSlugOf(join(root, 'home', 'projects', 'demo')),
    ]);
    expect(existsSync(join(root, 'run', 'hookd', 'hookd.sock'))).toBe(false);
  });

  it('stops early on its signal and still cleans up', async () => {
    const dir = temp();
    const tmp = join(dir, 'tmp');
    mkdirSync(tmp);
    const controller = new AbortController();
    const { out, text } = capture();
    const watching = {
      ...out,
      write: (t: string) => {
        out.write(t);
        if (t.startsWith('03 ')) controller.abort();
      },
    };
    const summary = await runDemo({
      out: watching,
      pauseMs: 0,
      signal: controller.signal,
      env: { PATH: process.env.PATH, TMPDIR: tmp },
    });
    expect(summary.interrupted).toBe(true);
    expect(summary.events).toHaveLength(3);
    expect(text()).toContain('Stopped after 3 events of 19; cleaned up.');
    expect(readdirSync(tmp)).toEqual([]);
  });
});

function sessionSlugOf(cwd: string): string {
  return cwd.replace(/\//g, '-');
}

describe('createDaemonWiring: the platform API only with a key', () => {
  function setup() {
    const dir = temp();
    const env = { HOME: dir, HOOKD_STATE_DIR: join(dir, 'state'), HOOKD_DATA_DIR: join(dir, 'data') };
    return { dir, env, logger: createDaemonLogger(env) };
  }

  it('uses neither enrichment through the API nor tagging without a key', async () => {
    const { env, logger } = setup();
    const wiring = await createDaemonWiring(
      env,
      { ledger: { enabled: true, tagOnPlatform: true, idleCloseMinutes: 240, tagName: 'hookd' } },
      { logger },
    );
    expect([wiring.usesApi, wiring.tagsOnPlatform, typeof wiring.onEvent]).toEqual([
      false,
      false,
      'function',
    ]);
    await wiring.close();
  });

  it('with a key: enrichment asks the API unless enrich.api is false; tagging follows ledger.tagOnPlatform', async () => {
    const { env, logger } = setup();
    const withKey = { ...env, HOOKD_API_KEY: 'fk-test', HOOKD_API_URL: 'http://127.0.0.1:9' };
    const on = await createDaemonWiring(withKey, {}, { logger });
    expect([on.usesApi, on.tagsOnPlatform]).toEqual([true, false]);
    await on.close();
    const off = await createDaemonWiring(
      withKey,
      {
        enrich: {
          enabled: true,
          api: false,
          budgetMs: 1500,
          maxReadBytes: 4194304,
          excerptChars: 280,
          gitBranch: true,
          redactHomePaths: false,
        },
        ledger: { enabled: true, tagOnPlatform: true, idleCloseMinutes: 240, tagName: 'hookd' },
      },
      { logger },
    );
    expect([off.usesApi, off.tagsOnPlatform]).toEqual([false, true]);
    await off.close();
  });

  it('fetches a final message the local store lacks from the API; one the platform lacks is no failure', async () => {
    const { dir, env, logger } = setup();
    const sim = await startSimulator({ seed: 'wiring' });
    try {
      const [known] = [...sim.state.sessions.values()];
      const message = known!.messages.at(-1) as { id: string; content: { text: string }[] };
      const wiring = await createDaemonWiring(
        { ...env, HOOKD_API_KEY: sim.keys.owner, HOOKD_API_URL: sim.baseUrl, HOOKD_APP_URL: sim.appUrl },
        {},
        { logger },
      );
      const stop = (sessionId: string, messageId: string) =>
        wiring.enrich({
          id: `e-${sessionId}`,
          receivedAt: Date.now(),
          agent: 'droid',
          name: 'Stop',
          sessionId,
          cwd: dir,
          transcriptPath: join(dir, 'missing', `${sessionId}.jsonl`),
          payload: { hook_event_name: 'Stop', session_id: sessionId, message_id: messageId },
        });
      const found = await stop(known!.sessionId, message.id);
      expect(found.lastMessage).toBe(message.content[0]!.text);
      expect(found.sources).toContain('api:message');
      const unknown = await stop('sess_not_on_the_platform', 'msg_1');
      expect(unknown.lastMessage).toBeUndefined();
      expect((unknown.warnings as string[]).filter((w) => w.startsWith('api:'))).toEqual([]);
      expect(sim.requests.map((r) => r.status)).toEqual([200, 404]);
      await wiring.close();
    } finally {
      await sim.close();
    }
  });

  it('logs an unusable key file and goes on with local data only', async () => {
    const { dir, env, logger } = setup();
    const keyFile = join(dir, 'api-key');
    writeFileSync(keyFile, 'fk-test\n', { mode: 0o644 });
    const wiring = await createDaemonWiring(env, { api: { keyFile } }, { logger });
    expect(wiring.usesApi).toBe(false);
    await wiring.close();
    const records = readFileSync(join(env.HOOKD_STATE_DIR, 'logs', 'daemon.log'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { msg: string; error?: string; level: number });
    expect(records).toContainEqual(
      expect.objectContaining({
        level: 40,
        msg: 'platform API not used: enrichment and tagging work from local data only',
        error: expect.stringContaining('accessible by group or others') as string,
      }),
    );
  });
});
