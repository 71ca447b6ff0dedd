import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { apiMessageText } from '../../../src/enrich/api-data.js';
import { createEnricher } from '../../../src/enrich/enricher.js';
import { defaultNotificationText } from '../../../src/notify/default-text.js';
import type { HookEvent } from '../../../src/events/types.js';
import { MAIN_SESSION, SUB_SESSION, makeTempHome, type TempHome } from './fixture-home.js';

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.cleanup();
});

describe('enrich on the real fixture store', () => {
  it('enriches a Stop with title, project, final message and usage', async () => {
    const enricher = createEnricher();
    const event = await home.event('16-Stop.json');
    const e = await enricher.enrich(event);
    expect(e.session).toMatchObject({
      id: MAIN_SESSION,
      title: 'OK',
      projectName: 'demo',
      isSubagent: false,
      model: 'custom:fake-chat',
      turnDurationMs: 1207,
      activeTimeMs: 1902,
      toolCalls: { Execute: 1, Create: 1, Task: 1 },
    });
    expect(e.session.tokens?.total).toBe(105);
    expect(e.session.ownTokens?.total).toBe(90);
    expect(e.lastMessage).toBe('All done: ran `echo hi`, created hook-demo.txt and ran a sub-agent.');
    expect(e.sources).toEqual(['event', 'transcript', 'settings']);
    expect(e.budgetExceeded).toBe(false);
    expect(defaultNotificationText(event, e)).toEqual({
      title: 'Finished: OK in demo',
      body: 'All done: ran `echo hi`, created hook-demo.txt and ran a sub-agent.\n1.2s · 105 tokens (15 in sub-agents)',
    });
  });

  it('names the sub-agent task on SubagentStop and marks the sub-agent session', async () => {
    const enricher = createEnricher();
    const stop = await home.event('14-SubagentStop.json');
    const e = await enricher.enrich(stop);
    expect(e.task).toEqual({ name: 'Tiny sub task', result: 'subagent finished', error: undefined });
    expect(defaultNotificationText(stop, e).title).toBe('Sub-agent finished: Tiny sub task');

    const subStop = await home.event('12-Stop.json');
    const sub = await enricher.enrich(subStop);
    expect(sub.session.isSubagent).toBe(true);
    expect(sub.session.parentId).toBe(MAIN_SESSION);
    expect(sub.lastMessage).toBe('subagent finished');
    expect(defaultNotificationText(subStop, sub).title).toBe('Sub-agent finished: Worker: Tiny sub task');
  });

  it('says which tool a Droid permission prompt is about, from the transcript as it was then', async () => {
    const path = home.transcript(MAIN_SESSION);
    const lines = (await readFile(path, 'utf8')).split('\n');
    const upTo = lines.findIndex((l) => l.includes('"id": "82023cad-35e5-4635-84ed-7b27cc121671"'));
    await writeFile(path, `${lines.slice(0, upTo + 1).join('\n')}\n`);
    const event = await home.event('04-Notification.json');
    const e = await createEnricher().enrich(event);
    expect(e.pendingTool).toBe('Execute');
    expect(defaultNotificationText(event, e)).toEqual({
      title: 'Needs your permission: Execute',
      body: 'OK in demo\nFactory CLI needs permission to execute 1 tool(s)',
    });
  });

  it('reads the git branch cheaply when the project is a repository', async () => {
    const project = join(home.home, 'projects', 'demo');
    await mkdir(join(project, '.git'), { recursive: true });
    await writeFile(join(project, '.git', 'HEAD'), 'ref: refs/heads/feature/x\n');
    const e = await createEnricher().enrich(await home.event('16-Stop.json'));
    expect(e.session.branch).toBe('feature/x');
    expect(e.session.project).toBe(project);
    expect(e.sources).toContain('git');
  });

  it('uses SessionEnd fields for duration and message count', async () => {
    const event = await home.event('19-SessionEnd.json');
    const e = await createEnricher().enrich(event);
    expect(e.session.durationMs).toBeCloseTo(2277.14, 1);
    expect(e.session.messageCount).toBe(23);
    expect(defaultNotificationText(event, e)).toEqual({
      title: 'Session ended: other',
      body: 'OK in demo\n2.3s · 105 tokens (15 in sub-agents) · 23 messages',
    });
  });
});

/** A loopback stand-in for the platform's message endpoint, switchable per test. */
interface FakeApi {
  base: string;
  hits: number;
  mode: 'ok' | '401' | '500' | 'slow' | 'hang';
  server: Server;
}

