import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readlinkSync,
  realpathSync,
  type Stats,
} from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { projectConfigPath, stateDir, type Env } from '../paths.js';
import { readOpenFile, readPrivateFile, writePrivateFileAtomic } from '../util/private-fs.js';
import { isObject } from '../util/json-values.js';
import { printable } from '../util/text/printable.js';

/**
 * Trust of project configs, the way `direnv allow` and `mise trust` do it: `hookd trust <dir>` records
 * the sha256 of `<dir>/.hookd/config.json`'s bytes under the project dir's real path, in a private state
 * file; a project config applies only in that dir and only while its bytes still hash to the trusted
 * value. The key is where the config applies (its commands run there, `./scripts/check.sh` included),
 * so the file is read only from a real `.hookd` folder and as a regular file, never through a symlink
 * inside the project: a repository cannot borrow a config trusted for another one.
 *
 * On the hook path: built-ins only, and node:crypto (about 17 modules) is loaded only when a project
 * file exists and changed.
 */

/**
 * - `trusted`: these bytes, in this project dir, are what the user trusted.
 * - `untrusted`: the user never trusted a config for this dir.
 * - `changed`: the user trusted other bytes for this dir.
 * - `unsafe`: `.hookd` or `.hookd/config.json` is a symlink: hookd does not read it (`reason`, `fix`).
 */
export type TrustState = 'trusted' | 'untrusted' | 'changed' | 'unsafe';

export interface TrustInfo {
  state: TrustState;
  /** sha256 of the file's bytes now ('' when `unsafe`: the file is not read). */
  sha256: string;
  /** The project dir's real path: what a trust record is keyed on. */
  dir: string;
  /** When the user trusted it (ISO), when there is a record. */
  trustedAt?: string;
  /** Trusted by a hookd that applies a project's notify rules (older records trusted hooks only). */
  notify?: boolean;
  /** `unsafe`: why hookd does not read the file. */
  reason?: string;
  /** `unsafe`: what to do about it. */
  fix?: string;
  /** The user trusted this project's config, and it does not apply any more (changed, or now a link). */
  lapsed?: true;
}

export interface TrustRecord {
  sha256: string;
  trustedAt: string;
  /** Set by `hookd trust` since project notify rules apply: the user was shown them. */
  notify?: true;
}

/**
 * The trust file, read. Maps without a prototype (their keys are paths, data from outside).
 * - `projects`: by the project dir's real path.
 * - `old`: records of an older hookd, keyed by the config file's real path, not carried over (yet): one
 *   carries over when its file is `<dir>/.hookd/config.json` in a real `.hookd` folder and its bytes
 *   still match (`carryOver`); until then it is looked up under that file, and reported, never dropped.
 */
export interface TrustData {
  projects: Record<string, TrustRecord>;
  old: Record<string, TrustRecord>;
}

const MAX_TRUST_FILE_BYTES = 1024 * 1024;
/** A project config larger than this is never read (and so never trusted). */
export const MAX_PROJECT_CONFIG_BYTES = 1024 * 1024;
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const CONFIG_SUFFIX = `${sep}.hookd${sep}config.json`;

export function trustFilePath(env: Env): string {
  return join(stateDir(env), 'trust.json');
}

/** A path quoted for sh when it needs it, for the commands hookd's messages suggest. */
function shellWord(path: string): string {
  return /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
}

/** The command that trusts the project config of `dir`, for messages and fixes. */
export function trustFixCommand(projectDir: string): string {
  return `hookd trust ${shellWord(projectDir)}`;
}

export function sha256Hex(bytes: Buffer): string {
  // Loaded here, not at the top: a hook with no project file never pays for node:crypto.
  const { createHash } = process.getBuiltinModule('node:crypto');
  return createHash('sha256').update(bytes).digest('hex');
}

