import { closeSync, constants, lstatSync, openSync, readdirSync, unlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ConfigSource, LoadedConfig } from '../config/load.js';
import { untrustedFix, untrustedText } from '../config/trust.js';
import { untrustedSource } from '../config/source-state.js';
import type { HookdNotice } from '../events/types.js';
import type { LineLogger } from '../logging/line-logger.js';
import { stateDir, type Env } from '../paths.js';
import { fnv1a } from '../util/fnv1a.js';
import { ensurePrivateDir } from '../util/private-fs.js';
import { printable } from '../util/text/printable.js';

/**
 * Saying loudly, on every event, what of the config is not in force: an invalid file (and whether the
 * last good config stands in), an untrusted project file, a trust file or cache that was refused. And
 * the desktop notices for the daemon, one per cause.
 */

function projectDirOf(source: ConfigSource): string {
  return dirname(dirname(source.file));
}

export function logConfigState(logger: LineLogger, loaded: LoadedConfig, eventId: string): void {
  for (const warning of loaded.warnings ?? [])
    logger.log(warning.level, { kind: warning.kind, eventId }, warning.message);
  for (const source of loaded.sources) {
    for (const issue of source.issues) {
      logger.log(
        'error',
        { kind: 'config', file: issue.file, path: issue.path, fix: issue.fix },
        `invalid config, ${source.level} file not applied: ${issue.path}: ${issue.message}`,
      );
    }
    if (!source.ok && source.level === 'user') {
      if (source.lastGood)
        logger.log(
          'error',
          {
            kind: 'config-last-good',
            eventId,
            file: source.file,
            savedAt: source.lastGood.savedAt,
            fix: 'hookd validate',
          },
          `${source.file} is invalid; running the last config that validated (saved ${source.lastGood.savedAt}) until it is fixed`,
        );
      else
        logger.log(
          'error',
          { kind: 'config-none', eventId, file: source.file, fix: 'hookd validate' },
          `${source.file} is invalid and no earlier version of it ever validated: none of its commands run until it is fixed`,
        );
    }
    if (untrustedSource(source)) {
      const trust = source.trust!;
      const fix = untrustedFix(trust, projectDirOf(source));
      logger.log(
        'warn',
        {
          kind: 'config-untrusted',
          eventId,
          file: source.file,
          trust: trust.state,
          sha256: trust.sha256,
          ...(trust.lapsed ? { lapsed: true } : {}),
          fix,
        },
        `${source.file} is ${untrustedText(trust)}; ignored. To use it: ${fix}`,
      );
    }
  }
}

function noticesFor(loaded: LoadedConfig): HookdNotice[] {
  const notices: HookdNotice[] = [];
  for (const source of loaded.sources) {
    if (untrustedSource(source)) {
      const trust = source.trust!;
      const changed = trust.state === 'changed';
      const why = changed ? ' (it changed since you trusted it)' : trust.reason ? ` (${trust.reason})` : '';
      notices.push({
        key: `untrusted:${source.file}:${trust.sha256 || trust.reason}`,
        title: changed ? 'hookd: project config changed, not trusted' : 'hookd: project config not trusted',
        body: `${source.file} is ignored${why}. Review it; to use it: ${untrustedFix(trust, projectDirOf(source))}`,
      });
    } else if (!source.ok && source.issues.length > 0) {
      const first = source.issues[0]!;
      notices.push({
        key: `invalid:${source.file}:${fnv1a(JSON.stringify(source.issues))}`,
        title: 'hookd: config file has errors',
        body:
          `${source.file}: ${first.path}: ${first.message}${source.issues.length > 1 ? ` (+${source.issues.length - 1} more)` : ''}. ` +
          (source.lastGood
            ? `Running the last config that validated (${source.lastGood.savedAt}).`
            : `Its commands do not run until it is fixed.`) +
          ' `hookd validate` shows every problem.',
      });
    }
  }
  return notices;
}

/**
 * The notices not handed over before: each cause is claimed once with an exclusive marker file in a
 * private dir, so one notice per (file, content) reaches the desktop however many events follow.
 */