async function startFakeApi(): Promise<FakeApi> {
  const api: FakeApi = { base: '', hits: 0, mode: 'ok', server: createServer() };
  api.server.on('request', (req, res) => {
    api.hits++;
    const reply = () => {
      if (api.mode === '401') return void res.writeHead(401).end('{"detail":"invalid key"}');
      if (api.mode === '500') return void res.writeHead(500).end('{"detail":"boom"}');
      const id = req.url?.split('/').pop();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id,
          role: 'assistant',
          content: [{ id: 'c1', text: `cloud answer ${id}` }],
          createdAt: 1,
          updatedAt: 1,
        }),
      );
    };
    if (api.mode === 'hang') return;
    if (api.mode === 'slow') setTimeout(reply, 300);
    else reply();
  });
  await new Promise<void>((resolve) => api.server.listen(0, '127.0.0.1', resolve));
  api.base = `http://127.0.0.1:${(api.server.address() as AddressInfo).port}`;
  return api;
}

function httpFetchMessage(api: FakeApi) {
  return async (sessionId: string, messageId: string) => {
    const res = await fetch(`${api.base}/api/v0/sessions/${sessionId}/messages/${messageId}`, {
      headers: { authorization: 'Bearer fk-test-0000000000000000000000' },
    });
    if (!res.ok) throw Object.assign(new Error(`HTTP ${res.status}`), { status: res.status });
    return { text: apiMessageText(await res.json()) ?? '' };
  };
}

/** A Stop for a session whose transcript is not on this machine (a cloud or remote session). */
function cloudStop(messageId: string, sessionId = 'cloud-session-1'): HookEvent {
  return {
    id: `cloud-${messageId}`,
    receivedAt: 1,
    agent: 'droid',
    name: 'Stop',
    sessionId,
    cwd: '/nonexistent/cloud/project',
    payload: {
      hook_event_name: 'Stop',
      session_id: sessionId,
      message_id: messageId,
      cwd: '/nonexistent/cloud/project',
    },
  };
}

describe('enrich through the API (loopback server)', () => {
  let api: FakeApi;
  beforeEach(async () => {
    api = await startFakeApi();
  });
  afterEach(async () => {
    api.server.closeAllConnections();
    await new Promise((resolve) => api.server.close(resolve));
  });

  it('fetches the final message when the local transcript does not have it, and caches it', async () => {
    const enricher = createEnricher({ fetchMessage: httpFetchMessage(api), factoryHome: home.factoryHome });
    const first = await enricher.enrich(cloudStop('m-1'));
    expect(first.lastMessage).toBe('cloud answer m-1');
    expect(first.sources).toContain('api:message');
    const again = await enricher.enrich(cloudStop('m-1'));
    expect(again.lastMessage).toBe('cloud answer m-1');
    expect(again.sources).toContain('cache');
    expect(api.hits).toBe(1);
    enricher.forget('cloud-session-1');
    await enricher.enrich(cloudStop('m-1'));
    expect(api.hits).toBe(2);
  });

  it('does not call the API when the local transcript has the message', async () => {
    const enricher = createEnricher({ fetchMessage: httpFetchMessage(api) });
    const e = await enricher.enrich(await home.event('16-Stop.json'));
    expect(e.lastMessage).toMatch(/^All done/);
    expect(api.hits).toBe(0);
  });

  it('warns once per cause: repeated 401s once, then 500 once, again after a success', async () => {
    const warnings: string[] = [];
    const enricher = createEnricher({
      fetchMessage: httpFetchMessage(api),
      factoryHome: home.factoryHome,
      warn: (m) => warnings.push(m),
    });
    api.mode = '401';
    for (const id of ['a', 'b', 'c']) {
      const e = await enricher.enrich(cloudStop(id));
      expect(e.lastMessage).toBeUndefined();
      expect(e.warnings).toContain('api:message failed (http-401)');
    }
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/api:message failed \(http-401\).*check the API key/);
    expect(warnings[0]).not.toContain('fk-test');
    api.mode = '500';
    await enricher.enrich(cloudStop('d'));
    await enricher.enrich(cloudStop('e'));
    expect(warnings).toHaveLength(2);
    expect(warnings[1]).toMatch(/http-500/);
    api.mode = 'ok';
    expect((await enricher.enrich(cloudStop('f'))).lastMessage).toBe('cloud answer f');
    api.mode = '401';
    await enricher.enrich(cloudStop('g'));
    expect(warnings).toHaveLength(3);
  });

  it('goes out within the budget with local data when the API never answers, warning once', async () => {
    api.mode = 'hang';
    const warnings: string[] = [];
    const enricher = createEnricher({
      budgetMs: 100,
      fetchMessage: httpFetchMessage(api),
      warn: (m) => warnings.push(m),
    });
    const stop = await home.event('16-Stop.json');
    for (const messageId of ['not-local-1', 'not-local-2', 'not-local-3']) {
      const e = await enricher.enrich({ ...stop, payload: { ...stop.payload, message_id: messageId } });
      expect(e.budgetExceeded).toBe(true);
      expect(e.session.title).toBe('OK');
      expect(e.lastMessage).toMatch(/^All done/);
      expect(e.warnings).toContain('api:message did not answer within 100 ms');
      expect(defaultNotificationText(stop, e).title).toBe('Finished: OK in demo');
    }
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/did not answer within 100 ms/);
  });

  it('uses a slow answer on a later event once it has arrived', async () => {
    api.mode = 'slow';
    const enricher = createEnricher({
      budgetMs: 50,
      fetchMessage: httpFetchMessage(api),
      factoryHome: home.factoryHome,
    });
    const first = await enricher.enrich(cloudStop('slow-1'));
    expect(first.budgetExceeded).toBe(true);
    expect(first.lastMessage).toBeUndefined();
    // Wait for the server's late answer to land in the cache (no timing assertion: poll the outcome).
    let later = await enricher.enrich(cloudStop('slow-1'));
    while (!later.lastMessage) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      later = await enricher.enrich(cloudStop('slow-1'));
    }
    expect(later.lastMessage).toBe('cloud answer slow-1');
    expect(api.hits).toBe(1);
  });

  it('goes out when the API is down (connection refused)', async () => {
    const warnings: string[] = [];
    // Nothing listens on the port any more.
    api.server.closeAllConnections();
    await new Promise((resolve) => api.server.close(resolve));
    const enricher = createEnricher({
      fetchMessage: httpFetchMessage(api),
      factoryHome: home.factoryHome,
      warn: (m) => warnings.push(m),
    });
    const e1 = await enricher.enrich(cloudStop('x'));
    const e2 = await enricher.enrich(cloudStop('y'));
    expect(e1.warnings).toContain('api:message failed (ECONNREFUSED)');
    expect(e2.lastMessage).toBeUndefined();
    expect(warnings).toHaveLength(1);
  });
});

