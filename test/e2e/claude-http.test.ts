import type { ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { SessionRecord } from '../../src/ledger/types.js';
import { describeWithAgent } from '../harness/availability.js';
import { runClaude, type ClaudeRun } from '../harness/claude/run-claude.js';
import { claudeTestbed, type ClaudeTestbed } from '../harness/claude/testbed.js';
import { HOOKD_BIN } from '../helpers/fixtures.js';
import { jsonLines } from '../helpers/json-lines.js';
import { waitFor } from '../helpers/procs.js';
import { runHookd } from '../helpers/run-hookd.js';
import { spawnDaemon, stopDaemon } from '../integration/daemon/process-helpers.js';

// `hookd install --agent claude --transport http` under the REAL Claude Code 2.1.330: the observe-only
// events (Stop, SessionEnd) reach the daemon as Claude's own http POSTs, SessionStart (which Claude does
// not send to http hooks) still comes through the command hook. The daemon runs beside claude, in its
// network namespace (its loopback is the one claude posts to); afterwards a daemon started here
// processes what it journaled, and the ledger has the session.

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describeWithAgent('claude', 'http hooks under the real Claude Code 2.1.330', (bin) => {
  let bed: ClaudeTestbed;
  let env: Record<string, string>;
  let run: ClaudeRun;
  let daemon: ChildProcess | undefined;
  let hooks: Record<string, { hooks: Record<string, unknown>[] }[]>;
  let sessionId: string;
  const daemonLog = () => jsonLines(join(env.HOOKD_STATE_DIR!, 'logs', 'daemon.log'));
  const ledger = () => jsonLines<SessionRecord>(join(env.HOOKD_DATA_DIR!, 'ledger', 'sessions.jsonl'));

  beforeAll(async () => {
    bed = claudeTestbed('hkt-');
    env = {
      ...bed.env,
      HOOKD_RUNTIME_DIR: join(bed.tmp.dir, 'run'),
      HOOKD_STATE_DIR: join(bed.tmp.dir, 'state'),
      HOOKD_DATA_DIR: join(bed.tmp.dir, 'data'),
    };
    delete env.HOOKD_DAEMON;
    writeFileSync(
      env.HOOKD_CONFIG!,
      JSON.stringify({
        hooks: { SessionStart: [{ hooks: [bed.recorder()] }] },
        notify: { defaults: false, rules: [{ on: 'Stop', channels: ['desktop'] }], waitingDelayMs: 0 },
        enrich: { gitBranch: false },
        daemon: {
          httpHooks: { enabled: true, port: await freePort() },
          logLevel: 'debug',
          handoffTimeoutMs: 5000,
        },
      }),
    );
    const installed = await runHookd(['install', '--agent', 'claude', '--transport', 'http', '--json'], {
      env,
      cwd: bed.tmp.dir,
    });
    expect(installed.code, installed.stderr).toBe(0);
    hooks = JSON.parse(readFileSync(join(bed.home, '.claude', 'settings.json'), 'utf8')).hooks;
    run = await runClaude({
      bin,
      home: bed.home,
      work: bed.work,
      outDir: join(bed.tmp.dir, 'run-out'),
      mode: 'print',
      env,
      prompt: 'Say hi.',
      script: [{ text: 'hi' }],
      sidecar: {
        argv: [process.execPath, HOOKD_BIN, 'daemon', 'run'],
        env,
        readyFile: join(env.HOOKD_RUNTIME_DIR!, 'hookd.pid'),
      },
    });
    sessionId = bed.captured()[0]!.sid;
    // What the daemon beside claude journaled is processed by a daemon started here.
    daemon = await spawnDaemon(env);
    await waitFor(() => ledger().some((r) => r.sessionId === sessionId), 600, 100);
  });

  afterAll(async () => {
    await stopDaemon(daemon);
    bed?.tmp.cleanup();
  });

  it('install wrote http hooks for the observe-only events and a command hook for SessionStart', () => {
    expect(run.result).toMatchObject({ code: 0, timedOut: false });
    expect(hooks.Stop![0]!.hooks[0]).toMatchObject({ type: 'http', timeout: 5 });
    expect(hooks.SessionEnd![0]!.hooks[0]).toMatchObject({ type: 'http' });
    expect(hooks.SessionStart![0]!.hooks[0]).toMatchObject({ type: 'command' });
    expect(String(hooks.SessionStart![0]!.hooks[0]!.command)).toContain(
      process.env.HOOKD_NO_NATIVE_CLIENT === '1'
        ? 'hookd-client.bash --agent claude'
        : '/dist/hookd-client --agent claude',
    );
  });

  it('SessionStart came through the command hook, once', () => {
    expect(bed.captured().map((c) => c.ev)).toEqual(['SessionStart']);
    expect(sessionId).toBeTruthy();
  });

  it('Stop and SessionEnd reached the daemon over http, each once, and the ledger has the session', () => {
    const overHttp = daemonLog().filter((r) => r.kind === 'http-hook' && r.sessionId === sessionId);
    expect(overHttp.map((r) => r.event).sort()).toEqual(['SessionEnd', 'Stop']);
    expect(daemonLog().filter((r) => r.kind === 'http-hook' && r.status === 401)).toEqual([]);
    const record = ledger().find((r) => r.sessionId === sessionId)!;
    expect(record).toMatchObject({ agent: 'claude', project: bed.work });
  });
});
