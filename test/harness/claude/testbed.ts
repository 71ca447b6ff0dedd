import type { ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLAUDE_EVENTS } from '../../../src/events/names.js';
import { jsonLines } from '../../helpers/json-lines.js';
import { runHookd } from '../../helpers/run-hookd.js';
import { isolatedEnv, makeTempDir } from '../../helpers/temp.js';
import { spawnDaemon, stopDaemon } from '../../integration/daemon/process-helpers.js';
import { prepareClaudeHome, runClaude, type ClaudeRun, type ClaudeRunOptions } from './run-claude.js';

/** What the recorder command saw for one event. */
export interface Captured {
  stdin: string;
  /** HOOKD_EVENT, HOOKD_AGENT, HOOKD_SESSION_ID, HOOKD_PROJECT_DIR: what hookd made of the event. */
  ev: string;
  agent: string;
  sid: string;
  project: string;
  /** CLAUDE_PROJECT_DIR and CLAUDE_CODE_SESSION_ID, as Claude Code set them. */
  claudeProject: string;
  claudeSession: string;
  /** `$hook_event_name`: a payload field exported by hookd. */
  exported: string | null;
  pwd: string;
}

export interface ClaudeTestbed {
  tmp: ReturnType<typeof makeTempDir>;
  /** hookd's isolated environment; HOME is the throwaway home Claude Code runs in. */
  env: Record<string, string>;
  home: string;
  work: string;
  capture: string;
  captured(): Captured[];
  payloadOf(c: Captured): Record<string, unknown>;
  /** A hookd command that appends what it was given to `capture`. */
  recorder(): { type: 'command'; command: string; name: string; env: Record<string, string> };
  /**
   * `env` with the daemon's runtime, state and data dirs inside the testbed and no HOOKD_DAEMON: for a
   * test that starts its own daemon and reads its files.
   */
  daemonEnv(): Record<string, string>;
  /** `hookd install --agent claude` for all 33 events into the throwaway HOME: the command and the hooks. */
  install(): Promise<{ command: string; hooks: Record<string, unknown> }>;
  /** Runs the real Claude Code `bin` in the throwaway HOME and work folder; its files in `out` (`run-out`). */
  run(bin: string, options: BedRunOptions): Promise<ClaudeRun>;
  /** Writes `config` as hookd's config of `env` (one from daemonEnv) and starts the built daemon with it. */
  startDaemon(env: Record<string, string>, config: unknown): Promise<ChildProcess>;
  /** Stops the daemon startDaemon started, by its PID, and removes the testbed's files. */
  close(): Promise<void>;
}

/** A testbed run's options: the testbed gives the HOME, the work folder and the run's folder. */
export type BedRunOptions = Omit<ClaudeRunOptions, 'bin' | 'home' | 'work' | 'outDir'> & { out?: string };

export function claudeTestbed(prefix: string): ClaudeTestbed {
  const tmp = makeTempDir(prefix);
  let daemon: ChildProcess | undefined;
  const env = isolatedEnv(tmp.dir);
  const home = env.HOME!;
  const work = join(tmp.dir, 'work');
  prepareClaudeHome(home, work);
  const capture = join(tmp.dir, 'capture.jsonl');
  const fields = [
    'stdin:fs.readFileSync(0,"utf8")',
    'ev:e.HOOKD_EVENT',
    'agent:e.HOOKD_AGENT',
    'sid:e.HOOKD_SESSION_ID',
    'project:e.HOOKD_PROJECT_DIR',
    'claudeProject:e.CLAUDE_PROJECT_DIR',
    'claudeSession:e.CLAUDE_CODE_SESSION_ID',
    'exported:e.hook_event_name??null',
    'pwd:process.cwd()',
  ].join(',');
  const command = `node -e 'const fs=require("fs");const e=process.env;fs.appendFileSync(e.CAP,JSON.stringify({${fields}})+"\\n")'`;
  return {
    tmp,
    env,
    home,
    work,
    capture,
    captured: () => jsonLines<Captured>(capture),
    payloadOf: (c) => JSON.parse(c.stdin) as Record<string, unknown>,
    recorder: () => ({ type: 'command', command, name: 'recorder', env: { CAP: capture } }),
    daemonEnv: () => {
      const { HOOKD_DAEMON: _daemon, ...rest } = env;
      return {
        ...rest,
        HOOKD_RUNTIME_DIR: join(tmp.dir, 'run'),
        HOOKD_STATE_DIR: join(tmp.dir, 'state'),
        HOOKD_DATA_DIR: join(tmp.dir, 'data'),
      };
    },
    install: async () => {
      const args = [
        'install',
        '--agent',
        'claude',
        '--events',
        CLAUDE_EVENTS.join(','),
        '--transport',
        'node',
        '--json',
      ];
      const ran = await runHookd(args, { env, cwd: tmp.dir });
      if (ran.code !== 0) throw new Error(`hookd install failed: ${ran.stderr}`);
      const settings = JSON.parse(readFileSync(join(home, '.claude', 'settings.json'), 'utf8')) as {
        hooks: Record<string, unknown>;
      };
      return { command: (JSON.parse(ran.stdout) as { command: string }).command, hooks: settings.hooks };
    },
    run: (bin, { out = 'run-out', ...options }) =>
      runClaude({ ...options, bin, home, work, outDir: join(tmp.dir, out) }),
    startDaemon: async (daemonEnv, config) => {
      writeFileSync(daemonEnv.HOOKD_CONFIG!, JSON.stringify(config));
      daemon = await spawnDaemon(daemonEnv);
      return daemon;
    },
    close: async () => {
      await stopDaemon(daemon);
      tmp.cleanup();
    },
  };
}
