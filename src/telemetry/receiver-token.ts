import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { stateDir, type Env } from '../paths.js';
import { readPrivateFile, writePrivateFileAtomic } from '../util/private-fs.js';

/** Where the receiver's bearer token lives (0600 in a 0700 folder). */
export const receiverTokenPath = (env: Env): string => join(stateDir(env), 'telemetry', 'receiver-token');

const TOKEN = /^[0-9a-f]{64}$/;

/**
 * The receiver's bearer token: read from its private file, or made (32 random bytes, hex) and written
 * there when missing. A file that is not private, or not a token, is a problem: the caller reports it
 * and does not listen (a token others could read or plant proves nothing).
 */
export function receiverToken(
  env: Env,
  options: { create?: boolean } = {},
): { ok: true; token: string } | { ok: false; problem: string; missing?: boolean } {
  const file = receiverTokenPath(env);
  const read = readPrivateFile(file, 1024);
  if (read.ok) {
    // Others could have read it: a token they may know proves nothing.
    const mode = lstatSync(file).mode & 0o777;
    if ((mode & 0o077) !== 0)
      return {
        ok: false,
        problem: `${file} has mode ${mode.toString(8)}: others could have read the token; delete it and restart the daemon for a new one`,
      };
    const token = read.text.trim();
    return TOKEN.test(token) ? { ok: true, token } : { ok: false, problem: `${file} does not hold a token` };
  }
  if (!read.missing) return { ok: false, problem: read.problem };
  if (options.create === false) return { ok: false, problem: `${file} does not exist yet`, missing: true };
  const token = randomBytes(32).toString('hex');
  writePrivateFileAtomic(file, `${token}\n`);
  return { ok: true, token };
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/** Whether an Authorization header carries `token`, compared in constant time. */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const given = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1] ?? '';
  return timingSafeEqual(digest(given), digest(token)) && given.length > 0;
}