export function claimConfigNotices(env: Env, loaded: LoadedConfig): HookdNotice[] {
  const notices = noticesFor(loaded);
  if (notices.length === 0) return [];
  const dir = join(stateDir(env), 'notices');
  try {
    ensurePrivateDir(dir);
  } catch {
    return [];
  }
  return notices.filter((notice) => {
    try {
      const fd = openSync(
        join(dir, `${fnv1a(notice.key)}${fnv1a(`${notice.key}\0`)}`),
        constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
        0o600,
      );
      closeSync(fd);
      return true;
    } catch {
      return false;
    }
  });
}

/** Markers of lapsed trust already reported, kept at most this many (the oldest go first). */
export const MAX_LAPSE_MARKERS = 256;
const KEEP_LAPSE_MARKERS = 192;

/** Drops the oldest markers once there are more than MAX_LAPSE_MARKERS: the folder stays bounded. */
function pruneLapseMarkers(dir: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  if (names.length <= MAX_LAPSE_MARKERS) return;
  const aged = names.map((name) => {
    try {
      return { name, at: lstatSync(join(dir, name)).mtimeMs };
    } catch {
      return { name, at: 0 };
    }
  });
  aged.sort((a, b) => a.at - b.at);
  for (const { name } of aged.slice(0, aged.length - KEEP_LAPSE_MARKERS)) {
    try {
      unlinkSync(join(dir, name));
    } catch {}
  }
}

/** A project file that no longer applies (trust lapsed), or a file whose commands do not run at all. */
function untoldSources(loaded: LoadedConfig): ConfigSource[] {
  return loaded.sources.filter(
    (s) =>
      (untrustedSource(s) && s.trust!.lapsed) || (s.exists && !s.ok && !s.lastGood && !untrustedSource(s)),
  );
}
const lapseDir = (env: Env) => join(stateDir(env), 'trust-lapses');
function lapseMarker(dir: string, sessionId: string | undefined, source: ConfigSource): string {
  const key = `${sessionId ?? ''}\0${source.file}`;
  return join(dir, `${fnv1a(key)}${fnv1a(`${key}\0`)}`);
}

/** What the agent's user is told of a config file whose commands do not run. */
function untoldLine(source: ConfigSource): string {
  if (!source.trust?.lapsed) {
    const first = source.issues[0];
    const what = first ? `${first.path ? `${first.path}: ` : ''}${first.message}` : 'it cannot be read';
    return `hookd: ${source.file} is invalid (${what}); none of its commands run until it is fixed. To see every problem: hookd validate`;
  }
  const trust = source.trust;
  const why = trust.state === 'changed' ? 'it changed since you trusted it' : (trust.reason ?? 'not trusted');
  return `hookd: ${source.file} no longer applies (${why}); its commands do not run. To use it again: ${untrustedFix(trust, projectDirOf(source))}`;
}

/**
 * Whether `claimConfigWarnings` has something to say for this session (a stat per such config, none
 * without one): a caller that answers the agent before running the event (the daemon's fast path, for
 * an event that runs no command) waits for the event's own answer instead.
 */
export function configWarningPending(env: Env, loaded: LoadedConfig, sessionId: string | undefined): boolean {
  const dir = lapseDir(env);
  return untoldSources(loaded).some(
    (source) => !lstatSync(lapseMarker(dir, sessionId, source), { throwIfNoEntry: false }),
  );
}

/**
 * The lines for the agent's stderr, which the agent shows the user, about each config file whose
 * commands do not run: a project config whose trust lapsed (the user trusted it, and it no longer
 * applies: it changed, or became a link), and a file that is invalid with no earlier valid version to
 * stand in (a guard in it would silently not run). Once per session and file: each is claimed with an
 * exclusive private marker in `<state>/trust-lapses` (bounded). '' when there is nothing new to say. A
 * marker that cannot be written does not silence it.
 */
export function claimConfigWarnings(env: Env, loaded: LoadedConfig, sessionId: string | undefined): string {
  const untold = untoldSources(loaded);
  if (untold.length === 0) return '';
  const dir = lapseDir(env);
  let markers = true;
  try {
    ensurePrivateDir(dir);
  } catch {
    markers = false;
  }
  let text = '';
  for (const source of untold) {
    if (markers) {
      try {
        const fd = openSync(
          lapseMarker(dir, sessionId, source),
          constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
          0o600,
        );
        closeSync(fd);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') continue;
      }
    }
    text += printable(untoldLine(source), 2000);
    text += '\n';
  }
  if (markers && text) pruneLapseMarkers(dir);
  return text;
}