const emptyData = (): TrustData => ({
  projects: Object.create(null) as Record<string, TrustRecord>,
  old: Object.create(null) as Record<string, TrustRecord>,
});

/** The records of one section of the trust file, validated; a string says what is wrong. */
function parseRecords(file: string, section: unknown): Record<string, TrustRecord> | string {
  const records = Object.create(null) as Record<string, TrustRecord>;
  if (section === undefined) return records;
  if (!isObject(section)) return `${file} is not a hookd trust file`;
  for (const [path, record] of Object.entries(section)) {
    if (
      !path.startsWith('/') ||
      !isObject(record) ||
      typeof record.sha256 !== 'string' ||
      !/^[0-9a-f]{64}$/.test(record.sha256) ||
      typeof record.trustedAt !== 'string'
    )
      return `${file}: the record for ${JSON.stringify(path).slice(0, 200)} is malformed`;
    records[path] = {
      sha256: record.sha256,
      trustedAt: record.trustedAt,
      ...(record.notify === true ? { notify: true as const } : {}),
    };
  }
  return records;
}

/**
 * The trust records, validated: a missing file is "nothing trusted"; a file that is not private (a
 * symlink, another owner, writable by others) or not of the expected shape is "nothing trusted" too,
 * with the problem to log. Reads both formats: 2 (by project dir) and 1 (by config file, an older
 * hookd's: every record is then an old one). Never throws.
 */
export function readTrust(env: Env): { data: TrustData; problem?: string } {
  const file = trustFilePath(env);
  const read = readPrivateFile(file, MAX_TRUST_FILE_BYTES);
  if (!read.ok) return read.missing ? { data: emptyData() } : { data: emptyData(), problem: read.problem };
  let parsed: unknown;
  try {
    parsed = JSON.parse(read.text);
  } catch (error) {
    return { data: emptyData(), problem: `${file} is not valid JSON (${(error as Error).message})` };
  }
  const shapes = '{"v":2,"projects":{...}} (or an older {"v":1,"files":{...}})';
  if (!isObject(parsed))
    return { data: emptyData(), problem: `${file} is not a hookd trust file (${shapes})` };
  const sections =
    parsed.v === 2 && isObject(parsed.projects)
      ? [parsed.projects, parsed.notCarriedOver]
      : parsed.v === 1 && isObject(parsed.files)
        ? [undefined, parsed.files]
        : undefined;
  if (!sections) return { data: emptyData(), problem: `${file} is not a hookd trust file (${shapes})` };
  const projects = parseRecords(file, sections[0]);
  const old = parseRecords(file, sections[1]);
  if (typeof projects === 'string') return { data: emptyData(), problem: projects };
  if (typeof old === 'string') return { data: emptyData(), problem: old };
  return { data: { projects, old } };
}

// --- Reading a project config without following a link inside the project ---

/** What is at `<dir>/.hookd/config.json`, read the one way hookd reads a project config. */
export type ProjectConfigRead =
  | { kind: 'absent'; dir: string; file: string }
  | {
      kind: 'unsafe';
      dir: string;
      file: string;
      reason: string;
      fix: string;
      /** The real path the link leads to (where an older hookd keyed its record). */
      followed: string;
    }
  | { kind: 'file'; dir: string; file: string; bytes: Buffer };

function realOrUndefined(path: string): string | undefined {
  try {
    return realpathSync.native(path);
  } catch {
    return undefined;
  }
}

function inside(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith(sep) ? dir : `${dir}${sep}`);
}

/** The fix for a project config hookd does not read, for `hookd trust` and every report. */
function unsafeFix(projectDir: string): string {
  return `make .hookd a real folder and .hookd/config.json a regular file inside the project (no symlink), review it, then run: ${trustFixCommand(projectDir)}`;
}

