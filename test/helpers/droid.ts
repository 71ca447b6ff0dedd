import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SHARED_DIR } from './fixtures.js';

/**
 * Runs the REAL Droid CLI 0.225.2 headless and offline through ../shared/tools/droid-harness, against
 * its scripted fake model, with hooks wired as given. The binary is installed once by the harness
 * (AUTO_INSTALL=1, from the npm registry). As root the run is isolated in its own network and PID
 * namespace, so nothing it starts outlives it.
 */
export const HARNESS = join(SHARED_DIR, 'tools', 'droid-harness', 'run-real-agent.sh');

export interface DroidRun {
  rc: number;
  outDir: string;
  home: string;
  work: string;
  stderr: string;
  fakeModelLog: string;
  droidLogs: string;
  /** Path of the first session's transcript files (.jsonl) under the throwaway HOME. */
  transcripts(): string[];
}

export type FakeStep =
  | { text: string }
  | { tool: string; input: Record<string, unknown> }
  | { parallel: { tool: string; input: Record<string, unknown> }[] };

export async function runRealDroid(options: {
  outDir: string;
  env: Record<string, string>;
  hookCmd?: string;
  hooksJson?: unknown;
  mode?: 'exec' | 'jsonrpc';
  script?: FakeStep[];
  prompt?: string;
  agentTimeoutSec?: number;
}): Promise<DroidRun> {
  const env: Record<string, string> = {
    ...options.env,
    AUTO_INSTALL: '1',
    OUT_DIR: options.outDir,
    MODE: options.mode ?? 'exec',
  };
  env.AGENT_TIMEOUT = String(options.agentTimeoutSec ?? 120);
  if (options.hookCmd) env.HOOK_CMD = options.hookCmd;
  if (options.hooksJson) env.HOOKS_JSON = JSON.stringify(options.hooksJson);
  if (options.prompt) env.PROMPT = options.prompt;
  if (options.script) {
    const file = `${options.outDir}.script.json`;
    writeFileSync(file, JSON.stringify(options.script));
    env.FAKE_SCRIPT = file;
  }
  const { code, stderr } = await new Promise<{ code: number; stderr: string }>((resolve, reject) => {
    const child = spawn('bash', [HARNESS], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (c) => resolve({ code: c ?? -1, stderr: err }));
  });
  const read = (p: string) => (existsSync(p) ? readFileSync(p, 'utf8') : '');
  const home = join(options.outDir, 'home');
  const logsDir = join(home, '.factory', 'logs');
  return {
    rc: code,
    outDir: options.outDir,
    home,
    work: join(options.outDir, 'work'),
    stderr,
    fakeModelLog: read(join(options.outDir, 'fake-model.log')),
    droidLogs: existsSync(logsDir)
      ? readdirSync(logsDir)
          .map((n) => read(join(logsDir, n)))
          .join('\n')
      : '',
    transcripts: () => {
      const sessions = join(home, '.factory', 'sessions');
      if (!existsSync(sessions)) return [];
      return readdirSync(sessions)
        .flatMap((d) => readdirSync(join(sessions, d)).map((f) => join(sessions, d, f)))
        .filter((f) => f.endsWith('.jsonl'));
    },
  };
}
