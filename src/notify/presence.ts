import * as z from 'zod';
import type { Env } from '../paths.js';
import { runProbe, type ProbeRun } from '../process/probe.js';
import { within } from '../util/within.js';
import { formatDuration } from '../util/text/format-duration.js';
import {
  PRESENCE_SOURCES,
  SOURCES,
  type IdleSample,
  type PreparedSource,
  type PresenceSourceName,
  type Sampled,
} from './presence-sources.js';

export { NO_DISPLAY, PRESENCE_SOURCES, type PresenceSourceName } from './presence-sources.js';

/**
 * Presence: is the user at this machine? Read from the OS idle time (docs/sessions.md#presence). The
 * source is detected once; a reading is cached briefly; a probe that fails or hangs reads `unknown`, never
 * a guess.
 */
export type PresenceState = 'active' | 'idle' | 'unknown';

/** One reading. `reason` says why it is `unknown`. */
export interface PresenceReading {
  state: PresenceState;
  idleMs?: number;
  source: string;
  reason?: string;
}

/** `notify.presence.source`: try each source in order, none, or exactly this one. */
export type PresenceSetting = 'auto' | 'off' | PresenceSourceName;

export interface PresenceDetection {
  /** The source in use; `none` when no source works here, `off` when turned off. */
  source: PresenceSourceName | 'none' | 'off';
  /** Each source tried and not used, and why. */
  skipped: { source: PresenceSourceName; reason: string }[];
}

/** What `hookd status --json` shows (`presence`) and `hookd doctor` reads back from the daemon. */
export const presenceStatusSchema = z.object({
  setting: z.enum(['auto', 'off', ...PRESENCE_SOURCES]),
  idleAfterMs: z.number(),
  detection: z
    .object({
      source: z.enum(['none', 'off', ...PRESENCE_SOURCES]),
      skipped: z.array(z.object({ source: z.enum(PRESENCE_SOURCES), reason: z.string().max(4000) })).max(8),
    })
    .optional(),
  last: z
    .object({
      state: z.enum(['active', 'idle', 'unknown']),
      idleMs: z.number().optional(),
      source: z.string().max(32),
      reason: z.string().max(4000).optional(),
      at: z.number(),
    })
    .optional(),
});
export type PresenceStatus = z.infer<typeof presenceStatusSchema>;

export interface PresenceProbeOptions {
  /** The environment the probes run with (DISPLAY, PATH, XDG_SESSION_ID, DBUS_SESSION_BUS_ADDRESS). */
  env: Env;
  /** How a probe runs (default: a child process, no shell). */
  run?: ProbeRun;
  now?: () => number;
  /** Idle at least this long reads `idle` (notify.presence.idleAfterMs). */
  thresholdMs: number;
  source: PresenceSetting;
  platform?: NodeJS.Platform;
  /** Whose graphical logind session to read when $XDG_SESSION_ID is unset (default: this process's). */
  uid?: number;
  /** Each probe run's deadline (default 1000 ms). */
  timeoutMs?: number;
  /** A reading is reused this long (default 2000 ms). */
  cacheMs?: number;
}

export interface PresenceProbe {
  /** The setting until the source is detected, then the detected source (`none` when none works). */
  readonly source: string;
  /** Detects the source, once (later calls get the same answer). */
  detect(): Promise<PresenceDetection>;
  /** The current reading (cached up to cacheMs); never throws, never waits past the probe's deadline. */
  read(): Promise<PresenceReading>;
  /** The setting, the detection and the last reading, for `hookd status`. */
  status(): PresenceStatus;
}

export const PRESENCE_DEFAULTS = { timeoutMs: 1000, cacheMs: 2000 } as const;

/** The verdict of a sample: the source's own (logind's idle hint), else the idle time against the threshold. */
export function presenceState(sample: IdleSample, thresholdMs: number): 'active' | 'idle' {
  if (sample.idle !== undefined) return sample.idle ? 'idle' : 'active';
  return (sample.idleMs ?? 0) >= thresholdMs ? 'idle' : 'active';
}