/** Why a link in the project is not followed: where it points, and whether that leaves the project. */
function linkRead(
  link: string,
  shownLink: string,
  dir: string,
  file: string,
  given: string,
  followed: string,
): ProjectConfigRead {
  let target = '';
  try {
    target = readlinkSync(link);
  } catch {}
  const where = target ? ` to ${printable(target)}` : '';
  const outside = inside(followed, dir) ? '' : ', outside the project';
  return {
    kind: 'unsafe',
    dir,
    file,
    reason: `${printable(shownLink)} is a symlink${where}${outside}; hookd reads a project's config only from a real .hookd folder inside the project, as a regular file`,
    fix: unsafeFix(given),
    followed,
  };
}

const sameNode = (a: Stats | undefined, b: Stats) => a !== undefined && a.dev === b.dev && a.ino === b.ino;

/**
 * Reads `<projectDir>/.hookd/config.json` the way hookd applies it: the project dir by its real path,
 * `.hookd` only when it is a real folder (lstat), the file opened with O_NOFOLLOW and judged by fstat
 * (a regular file, bounded). No component inside the project is a link, so the file's real path is
 * `<real dir>/.hookd/config.json`, inside the project, by construction. A link there is `unsafe` (not
 * read); a link that leads nowhere, like a missing file, is `absent`. After reading, the folder and the
 * file at the path are checked to be the ones opened (one swapped for a link meanwhile is an error, read
 * again on the next event). Throws for a file that cannot be read (a directory, a FIFO, too large,
 * permissions): the caller reports it and does not apply it.
 */
export function readProjectConfig(projectDir: string): ProjectConfigRead {
  const given = resolve(projectDir);
  const file = projectConfigPath(given);
  let dir: string;
  try {
    dir = realpathSync.native(given);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'absent', dir: given, file };
    throw error;
  }
  const absent = { kind: 'absent' as const, dir, file };
  const folder = join(dir, '.hookd');
  const folderSt = lstatSync(folder, { throwIfNoEntry: false });
  if (!folderSt) return absent;
  const target = join(folder, 'config.json');
  if (folderSt.isSymbolicLink()) {
    const followed = realOrUndefined(target);
    return followed === undefined ? absent : linkRead(folder, `${given}/.hookd`, dir, file, given, followed);
  }
  if (!folderSt.isDirectory()) throw new Error(`${given}/.hookd is not a directory`);
  let fd: number;
  try {
    fd = openSync(target, constants.O_RDONLY | constants.O_NONBLOCK | NOFOLLOW);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return absent;
    if (lstatSync(target, { throwIfNoEntry: false })?.isSymbolicLink()) {
      const followed = realOrUndefined(target);
      return followed === undefined ? absent : linkRead(target, file, dir, file, given, followed);
    }
    throw error;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new Error(`${file} is not a regular file`);
    if (st.size > MAX_PROJECT_CONFIG_BYTES)
      throw new Error(`${file} is ${st.size} bytes; project configs may have ${MAX_PROJECT_CONFIG_BYTES}`);
    const bytes = readOpenFile(fd, st.size);
    const folderNow = lstatSync(folder, { throwIfNoEntry: false });
    if (
      !sameNode(folderNow, folderSt) ||
      !folderNow!.isDirectory() ||
      !sameNode(lstatSync(target, { throwIfNoEntry: false }), st)
    )
      throw new Error(`${file} was replaced while hookd read it`);
    return { kind: 'file', dir, file, bytes };
  } finally {
    closeSync(fd);
  }
}

/**
 * What changes whenever what `readProjectConfig` would find may have changed, from two lstats and no
 * read: the `.hookd` entry (a folder or a link: type, inode) and the config entry behind it (type,
 * inode, size, times). "absent" when there is no config. For caches keyed on the config's state.
 */
