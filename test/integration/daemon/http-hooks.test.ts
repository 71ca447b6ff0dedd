import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { requestDaemon } from '../../../src/daemon/client.js';
import { jsonLines } from '../../helpers/json-lines.js';
import { waitFor } from '../../helpers/procs.js';
import { isolatedEnv, makeTempDir } from '../../helpers/temp.js';
import { BIN, spawnDaemon, stopDaemon, useProcessCleanup, writeConfig } from './process-helpers.js';

// Claude Code's `type: "http"` hooks (issue 12): the daemon's loopback listener, through a real daemon
// process and real HTTP requests. The port and the token are stable across daemon restarts.

const { cleanups } = useProcessCleanup();
let tmp: ReturnType<typeof makeTempDir>;
let env: Record<string, string>;
let port: number;
let daemon: ChildProcess | undefined;

/** A port free right now (the listener needs a fixed one, as the URL in Claude's settings does). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: p } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return p;
}

interface Answer {
  status: number;
  body: string;
}

function post(
  body: string | Buffer,
  headers: Record<string, string> = {},
  options: { path?: string; method?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: options.path ?? '/hookd/v1/claude',
        method: options.method ?? 'POST',
        headers: { 'content-type': 'application/json', ...headers },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const tokenFile = () => join(env.XDG_STATE_HOME!, 'hookd', 'http-hooks.token');
const token = () => readFileSync(tokenFile(), 'utf8').trim();
const bearer = () => ({ authorization: `Bearer ${token()}` });
const daemonLog = () => jsonLines(join(env.XDG_STATE_HOME!, 'hookd', 'logs', 'daemon.log'));
const hookLog = () => jsonLines(join(env.XDG_STATE_HOME!, 'hookd', 'logs', 'hookd.log'));
const stop = (id: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    session_id: id,
    transcript_path: '/nonexistent/t.jsonl',
    cwd: tmp.dir,
    hook_event_name: 'Stop',
    stop_hook_active: false,
    last_assistant_message: 'done',
    ...extra,
  });

async function received(): Promise<number> {
  const reply = await requestDaemon({ v: 1, type: 'status' }, { env, timeoutMs: 2000 });
  if (!reply.ok) throw new Error(reply.error);
  return (reply.reply.status as { events: { received: number } }).events.received;
}

beforeEach(async () => {
  tmp = makeTempDir('hkh-');
  env = isolatedEnv(tmp.dir);
  port = await freePort();
  writeConfig(env, { daemon: { httpHooks: { enabled: true, port } }, notify: { defaults: false } });
  daemon = await spawnDaemon(env);
  cleanups.push(async () => {
    // The daemon now (a test may have restarted it), stopped by its pid.
    await stopDaemon(daemon);
    daemon = undefined;
    tmp.cleanup();
  });
});

describe("the daemon's http hook listener", () => {
  it('keeps its token private in the state dir', () => {
    expect(token()).toMatch(/^[0-9a-f]{64}$/);
    expect(statSync(tokenFile()).mode & 0o777).toBe(0o600);
    expect(statSync(join(env.XDG_STATE_HOME!, 'hookd')).mode & 0o777).toBe(0o700);
  });

  it('journals an event with the right token once and answers 200 {}', async () => {
    const before = await received();
    const answer = await post(stop('s-http-1'), bearer());
    expect(answer).toEqual({ status: 200, body: '{}' });
    expect(await received()).toBe(before + 1);
    const events = hookLog().filter((r) => r.kind === 'event' && r.sessionId === 's-http-1');
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ event: 'Stop', agent: 'claude', handoff: 'acked', commands: 0 });
  });

  it('refuses a missing or wrong token with 401, logs it without the token, and journals nothing', async () => {
    const before = await received();
    expect((await post(stop('s-none'))).status).toBe(401);
    const wrong = 'f'.repeat(64);
    expect((await post(stop('s-wrong'), { authorization: `Bearer ${wrong}` })).status).toBe(401);
    expect((await post(stop('s-basic'), { authorization: `Basic ${token()}` })).status).toBe(401);
    expect(await received()).toBe(before);
    await waitFor(() => daemonLog().filter((r) => r.kind === 'http-hook' && r.status === 401).length === 3);
    const refusals = daemonLog().filter((r) => r.kind === 'http-hook' && r.status === 401);
    expect(refusals.map((r) => r.reason)).toEqual(['no token', 'wrong token', 'wrong token']);
    const text = readFileSync(join(env.XDG_STATE_HOME!, 'hookd', 'logs', 'daemon.log'), 'utf8');
    expect(text).not.toContain(token());
    expect(text).not.toContain(wrong);
  });

  it('answers only POST of JSON to its path, and caps the body at 8 MiB', async () => {
    expect((await post(stop('s-x'), bearer(), { path: '/other' })).status).toBe(404);
    expect((await post('', bearer(), { method: 'GET' })).status).toBe(405);
    expect((await post(stop('s-x'), { ...bearer(), 'content-type': 'text/plain' })).status).toBe(400);
    expect((await post('{not json', bearer())).status).toBe(400);
    const big = Buffer.alloc(8 * 1024 * 1024 + 1, 0x20);
    expect((await post(big, bearer())).status).toBe(413);
    // Just under the cap is an event.
    const pad = 'x'.repeat(8 * 1024 * 1024 - 4096);
    expect((await post(stop('s-big', { pad }), bearer())).status).toBe(200);
  });

  it("gives an http event the project dir its session's command-hook events told the daemon", async () => {
    const project = join(tmp.dir, 'project');
    // SessionStart through the command hook (the Node path), with Claude Code's CLAUDE_PROJECT_DIR.
    const hookEnv: Record<string, string> = { ...env, CLAUDE_PROJECT_DIR: project };
    delete hookEnv.HOOKD_DAEMON;
    const start = spawn(process.execPath, [BIN, 'hook', '--agent', 'claude'], { env: hookEnv, cwd: tmp.dir });
    start.stdin.end(
      JSON.stringify({
        session_id: 's-proj',
        cwd: tmp.dir,
        hook_event_name: 'SessionStart',
        source: 'startup',
      }),
    );
    await new Promise((resolve) => start.once('close', resolve));
    // SessionEnd over http from another cwd: the ledger records the session's project, not that cwd.
    const end = JSON.stringify({
      session_id: 's-proj',
      cwd: join(tmp.dir, 'elsewhere'),
      hook_event_name: 'SessionEnd',
      reason: 'other',
    });
    expect((await post(end, bearer())).status).toBe(200);
    const ledger = join(env.XDG_DATA_HOME!, 'hookd', 'ledger', 'sessions.jsonl');
    await waitFor(() => jsonLines(ledger).some((r) => r.sessionId === 's-proj'), 400, 25);
    expect(jsonLines(ledger).find((r) => r.sessionId === 's-proj')).toMatchObject({ project });
  });

  it('keeps the port and the token across a daemon restart', async () => {
    const first = token();
    await stopDaemon(daemon);
    daemon = await spawnDaemon(env);
    expect(token()).toBe(first);
    const answer = await post(stop('s-restart'), { authorization: `Bearer ${first}` });
    expect(answer.status).toBe(200);
  });
});
