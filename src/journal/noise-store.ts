import { renameSync } from 'node:fs';
import {
  deserializeNoise,
  pruneNoise,
  serializeNoise,
  type NoiseState,
  type SerializedNoise,
} from '../notify/noise.js';
import {
  parseSessionState,
  pruneSessions,
  SESSION_ENDED_TTL_MS,
  SESSION_MAX_AGE_MS,
  type SessionTable,
} from '../notify/session-state.js';
import { readPrivateFile, writePrivateFileAtomic } from '../util/private-fs.js';

/** The noise file's format version; another version is quarantined like a damaged file. */
const NOISE_FILE_VERSION = 1;
/** A noise file larger than this is not read (10,000 entries per map stay far below it). */
export const NOISE_FILE_MAX_BYTES = 16 * 1024 * 1024;
/** Default delay between a change and its write. */
export const NOISE_SAVE_DELAY_MS = 1000;

interface StoreLogger {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface NoiseStoreOptions {
  /** `<state>/daemon/noise.json`. */
  file: string;
  logger: StoreLogger;
  now: () => number;
  /** Entries older than this are dropped on load and before each write (as the housekeeping does). */
  maxAgeMs: () => number;
  /** Debounce of `changed()` (default 1000 ms). */
  saveDelayMs?: number;
  /** Timers (tests inject their own). */
  setTimer?: (fn: () => void, ms: number) => { unref?: () => unknown };
  clearTimer?: (timer: unknown) => void;
}

export interface NoiseStore {
  /** The live state: the daemon's rules read and update it in place. */
  readonly state: NoiseState;
  /** The sessions' states (docs/sessions.md), saved in the same file; the pipeline updates them in place. */
  readonly sessions: SessionTable;
  /** Marks the state changed: it is written after the debounce delay. */
  changed(): void;
  /** Writes now when anything changed (at shutdown). Never throws. */
  flush(): void;
}

function readBounded(file: string): string | undefined {
  const read = readPrivateFile(file, NOISE_FILE_MAX_BYTES);
  if (read.ok) return read.text;
  if (read.missing) return undefined;
  throw new Error(read.problem);
}

/** Why a parsed noise file is not usable, or undefined when it is. */
function fileProblem(value: unknown): string | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return 'not a JSON object';
  const v = value as { v?: unknown; noise?: unknown };
  if (v.v !== NOISE_FILE_VERSION) return `unknown version ${JSON.stringify(v.v)}`;
  if (!v.noise || typeof v.noise !== 'object') return 'no noise state';
  const noise = v.noise as Partial<Record<keyof SerializedNoise, unknown>>;
  for (const key of ['sent', 'cooldowns', 'idleNotified', 'sessions'] as const)
    if (!Array.isArray(noise[key])) return `"${key}" is not a list`;
  return undefined;
}

/**
 * Loads the noise state a previous daemon saved (dedupe windows, cooldowns, idle-repeat and permission-ask
 * memory) and keeps it saved: a private file written debounced and at shutdown. A missing file starts
 * empty; a damaged one is moved aside (`.bad-<time>`) with a log line; neither is ever fatal.
 */
export function openNoiseStore(options: NoiseStoreOptions): NoiseStore {
  const { file, logger, now } = options;
  const delayMs = options.saveDelayMs ?? NOISE_SAVE_DELAY_MS;
  const setTimer = options.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
  const clearTimer = options.clearTimer ?? ((t) => clearTimeout(t as NodeJS.Timeout));

  let state: NoiseState | undefined;
  const sessions: SessionTable = new Map();
  try {
    const text = readBounded(file);
    if (text !== undefined) {
      let parsed: unknown;
      let problem: string | undefined;
      try {
        parsed = JSON.parse(text);
        problem = fileProblem(parsed);
      } catch (error) {
        problem = `not JSON: ${(error as Error).message}`;
      }
      if (problem === undefined) {
        state = deserializeNoise((parsed as { noise: unknown }).noise);
        // Session states: each validated on its own; one that is not a state is left out.
        const saved = (parsed as { sessionStates?: unknown }).sessionStates;
        for (const entry of Array.isArray(saved) ? saved : []) {
          const s = parseSessionState(entry);
          if (s) sessions.set(s.id, s);
        }
      } else quarantine(problem);
    }
  } catch (error) {
    quarantine((error as Error).message);
  }
  state ??= deserializeNoise(undefined);
  pruneNoise(state, now(), options.maxAgeMs());
  pruneSessions(sessions, now(), SESSION_ENDED_TTL_MS, SESSION_MAX_AGE_MS);

  function quarantine(problem: string): void {
    const aside = `${file}.bad-${now()}`;
    try {
      renameSync(file, aside);
      logger.error(
        { file, quarantined: aside, problem },
        'the saved noise state is damaged; moved aside, starting empty',
      );
    } catch (error) {
      logger.error(
        { file, problem, error: (error as Error).message },
        'the saved noise state is damaged and cannot be moved aside; starting empty',
      );
    }
  }

  const live = state;
  let timer: unknown;
  let dirty = false;
  const write = () => {
    timer = undefined;
    if (!dirty) return;
    dirty = false;
    try {
      pruneNoise(live, now(), options.maxAgeMs());
      pruneSessions(sessions, now(), SESSION_ENDED_TTL_MS, SESSION_MAX_AGE_MS);
      writePrivateFileAtomic(
        file,
        JSON.stringify({
          v: NOISE_FILE_VERSION,
          savedAt: now(),
          noise: serializeNoise(live),
          sessionStates: [...sessions.values()],
        }),
      );
    } catch (error) {
      logger.warn(
        { file, error: (error as Error).message, code: (error as NodeJS.ErrnoException).code },
        'cannot save the noise state; it is kept in memory',
      );
    }
  };
  return {
    state: live,
    sessions,
    changed() {
      dirty = true;
      if (timer !== undefined) return;
      const t = setTimer(write, delayMs);
      t.unref?.();
      timer = t;
    },
    flush() {
      if (timer !== undefined) clearTimer(timer);
      write();
    },
  };
}
