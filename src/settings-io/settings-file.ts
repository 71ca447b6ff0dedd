import { closeSync, constants } from 'node:fs';
import {
  access,
  chmod,
  chown,
  copyFile,
  lstat,
  mkdir,
  open,
  realpath,
  rename,
  rm,
  stat,
} from 'node:fs/promises';
import { dirname, join, basename } from 'node:path';
import { randomBytes } from 'node:crypto';
import { CliError, EXIT } from '../errors.js';
import { openRegularFile, readOpenFile, RefusedFileError } from '../util/private-fs.js';
import { detectJsonStyle, parseJsonText, type JsonTextStyle } from './json-text.js';
import { jsoncError, parseJsoncText } from './jsonc-text.js';

/** Larger than any agent settings file or hooks.json: refused unread. */
const MAX_SETTINGS_BYTES = 8 * 1024 * 1024;

/** An agent settings file as read before an edit: its text, its parsed object, and how to write it back. */
export interface SettingsFileSnapshot {
  /** The path as located (may be a symlink). */
  file: string;
  /** The file really written: symlinks are followed so a dotfiles link stays a link. */
  target: string;
  exists: boolean;
  /** The file's text ('' when missing). */
  text: string;
  /** The parsed root object ({} when missing or empty). */
  data: Record<string, unknown>;
  style: JsonTextStyle;
  /** The file carries comments (JSONC): edited with jsonc-parser, which keeps them. */
  comments?: boolean;
  mode?: number;
  uid?: number;
  gid?: number;
}

function errnoCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/** Reads and parses a settings file; a missing file is an empty one. JSON that does not parse is refused. */
export async function readSettingsFile(file: string): Promise<SettingsFileSnapshot> {
  let target = file;
  try {
    if ((await lstat(file)).isSymbolicLink()) target = await realpath(file);
  } catch (error) {
    if (errnoCode(error) !== 'ENOENT') throw fileError('cannot read', file, error);
  }
  let text: string;
  let info;
  try {
    // A settings file may be a repository's: a FIFO there is not waited on, a huge file not read whole.
    const { fd, stats } = openRegularFile(target, { maxBytes: MAX_SETTINGS_BYTES });
    try {
      text = readOpenFile(fd, stats.size).toString('utf8');
    } finally {
      closeSync(fd);
    }
    info = stats;
  } catch (error) {
    if (error instanceof RefusedFileError)
      throw new CliError(
        `cannot read ${file} (${error.message})`,
        EXIT.FAILURE,
        'An agent settings file is a small JSON file; move this one away.',
      );
    if (errnoCode(error) === 'ENOENT') {
      return {
        file,
        target,
        exists: false,
        text: '',
        data: {},
        style: { indent: '  ', eol: '\n', finalNewline: true },
      };
    }
    throw fileError('cannot read', file, error);
  }
  const style = detectJsonStyle(text);
  const base = {
    file,
    target,
    exists: true,
    text,
    style,
    mode: info.mode & 0o7777,
    uid: info.uid,
    gid: info.gid,
  };
  if (text.trim() === '' || text.trim() === '\uFEFF') return { ...base, data: {} };
  const parsed = parseJsonText(text);
  const jsonc = parsed.ok ? undefined : parseJsoncText(text);
  if (
    !parsed.ok &&
    jsonc !== undefined &&
    jsonc !== null &&
    typeof jsonc === 'object' &&
    !Array.isArray(jsonc)
  )
    return { ...base, data: jsonc as Record<string, unknown>, comments: true };
  if (!parsed.ok) {
    // A file with comments is read as JSONC: its mistake is where JSONC goes wrong, not at the first `//`.
    const { line, column } = parsed.error;
    const withComments = line !== undefined ? commentedMistake(text, line, column ?? 1) : undefined;
    if (withComments)
      throw new CliError(
        `${file} is not valid JSON with comments at line ${withComments.line}, column ${withComments.column}: ${withComments.what}`,
        EXIT.FAILURE,
        'Fix it by hand (the agent cannot read it either); hookd does not edit a file it cannot parse.',
      );
    const where = parsed.error.line ? ` at line ${parsed.error.line}, column ${parsed.error.column}` : '';
    throw new CliError(
      `${file} is not valid JSON${where}: ${parsed.error.message}`,
      EXIT.FAILURE,
      'Fix the JSON by hand (the agent cannot read it either); hookd does not edit a file it cannot parse.',
    );
  }
  const value = parsed.value;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new CliError(
      `${file} does not hold a JSON object (found ${Array.isArray(value) ? 'an array' : typeof value})`,
      EXIT.FAILURE,
      'An agent settings file is one JSON object, e.g. {"hooks": {}}; fix or move the file.',
    );
  }
  return { ...base, data: value as Record<string, unknown> };
}