describe('enrich with injected API functions', () => {
  it('adds session data from the API for a session unknown locally', async () => {
    const enricher = createEnricher({
      factoryHome: home.factoryHome,
      fetchSession: async (sessionId) => ({
        sessionId,
        title: 'Cloud work',
        messageCount: 12,
        createdAt: 1000,
        completedAt: 61_000,
        sessionSettings: {
          model: 'claude-x',
          assistantActiveTimeMs: 5000,
          tokenUsage: { inputTokens: 1000, outputTokens: 500, serviceCredits: 2.5 },
        },
      }),
    });
    const event = cloudStop('m-9');
    const e = await enricher.enrich(event);
    expect(e.session).toMatchObject({
      title: 'Cloud work',
      model: 'claude-x',
      messageCount: 12,
      durationMs: 60_000,
      credits: 2.5,
    });
    expect(e.session.tokens?.total).toBe(1500);
    expect(e.sources).toEqual(['event', 'api:session']);
    expect(defaultNotificationText(event, e)).toEqual({
      title: 'Finished: Cloud work in project',
      body: '1m00s · 1.5k tokens · 2.5 credits',
    });
  });

  it('prefers local facts and never throws when the API function throws synchronously or returns junk', async () => {
    const enricher = createEnricher({
      fetchSession: () => {
        throw new TypeError('not a function of the network');
      },
      fetchMessage: async () => null,
    });
    const e = await enricher.enrich(await home.event('12-Stop.json'));
    expect(e.session.id).toBe(SUB_SESSION);
    expect(e.session.title).toBe('Worker: Tiny sub task');
    expect(e.warnings).toContain('api:session failed (TypeError)');
  });

  it('enriches an event without a session id from the event alone', async () => {
    const e = await createEnricher().enrich({
      id: '1',
      receivedAt: 1,
      agent: 'unknown',
      name: 'Mystery',
      payload: { cwd: '/tmp/x' },
    });
    expect(e.session).toMatchObject({ id: 'unknown', projectName: 'x', isSubagent: false });
    expect(e.sources).toEqual(['event']);
  });
});

describe('enrich with a cached session and a failing read', () => {
  it('keeps the title when the transcript disappears but never repeats an old message as new', async () => {
    const enricher = createEnricher();
    const first = await enricher.enrich(await home.event('16-Stop.json'));
    expect(first.lastMessage).toMatch(/^All done/);
    const { rm } = await import('node:fs/promises');
    await rm(home.transcript(MAIN_SESSION));
    const stop = await home.event('16-Stop.json');
    const second = await enricher.enrich({
      ...stop,
      payload: { ...stop.payload, message_id: 'a-newer-message' },
    });
    expect(second.session.title).toBe('OK');
    expect(second.lastMessage).toBeUndefined();
    expect(second.warnings).toContain('transcript missing');
  });
});
