import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach } from 'vitest';
import { join } from 'node:path';
import { buildHookdCommand } from '../../src/install/hookd-command.js';
import { CLAUDE_FIXTURES_DIR, fixture, HOOKD_BIN } from './fixtures.js';
import { collectRun, type Ran } from './run-hookd.js';
import { isolatedEnv, makeTempDir } from './temp.js';

/** The command `hookd install` writes into the agent's settings for this checkout's build. */
export function installedCommand(): string {
  return buildHookdCommand(HOOKD_BIN);
}

export interface AgentSpawn {
  /** The environment the agent itself runs with (the test's isolated hookd env). */
  env: Record<string, string>;
  /** The session's working directory: where the agent starts the hook. */
  cwd: string;
  /** The agent's project dir (FACTORY_PROJECT_DIR / CLAUDE_PROJECT_DIR); default: cwd. */
  projectDir?: string;
  agent?: 'droid' | 'claude';
  /** The hook command as written in the agent's settings; default: the installed one. */
  command?: string;
  /**
   * Shell text run before the hook command, in the same shell (e.g. `rmdir "$DIR"` to delete the
   * session's cwd under the hook, as happens when a tool removes its own directory).
   */
  prelude?: string;
  /** Export every top-level scalar field as Droid does (default true for Droid). */
  exportFields?: boolean;
}

/**
 * Spawns a hook command exactly as the agents do (hook-protocol.md, hook-protocol-claude.md): `/bin/sh
 * -c "<command>"` in its own process group, in the session's cwd, with the agent's env plus the project
 * dir variables (Droid: also every top-level scalar field of the payload), the payload on stdin as one
 * line (Claude Code: with a trailing newline), then EOF.
 */
export function runAsAgent(payload: string | Buffer, options: AgentSpawn): Promise<Ran> {
  const agent = options.agent ?? 'droid';
  const projectDir = options.projectDir ?? options.cwd;
  const env: Record<string, string> = { ...options.env, CLAUDE_PROJECT_DIR: projectDir };
  if (agent === 'droid') {
    env.FACTORY_PROJECT_DIR = projectDir;
    env.DROID_PROJECT_DIR = projectDir;
    if (options.exportFields !== false) {
      let fields: unknown;
      try {
        fields = JSON.parse(payload.toString());
      } catch {}
      if (fields && typeof fields === 'object' && !Array.isArray(fields)) {
        for (const [key, value] of Object.entries(fields)) {
          if (['string', 'number', 'boolean'].includes(typeof value)) env[key] = String(value);
        }
      }
    }
  }
  const command = options.command ?? installedCommand();
  const script = options.prelude ? `${options.prelude}\n${command}` : command;
  const input = agent === 'claude' ? Buffer.concat([Buffer.from(payload), Buffer.from('\n')]) : payload;
  const child = spawn('/bin/sh', ['-c', script], {
    env,
    cwd: options.cwd,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  return collectRun(child, { stdin: input });
}

const PAYLOADS = {
  droid: {
    PreToolUse: 'jsonrpc/03-PreToolUse-Execute.json',
    UserPromptSubmit: 'jsonrpc/02-UserPromptSubmit.json',
    Stop: 'jsonrpc/16-Stop.json',
  },
  claude: {
    PreToolUse: 'print/03-PreToolUse-Bash.json',
    UserPromptSubmit: 'print/02-UserPromptSubmit.json',
    Stop: 'print/15-Stop.json',
  },
} as const;

/** A recorded payload of that agent (the shell tool for PreToolUse), as one JSON line. */
export function agentPayload(
  agent: 'droid' | 'claude',
  event: keyof (typeof PAYLOADS)['droid'],
  fields: Record<string, unknown> = {},
): string {
  const recorded =
    agent === 'droid'
      ? fixture(PAYLOADS.droid[event])
      : (JSON.parse(readFileSync(join(CLAUDE_FIXTURES_DIR, PAYLOADS.claude[event]), 'utf8')) as Record<
          string,
          unknown
        >);
  return JSON.stringify({ ...recorded, ...fields });
}

export interface HookSandbox {
  /** The temp dir holding everything; removed after each test. */
  dir: string;
  /** An isolated hookd environment (config, state and home inside `dir`; no daemon hand-off). */
  env: Record<string, string>;
  /** An existing project directory inside `dir`. */
  project: string;
  /** Writes the user config file (`$HOOKD_CONFIG`). */
  writeConfig: (config: unknown) => void;
}

/** A fresh sandbox per test (registered with beforeEach/afterEach); read its fields inside tests. */
export function useHookSandbox(): HookSandbox {
  const box = {} as HookSandbox;
  let cleanup = () => {};
  beforeEach(() => {
    const tmp = makeTempDir();
    cleanup = tmp.cleanup;
    box.dir = tmp.dir;
    box.project = join(tmp.dir, 'project');
    mkdirSync(box.project);
    mkdirSync(join(tmp.dir, 'home'));
    box.env = isolatedEnv(tmp.dir, { HOOKD_DAEMON: '0' });
    box.writeConfig = (config) => writeFileSync(box.env.HOOKD_CONFIG!, JSON.stringify(config));
  });
  afterEach(() => cleanup());
  return box;
}