function fileError(what: string, file: string, error: unknown): CliError {
  const code = errnoCode(error);
  const reason = code ? `${code}: ${(error as Error).message}` : String(error);
  const hint =
    code === 'EACCES' || code === 'EPERM' || code === 'EROFS'
      ? 'Check the permissions of the file and its folder (or run as the user who owns them).'
      : 'Check the path and try again.';
  return new CliError(`${what} ${file} (${reason})`, EXIT.FAILURE, hint);
}

async function nearestExistingDir(dir: string): Promise<string> {
  let current = dir;
  for (;;) {
    try {
      await stat(current);
      return current;
    } catch {
      const parent = dirname(current);
      if (parent === current) return current;
      current = parent;
    }
  }
}

/**
 * Refuses, before anything is written, when the file or its folder is read-only. A file without any
 * write permission bit is treated as read-only even for root: someone made it so on purpose, and a
 * rename would otherwise replace it silently.
 */
export async function assertWritable(snapshot: SettingsFileSnapshot): Promise<void> {
  if (snapshot.exists && snapshot.mode !== undefined && (snapshot.mode & 0o222) === 0) {
    throw new CliError(
      `${snapshot.file} is read-only (mode ${snapshot.mode.toString(8).padStart(4, '0')}); nothing was changed`,
      EXIT.FAILURE,
      `Make it writable (chmod u+w ${snapshot.target}) and run the command again, or edit it by hand.`,
    );
  }
  try {
    if (snapshot.exists) await access(snapshot.target, constants.W_OK);
    await access(await nearestExistingDir(dirname(snapshot.target)), constants.W_OK);
  } catch (error) {
    throw fileError('cannot write', snapshot.file, error);
  }
}

function timestamp(now: Date): string {
  return now.toISOString().replace(/[-:]/g, '').replace('.', '');
}

/** Copies the original beside it as `<file>.hookd-backup-<timestamp>`; returns the backup's path. */
export async function backupSettingsFile(
  snapshot: SettingsFileSnapshot,
  now: Date = new Date(),
): Promise<string> {
  const base = `${snapshot.file}.hookd-backup-${timestamp(now)}`;
  for (let attempt = 0; attempt < 100; attempt++) {
    const candidate = attempt === 0 ? base : `${base}-${attempt}`;
    try {
      await copyFile(snapshot.target, candidate, constants.COPYFILE_EXCL);
      return candidate;
    } catch (error) {
      if (errnoCode(error) !== 'EEXIST') throw fileError('cannot back up', snapshot.file, error);
    }
  }
  throw new CliError(`cannot back up ${snapshot.file}: too many backups with the same timestamp`);
}

/** Writes the new text atomically (temp file in the same folder, fsync, rename), keeping mode and owner. */
export async function writeSettingsFile(snapshot: SettingsFileSnapshot, text: string): Promise<void> {
  const dir = dirname(snapshot.target);
  const temp = join(
    dir,
    `.${basename(snapshot.target)}.hookd-${process.pid}-${randomBytes(4).toString('hex')}`,
  );
  try {
    await mkdir(dir, { recursive: true });
    const handle = await open(temp, 'wx', snapshot.mode ?? 0o666);
    try {
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (snapshot.mode !== undefined) await chmod(temp, snapshot.mode);
    if (snapshot.uid !== undefined && snapshot.gid !== undefined) {
      await chown(temp, snapshot.uid, snapshot.gid).catch(() => undefined);
    }
    await rename(temp, snapshot.target);
  } catch (error) {
    await rm(temp, { force: true }).catch(() => undefined);
    throw fileError('cannot write', snapshot.file, error);
  }
}

/** The JSONC mistake of a text whose strict JSON error comes earlier (at a comment), else undefined. */
function commentedMistake(
  text: string,
  jsonLine: number,
  jsonColumn: number,
): { line: number; column: number; what: string } | undefined {
  const mistake = jsoncError(text);
  if (!mistake) return undefined;
  const before = text.slice(0, mistake.offset).split('\n');
  const line = before.length;
  const column = before[before.length - 1]!.length + 1;
  if (line < jsonLine || (line === jsonLine && column <= jsonColumn)) return undefined;
  return { line, column, what: mistake.trailingComma ? 'a trailing comma' : mistake.code };
}