export function projectConfigStamp(projectDir: string): string {
  try {
    const folder = lstatSync(join(projectDir, '.hookd'), { throwIfNoEntry: false });
    if (!folder) return 'absent';
    const f = lstatSync(projectConfigPath(projectDir), { throwIfNoEntry: false });
    if (!f) return 'absent';
    return `${folder.dev}:${folder.ino}:${folder.mode}|${f.dev}:${f.ino}:${f.mode}:${f.size}:${f.mtimeMs}:${f.ctimeMs}`;
  } catch {
    return 'absent';
  }
}

// --- Whether a project config applies ---

/** The old record (keyed by file) an older hookd would have used for what `read` found. */
function oldRecordFor(data: TrustData, read: Exclude<ProjectConfigRead, { kind: 'absent' }>) {
  if (read.kind === 'file') return data.old[join(read.dir, '.hookd', 'config.json')];
  // A link that stays in the project was this project's own config: its trust lapsed. One that leaves
  // it served another project (or is a hostile repository's borrowed config): no lapse here.
  return inside(read.followed, read.dir) ? data.old[read.followed] : undefined;
}

/** The trust of a project config as read now (a current record first, else an older hookd's). */
export function trustOf(data: TrustData, read: Exclude<ProjectConfigRead, { kind: 'absent' }>): TrustInfo {
  const record = data.projects[read.dir] ?? oldRecordFor(data, read);
  const known = record ? { trustedAt: record.trustedAt, ...(record.notify ? { notify: true } : {}) } : {};
  if (read.kind === 'unsafe')
    return {
      state: 'unsafe',
      sha256: '',
      dir: read.dir,
      reason: read.reason,
      fix: read.fix,
      ...known,
      ...(record ? { lapsed: true as const } : {}),
    };
  const sha256 = sha256Hex(read.bytes);
  if (!record) return { state: 'untrusted', sha256, dir: read.dir };
  if (record.sha256 === sha256) return { state: 'trusted', sha256, dir: read.dir, ...known };
  return { state: 'changed', sha256, dir: read.dir, ...known, lapsed: true };
}

/** The trust of a project dir's config as it is now (absent file: undefined). */
export function projectTrust(env: Env, projectDir: string): (TrustInfo & { file: string }) | undefined {
  const read = readProjectConfig(projectDir);
  if (read.kind === 'absent') return undefined;
  return { file: read.file, ...trustOf(readTrust(env).data, read) };
}

/** How a project config that does not apply is described: "not trusted", "changed since you trusted it". */
export function untrustedText(trust: TrustInfo): string {
  if (trust.state === 'changed') return 'changed since you trusted it';
  if (trust.state === 'unsafe') return `not trusted (${trust.reason})`;
  return 'not trusted';
}

/** What to do so that a project config applies: `hookd trust <dir>`, or first remove a link. */
export function untrustedFix(trust: TrustInfo, projectDir: string): string {
  return trust.fix ?? trustFixCommand(projectDir);
}

// --- Writing trust (hookd trust, --revoke, import) ---

/** Whether a record (for `dir`, of `sha256`) applies now: its config read, hashed and compared. */
type Standing =
  | { state: 'applies'; dir: string }
  | { state: 'changed' | 'unsafe' | 'unreadable' | 'absent'; problem: string; fix: string };

function standing(projectDir: string, sha256: string, forget: string): Standing {
  const orForget = `; or forget it: ${forget}`;
  const file = projectConfigPath(projectDir);
  let read: ProjectConfigRead;
  try {
    read = readProjectConfig(projectDir);
  } catch (error) {
    const problem = `${printable(file)} cannot be read: ${(error as Error).message}`;
    return { state: 'unreadable', problem, fix: `check the file${orForget}` };
  }
  if (read.kind === 'absent')
    return { state: 'absent', problem: `${printable(file)} no longer exists`, fix: `forget it: ${forget}` };
  if (read.kind === 'unsafe') return { state: 'unsafe', problem: read.reason, fix: `${read.fix}${orForget}` };
  if (read.dir !== projectDir)
    return {
      state: 'unsafe',
      problem: `${printable(projectDir)} is now a link to ${printable(read.dir)}`,
      fix: `review ${printable(read.file)}, then run: ${trustFixCommand(read.dir)}${orForget}`,
    };
  if (sha256Hex(read.bytes) !== sha256)
    return {
      state: 'changed',
      problem: `${printable(file)} changed since you trusted it`,
      fix: `review it, then run: ${trustFixCommand(projectDir)}${orForget}`,
    };
  return { state: 'applies', dir: read.dir };
}