export function createPresenceProbe(options: PresenceProbeOptions): PresenceProbe {
  const now = options.now ?? Date.now;
  const timeoutMs = options.timeoutMs ?? PRESENCE_DEFAULTS.timeoutMs;
  const cacheMs = options.cacheMs ?? PRESENCE_DEFAULTS.cacheMs;
  const ctx = {
    env: options.env,
    run: options.run ?? runProbe,
    platform: options.platform ?? process.platform,
    timeoutMs,
    now,
    uid: options.uid ?? process.getuid?.(),
  };
  // The safety net around each step: a probe's own deadline plus a margin for the kill.
  const guardMs = timeoutMs + 250;
  const hung = (what: string): Sampled => ({
    ok: false,
    reason: `${what} did not answer within ${timeoutMs} ms`,
  });

  let detection: PresenceDetection | undefined;
  let detecting: Promise<PresenceDetection> | undefined;
  let prepared: PreparedSource | undefined;
  let last: (PresenceReading & { at: number }) | undefined;
  let reading: Promise<PresenceReading> | undefined;

  async function runDetection(): Promise<PresenceDetection> {
    if (options.source === 'off') return { source: 'off', skipped: [] };
    const candidates: readonly PresenceSourceName[] =
      options.source !== 'auto'
        ? [options.source]
        : ctx.platform === 'darwin'
          ? ['macos']
          : PRESENCE_SOURCES.filter((name) => name !== 'macos');
    const skipped: PresenceDetection['skipped'] = [];
    for (const name of candidates) {
      const ready = await within(SOURCES[name](ctx), guardMs * 2, { reason: `${name} did not answer` });
      if ('reason' in ready) {
        skipped.push({ source: name, reason: ready.reason });
        continue;
      }
      // A source counts only once it has given one good reading here.
      const first = await within(ready.sample(), guardMs, hung(name));
      if (!first.ok) {
        skipped.push({ source: name, reason: first.reason });
        continue;
      }
      prepared = ready;
      remember(toReading(first.sample, name));
      return { source: name, skipped };
    }
    return { source: 'none', skipped };
  }

  function toReading(sample: IdleSample, source: string): PresenceReading {
    return {
      state: presenceState(sample, options.thresholdMs),
      ...(sample.idleMs !== undefined ? { idleMs: sample.idleMs } : {}),
      source,
    };
  }

  function remember(r: PresenceReading): PresenceReading {
    last = { ...r, at: now() };
    return r;
  }

  /** The last reading while it is fresh. */
  function cached(): PresenceReading | undefined {
    if (!last || now() - last.at >= cacheMs) return undefined;
    const { state, idleMs, source, reason } = last;
    return { state, ...(idleMs !== undefined ? { idleMs } : {}), source, ...(reason ? { reason } : {}) };
  }

  function detect(): Promise<PresenceDetection> {
    detecting ??= runDetection().then((d) => (detection = d));
    return detecting;
  }

  async function take(): Promise<PresenceReading> {
    const found = await detect();
    // Detection's own first reading counts as the first read.
    const fresh = cached();
    if (fresh) return fresh;
    if (found.source === 'off')
      return { state: 'unknown', source: 'off', reason: 'notify.presence.source is "off"' };
    if (found.source === 'none' || !prepared)
      return {
        state: 'unknown',
        source: 'none',
        reason: `no idle source works here: ${skippedReasons(found)}`,
      };
    const sampled = await within(prepared.sample(), guardMs, hung(found.source));
    return sampled.ok
      ? toReading(sampled.sample, found.source)
      : { state: 'unknown', source: found.source, reason: sampled.reason };
  }

  return {
    get source() {
      return detection?.source ?? options.source;
    },
    detect,
    read: () => {
      const fresh = detection ? cached() : undefined;
      if (fresh) return Promise.resolve(fresh);
      reading ??= take()
        .catch((error: Error): PresenceReading => ({
          state: 'unknown',
          source: 'none',
          reason: error.message,
        }))
        .then(remember)
        .finally(() => (reading = undefined));
      return reading;
    },
    status: () => ({
      setting: options.source,
      idleAfterMs: options.thresholdMs,
      ...(detection ? { detection } : {}),
      ...(last ? { last } : {}),
    }),
  };
}

/** "xprintidle", or "none (xprintidle: no DISPLAY; loginctl: ...)", or "off". */
export function describeDetection(detection: PresenceDetection): string {
  if (detection.source !== 'none') return detection.source;
  const why = skippedReasons(detection);
  return `none${why ? ` (${why})` : ''}`;
}

/** "xprintidle: no DISPLAY; loginctl: ...": each source not used and why. */
export function skippedReasons(detection: PresenceDetection): string {
  return detection.skipped.map((s) => `${s.source}: ${s.reason}`).join('; ');
}

/** "active (idle 3s)", "idle (idle 5m 2s)", "unknown (xprintidle did not answer within 1000 ms)". */
export function describeReading(reading: Pick<PresenceReading, 'state' | 'idleMs' | 'reason'>): string {
  if (reading.state === 'unknown') return `unknown${reading.reason ? ` (${reading.reason})` : ''}`;
  return reading.idleMs !== undefined
    ? `${reading.state} (idle ${formatDuration(reading.idleMs)})`
    : reading.state;
}
