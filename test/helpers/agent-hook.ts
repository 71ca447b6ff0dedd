import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { HOOKD_BIN } from './fixtures.js';
import { jsonLines } from './json-lines.js';
import { collectRun, type Ran } from './run-hookd.js';

/** Single-quotes a value for sh (test-side only: the paths of the node binary and the built hookd). */
function shQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * Runs the built `hookd hook` exactly as the agent spawns a hook command: `sh -c "<command>"` in the
 * session's cwd, with the agent's env and the payload bytes on stdin, then closed.
 */
export function runHookAsAgent(options: {
  env: Record<string, string>;
  cwd: string;
  stdin: string | Buffer;
}): Promise<Ran> {
  const command = `${shQuote(process.execPath)} ${shQuote(HOOKD_BIN)} hook`;
  const child = spawn('sh', ['-c', command], {
    env: options.env,
    cwd: options.cwd,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  return collectRun(child, { stdin: options.stdin });
}

/** The parsed records of hookd's log file in an isolated env (XDG_STATE_HOME set by isolatedEnv). */
export function hookdLogRecords(env: Record<string, string>): Record<string, unknown>[] {
  return jsonLines(join(env.XDG_STATE_HOME!, 'hookd', 'logs', 'hookd.log'));
}