/** Where an old record (keyed by file) carries over to, or why it cannot and what to do. */
export type OldRecordFate = { dir: string } | { reason: string; fix: string };

/** Whether an older hookd's record for `file` carries over as the trust of a project dir, now. */
export function oldRecordFate(file: string, record: TrustRecord): OldRecordFate {
  const projectDir = file.endsWith(CONFIG_SUFFIX) ? file.slice(0, -CONFIG_SUFFIX.length) || '/' : undefined;
  const forget = `hookd trust --revoke ${shellWord(projectDir ?? file)}`;
  if (projectDir === undefined)
    return {
      reason: `${printable(file)} is not a project's .hookd/config.json (it was trusted through a symlink, which hookd no longer follows)`,
      fix: `give each project that used it a .hookd/config.json of its own and trust that; forget this record: ${forget}`,
    };
  const now = standing(projectDir, record.sha256, forget);
  return now.state === 'applies' ? { dir: now.dir } : { reason: now.problem, fix: now.fix };
}

/** Moves every old record that can carry over to its project dir (a current record there wins). */
function carryOver(data: TrustData): void {
  for (const [file, record] of Object.entries(data.old)) {
    const fate = oldRecordFate(file, record);
    if (!('dir' in fate)) continue;
    data.projects[fate.dir] ??= record;
    delete data.old[file];
  }
}

const sorted = (records: Record<string, TrustRecord>) =>
  Object.fromEntries(
    Object.keys(records)
      .sort()
      .map((k) => [k, records[k]!]),
  );

/** Writes the trust file in the current format, old records carried over where they can be. */
function writeTrust(env: Env, data: TrustData): void {
  carryOver(data);
  const old = Object.keys(data.old).length > 0 ? { notCarriedOver: sorted(data.old) } : {};
  writePrivateFileAtomic(
    trustFilePath(env),
    `${JSON.stringify({ v: 2, projects: sorted(data.projects), ...old }, null, 2)}\n`,
  );
}

/** A project config `hookd trust` will not record: a link inside the project (`fix` says what to do). */
export class UnsafeProjectConfigError extends Error {
  constructor(
    message: string,
    readonly fix: string,
  ) {
    super(message);
    this.name = 'UnsafeProjectConfigError';
  }
}

export interface TrustedProject {
  /** The project dir's real path: the record's key. */
  dir: string;
  file: string;
  sha256: string;
  trustedAt: string;
}

/**
 * `hookd trust <dir>`: records the bytes of `<dir>/.hookd/config.json` as trusted in that dir, keyed by
 * its real path. `read` is the read the user was shown (so exactly those bytes are recorded); default: a
 * fresh one. Replaces the project's old record, if any. Throws UnsafeProjectConfigError for a link.
 */
export function trustProject(
  env: Env,
  projectDir: string,
  options: { now?: Date; read?: ProjectConfigRead } = {},
): TrustedProject {
  const read = options.read ?? readProjectConfig(projectDir);
  if (read.kind === 'absent') throw new Error(`${read.file} does not exist`);
  if (read.kind === 'unsafe')
    throw new UnsafeProjectConfigError(`${read.reason}; it was not trusted`, read.fix);
  const { data } = readTrust(env);
  const record = {
    sha256: sha256Hex(read.bytes),
    trustedAt: (options.now ?? new Date()).toISOString(),
    notify: true as const,
  };
  data.projects[read.dir] = record;
  delete data.old[join(read.dir, '.hookd', 'config.json')];
  delete data.old[read.file];
  writeTrust(env, data);
  return { dir: read.dir, file: read.file, sha256: record.sha256, trustedAt: record.trustedAt };
}

