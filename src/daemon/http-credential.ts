import { randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { stateDir, type Env } from '../paths.js';
import { readPrivateFile, writePrivateFileAtomic } from '../util/private-fs.js';

/**
 * The stable credential of Claude Code's `type: "http"` hooks (docs/hook.md, "Claude Code's http hooks").
 * Claude fills the hook's headers once, when a session starts, so the bearer token must outlive daemon
 * restarts: it lives in the state dir (0600 in a 0700 folder), not in the runtime dir, and changes only
 * when rotated (`hookd install --agent claude --transport http --rotate-token`).
 */

/** The one path the listener answers: `POST /hookd/v1/claude`. */
export const HTTP_HOOK_PATH = '/hookd/v1/claude';
/** The token file's name in the state dir. */
export const HTTP_TOKEN_FILE = 'http-hooks.token';

const TOKEN = /^[0-9a-f]{64}$/;

export function httpTokenPath(env: Env): string {
  return join(stateDir(env), HTTP_TOKEN_FILE);
}

/** The token in force, or undefined when there is none (or the file is not a valid private token file). */
export function readHttpToken(env: Env): { token?: string; problem?: string } {
  const read = readPrivateFile(httpTokenPath(env), 1024);
  if (!read.ok) return read.missing ? {} : { problem: read.problem };
  try {
    if ((statSync(httpTokenPath(env)).mode & 0o077) !== 0)
      return { problem: `${httpTokenPath(env)} is readable by others; not used` };
  } catch (error) {
    return { problem: (error as Error).message };
  }
  const token = read.text.trim();
  if (!TOKEN.test(token)) return { problem: `${httpTokenPath(env)} does not hold a hookd token` };
  return { token };
}

/** Writes a fresh token (256 random bits, hex) and returns it. */
export function rotateHttpToken(env: Env): string {
  const token = randomBytes(32).toString('hex');
  writePrivateFileAtomic(httpTokenPath(env), `${token}\n`);
  return token;
}

/** The token in force; a fresh one when there is none or the file is unusable. */
export function ensureHttpToken(env: Env): { token: string; created: boolean } {
  const { token } = readHttpToken(env);
  if (token) return { token, created: false };
  return { token: rotateHttpToken(env), created: true };
}

/** The URL Claude Code posts to. */
export function httpHookUrl(port: number): string {
  return `http://127.0.0.1:${port}${HTTP_HOOK_PATH}`;
}
