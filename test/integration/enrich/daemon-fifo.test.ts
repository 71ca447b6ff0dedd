import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { handOff } from '../../../src/link/client.js';
import { daemonFiles, readPidFile } from '../../../src/link/runtime-files.js';
import { FIXTURES_DIR } from '../../helpers/fixtures.js';
import { runHookd } from '../../helpers/run-hookd.js';
import { CLAUDE_TRANSCRIPT, MAIN_SESSION as MAIN } from './fixture-home.js';
import { handoffOf, loopbackServer, tempEnv, waitFor } from '../daemon/helpers.js';
import {
  exited,
  killQuietly,
  spawnDaemon,
  useProcessCleanup,
  writeConfig,
} from '../daemon/process-helpers.js';

const { pids, cleanups } = useProcessCleanup();

const STOP = JSON.parse(readFileSync(join(FIXTURES_DIR, 'jsonrpc', '16-Stop.json'), 'utf8')) as Record<
  string,
  unknown
>;

describe('files named by events that are not regular files', () => {
  it('FIFOs as transcripts, settings and sub-agent files never stall the daemon: later events are delivered, stop is prompt', async () => {
    const t = tempEnv();
    cleanups.push(t.cleanup);
    cleanups.push(() => killQuietly(readPidFile(daemonFiles(t.env).lock)));
    const hook = await loopbackServer();
    cleanups.push(hook.close);
    writeConfig(t.env, {
      notify: {
        channels: { ops: { type: 'webhook', url: `${hook.url}/hook` } },
        rules: [{ on: ['Stop'], channels: ['ops'], title: 'done {{sessionId}} {{session.title}}' }],
        noise: { dedupeWindowMs: 0 },
      },
    });
    const home = join(t.root, 'home');
    const droidDir = join(home, '.factory', 'sessions', '-work');
    const claudeDir = join(home, '.claude', 'projects', '-work');
    mkdirSync(droidDir, { recursive: true });
    mkdirSync(claudeDir, { recursive: true });
    const fifo = (path: string) => execFileSync('mkfifo', [path]);
    const env = t.env as Record<string, string>;
    const daemon = await spawnDaemon(t.env);
    pids.push(daemon.pid!);

    // More FIFOs than the thread pool has threads (4), in every place the enricher reads from.
    const hostile: Record<string, unknown>[] = [];
    for (let i = 0; i < 6; i++) {
      const id = `fifo-transcript-${i}`;
      fifo(join(droidDir, `${id}.jsonl`));
      hostile.push({ ...STOP, session_id: id, transcript_path: join(droidDir, `${id}.jsonl`) });
    }
    for (let i = 0; i < 2; i++) {
      // A regular transcript with a FIFO as its settings file.
      const id = `fifo-settings-${i}`;
      cpSync(
        join(FIXTURES_DIR, 'factory-home', 'sessions', '-home-dev-projects-demo', `${MAIN}.jsonl`),
        join(droidDir, `${id}.jsonl`),
      );
      fifo(join(droidDir, `${id}.settings.json`));
      hostile.push({ ...STOP, session_id: id, transcript_path: join(droidDir, `${id}.jsonl`) });
    }
    for (let i = 0; i < 2; i++) {
      const id = `fifo-claude-${i}`;
      fifo(join(claudeDir, `${id}.jsonl`));
      hostile.push({ ...STOP, session_id: id, transcript_path: join(claudeDir, `${id}.jsonl`) });
    }
    {
      // A Claude session whose sub-agent transcript and .meta.json are FIFOs, in a repository whose
      // .git/HEAD is one.
      const id = 'fifo-claude-subagent';
      cpSync(CLAUDE_TRANSCRIPT, join(claudeDir, `${id}.jsonl`));
      const subagents = join(claudeDir, id, 'subagents');
      mkdirSync(subagents, { recursive: true });
      fifo(join(subagents, 'agent-a1.jsonl'));
      fifo(join(subagents, 'agent-a1.meta.json'));
      const repo = join(t.root, 'repo');
      mkdirSync(join(repo, '.git'), { recursive: true });
      fifo(join(repo, '.git', 'HEAD'));
      hostile.push({
        ...STOP,
        session_id: id,
        cwd: repo,
        agent_id: 'a1',
        transcript_path: join(claudeDir, `${id}.jsonl`),
      });
    }
    for (const payload of hostile)
      expect((await handOff(handoffOf(payload), { env, timeoutMs: 5000 })).outcome).toBe('acked');

    // A normal event after them is still enriched and delivered.
    const normal = 'normal-session';
    cpSync(
      join(FIXTURES_DIR, 'factory-home', 'sessions', '-home-dev-projects-demo', `${MAIN}.jsonl`),
      join(droidDir, `${normal}.jsonl`),
    );
    const event = handoffOf({
      ...STOP,
      session_id: normal,
      transcript_path: join(droidDir, `${normal}.jsonl`),
    });
    expect((await handOff(event, { env, timeoutMs: 5000 })).outcome).toBe('acked');
    const titles = () =>
      hook.received.map((r) => (r.json as { notification: { title: string } }).notification.title);
    await waitFor(() => titles().includes(`done ${normal} OK`), 30_000, 'the normal event delivered');
    // Every hostile event was notified too, with what could be read.
    await waitFor(() => titles().length >= hostile.length + 1, 30_000, 'all events delivered');

    const stop = await runHookd(['daemon', 'stop'], { env });
    expect(stop.stderr).toBe('');
    expect(stop.stdout).toMatch(/hookd daemon stopped/);
    expect(stop.code).toBe(0);
    expect((await exited(daemon)).code).toBe(0);
  });
});
