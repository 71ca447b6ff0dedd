import { closeSync, constants, fstatSync, openSync, realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { projectConfigPath, stateDir, type Env } from '../paths.js';
import { readOpenFile, readPrivateFile, writePrivateFileAtomic } from '../util/private-fs.js';
import { isObject } from '../util/json-values.js';

/**
 * Trust of project config files, the way `direnv allow` and `mise trust` do it: `hookd trust <dir>`
 * records the sha256 of the project file's bytes in a private state file; the hook applies a project
 * file only while its bytes still hash to a trusted value. On the hook path: built-ins only, and
 * node:crypto (about 17 modules) is loaded only when a project file exists.
 */

export type TrustState = 'trusted' | 'untrusted' | 'changed';

export interface TrustInfo {
  state: TrustState;
  /** sha256 of the file's bytes now. */
  sha256: string;
  /** When the user trusted it (ISO), for `trusted` and `changed`. */
  trustedAt?: string;
  /** Trusted by a hookd that applies a project's notify rules (older records trusted hooks only). */
  notify?: boolean;
}

export interface TrustRecord {
  sha256: string;
  trustedAt: string;
  /** Set by `hookd trust` since project notify rules apply: the user was shown them. */
  notify?: true;
}

/** Trusted files by absolute path; a map without a prototype (paths are data from outside). */
export type TrustRecords = Record<string, TrustRecord>;

const MAX_TRUST_FILE_BYTES = 1024 * 1024;
/** A project config larger than this is never read (and so never trusted). */
export const MAX_PROJECT_CONFIG_BYTES = 1024 * 1024;

export function trustFilePath(env: Env): string {
  return join(stateDir(env), 'trust.json');
}

/** The command that trusts the project file of `dir`, for messages and fixes. */
export function trustFixCommand(projectDir: string): string {
  return `hookd trust ${/^[\w@%+=:,./-]+$/.test(projectDir) ? projectDir : `'${projectDir.replace(/'/g, `'\\''`)}'`}`;
}

export function sha256Hex(bytes: Buffer): string {
  // Loaded here, not at the top: a hook with no project file never pays for node:crypto.
  const { createHash } = process.getBuiltinModule('node:crypto');
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * The trust records, validated: a missing file is "nothing trusted"; a file that is not private (a
 * symlink, another owner, writable by others) or not of the expected shape is "nothing trusted" too, with
 * the problem to log. Never throws.
 */
export function readTrust(env: Env): { records: TrustRecords; problem?: string } {
  const records: TrustRecords = Object.create(null) as TrustRecords;
  const file = trustFilePath(env);
  const read = readPrivateFile(file, MAX_TRUST_FILE_BYTES);
  if (!read.ok) return read.missing ? { records } : { records, problem: read.problem };
  let data: unknown;
  try {
    data = JSON.parse(read.text);
  } catch (error) {
    return { records, problem: `${file} is not valid JSON (${(error as Error).message})` };
  }
  if (!isObject(data) || data.v !== 1 || !isObject(data.files))
    return { records, problem: `${file} is not a hookd trust file ({"v":1,"files":{...}})` };
  for (const [path, record] of Object.entries(data.files)) {
    if (
      !path.startsWith('/') ||
      !isObject(record) ||
      typeof record.sha256 !== 'string' ||
      !/^[0-9a-f]{64}$/.test(record.sha256) ||
      typeof record.trustedAt !== 'string'
    )
      return {
        records: Object.create(null) as TrustRecords,
        problem: `${file}: the record for ${JSON.stringify(path).slice(0, 200)} is malformed`,
      };
    records[path] = {
      sha256: record.sha256,
      trustedAt: record.trustedAt,
      ...(record.notify === true ? { notify: true as const } : {}),
    };
  }
  return { records };
}

function writeTrust(env: Env, records: TrustRecords): void {
  const files = Object.fromEntries(
    Object.keys(records)
      .sort()
      .map((k) => [k, records[k]!]),
  );
  writePrivateFileAtomic(trustFilePath(env), `${JSON.stringify({ v: 1, files }, null, 2)}\n`);
}

/** Records are keyed by the file's real path, so a symlinked project dir finds the same record. */
function trustKey(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return resolve(file);
  }
}

export function trustOf(records: TrustRecords, file: string, sha256: string): TrustInfo {
  const record = records[trustKey(file)];
  if (!record) return { state: 'untrusted', sha256 };
  return {
    state: record.sha256 === sha256 ? 'trusted' : 'changed',
    sha256,
    trustedAt: record.trustedAt,
    ...(record.notify ? { notify: true } : {}),
  };
}

/**
 * Reads a project config's bytes, bounded: null when absent. A directory, a FIFO or an oversized file
 * is an error (the caller reports it; the file is not applied).
 */
export function readProjectConfigBytes(file: string): Buffer | null {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new Error(`${file} is not a regular file`);
    if (st.size > MAX_PROJECT_CONFIG_BYTES)
      throw new Error(`${file} is ${st.size} bytes; project configs may have ${MAX_PROJECT_CONFIG_BYTES}`);
    return readOpenFile(fd, st.size);
  } finally {
    closeSync(fd);
  }
}

export interface TrustedFile {
  file: string;
  sha256: string;
  trustedAt: string;
}

/** `hookd trust <dir>`: records the current bytes of <dir>/.hookd/config.json as trusted. */
export function trustProjectFile(env: Env, file: string, now: Date = new Date()): TrustedFile {
  const abs = trustKey(file);
  const bytes = readProjectConfigBytes(abs);
  if (bytes === null) throw new Error(`${abs} does not exist`);
  const { records } = readTrust(env);
  const record = { sha256: sha256Hex(bytes), trustedAt: now.toISOString(), notify: true as const };
  records[abs] = record;
  writeTrust(env, records);
  return { file: abs, ...record };
}

/** `hookd trust --revoke <dir>`: true when a record was removed. */
export function revokeProjectFile(env: Env, file: string): boolean {
  const abs = trustKey(file);
  const { records } = readTrust(env);
  if (!records[abs]) return false;
  delete records[abs];
  writeTrust(env, records);
  return true;
}

export function listTrusted(env: Env): { trusted: TrustedFile[]; problem?: string } {
  const { records, problem } = readTrust(env);
  const trusted = Object.keys(records)
    .sort()
    .map((file) => ({ file, ...records[file]! }));
  return { trusted, ...(problem ? { problem } : {}) };
}

/** The trust of a project dir's config file as it is now (absent file: undefined). */
export function projectTrust(env: Env, projectDir: string): (TrustInfo & { file: string }) | undefined {
  const file = resolve(projectConfigPath(projectDir));
  const bytes = readProjectConfigBytes(file);
  if (bytes === null) return undefined;
  return { file, ...trustOf(readTrust(env).records, file, sha256Hex(bytes)) };
}