/** `trustProject` for a config file path (`<dir>/.hookd/config.json`), as `hookd import` names it. */
export function trustProjectFile(env: Env, file: string, now: Date = new Date()): TrustedProject {
  return trustProject(env, dirname(dirname(resolve(file))), { now });
}

/**
 * `hookd trust --revoke <dir>`: forgets the trust of that project dir, and the old records an older
 * hookd kept for its config (or, given a file path, the old record of that file). Returns what it
 * removed (project dirs and files); nothing removed writes nothing.
 */
export function revokeProject(env: Env, projectDirOrFile: string): string[] {
  const given = resolve(projectDirOrFile);
  const real = realOrUndefined(given) ?? given;
  const { data } = readTrust(env);
  const removed: string[] = [];
  for (const key of new Set([real, given]))
    if (data.projects[key]) {
      delete data.projects[key];
      removed.push(key);
    }
  const files = [join(real, '.hookd', 'config.json'), projectConfigPath(given), given];
  const followed = realOrUndefined(projectConfigPath(given));
  if (followed) files.push(followed);
  for (const key of new Set(files))
    if (data.old[key]) {
      delete data.old[key];
      removed.push(key);
    }
  if (removed.length > 0) writeTrust(env, data);
  return removed;
}

// --- Reporting (hookd trust --list, hookd doctor) ---

/** A trusted project and whether its config applies now. */
export interface TrustedProjectState extends TrustedProject {
  notify?: true;
  /** `applies`; `changed`, `unsafe`, `unreadable`: its trust lapsed; `absent`: no config there now. */
  state: 'applies' | 'changed' | 'unsafe' | 'unreadable' | 'absent';
  problem?: string;
  fix?: string;
  /** An older hookd's record (keyed by the file), carried over: it is written keyed by the dir next time. */
  carriedOver?: true;
}

/** An older hookd's record that cannot carry over: kept until the project is trusted again or revoked. */
export interface OldTrustRecord extends TrustRecord {
  file: string;
  reason: string;
  fix: string;
}

export interface TrustReport {
  trusted: TrustedProjectState[];
  notCarriedOver: OldTrustRecord[];
  /** The trust file cannot be used (nothing is trusted until `hookd trust` rewrites it). */
  problem?: string;
}

function projectState(dir: string, record: TrustRecord): TrustedProjectState {
  const base = { dir, file: projectConfigPath(dir), ...record };
  const now = standing(dir, record.sha256, `hookd trust --revoke ${shellWord(dir)}`);
  return now.state === 'applies' ? { ...base, state: 'applies' } : { ...base, ...now };
}

/**
 * Every trust record and what it means now: each trusted project and whether its config applies (for
 * `hookd trust --list` and `hookd doctor`: one read and hash per record), and an older hookd's records
 * that cannot carry over, each with the reason and the fix. Changes nothing on disk.
 */
export function trustReport(env: Env): TrustReport {
  const { data, problem } = readTrust(env);
  const trusted = Object.keys(data.projects).map((dir) => projectState(dir, data.projects[dir]!));
  const notCarriedOver: OldTrustRecord[] = [];
  for (const [file, record] of Object.entries(data.old)) {
    const fate = oldRecordFate(file, record);
    if ('dir' in fate) {
      if (!data.projects[fate.dir])
        trusted.push({ ...projectState(fate.dir, record), file, carriedOver: true });
    } else notCarriedOver.push({ file, ...record, ...fate });
  }
  trusted.sort((a, b) => (a.dir < b.dir ? -1 : a.dir > b.dir ? 1 : 0));
  notCarriedOver.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  return { trusted, notCarriedOver, ...(problem ? { problem } : {}) };
}
