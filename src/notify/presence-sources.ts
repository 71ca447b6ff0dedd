import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PRESENCE_SOURCE_NAMES } from '../config/schemas/notify-schema.js';
import type { Env } from '../paths.js';
import { findOnPath } from '../util/find-on-path.js';
import type { ProbeOutput, ProbeRun } from '../process/probe.js';

/** The idle-time sources hookd knows, in the order `auto` tries them (docs/sessions.md#presence). */
export const PRESENCE_SOURCES = PRESENCE_SOURCE_NAMES;
export type PresenceSourceName = (typeof PRESENCE_SOURCES)[number];

/** One reading of a source: the idle time, and/or the source's own verdict (logind's idle hint). */
export interface IdleSample {
  idleMs?: number;
  idle?: boolean;
}

export type Sampled = { ok: true; sample: IdleSample } | { ok: false; reason: string };

/** What a source needs to run its probe. */
export interface SourceContext {
  env: Env;
  run: ProbeRun;
  platform: NodeJS.Platform;
  /** Deadline of each probe run. */
  timeoutMs: number;
  now: () => number;
  /** The user whose graphical logind session is used when $XDG_SESSION_ID is unset. */
  uid: number | undefined;
}

export interface PreparedSource {
  /** One probe run, parsed; never throws. */
  sample: () => Promise<Sampled>;
}

/** The most a probe may print that is kept (ioreg's IOHIDSystem subtree is the largest, a few KiB). */
const MAX_OUTPUT = 256 * 1024;

// ---- parsers of each source's output (recorded strings in test/unit/notify/presence.test.ts) -----------

type Parsed = { ok: true; sample: IdleSample } | { ok: false; reason: string };

function unexpected(what: string, stdout: string): Parsed {
  const shown = stdout.trim().split('\n')[0]?.slice(0, 80) ?? '';
  return { ok: false, reason: `unexpected output from ${what}: ${JSON.stringify(shown)}` };
}

/** `xprintidle`: the X11 idle time in ms, one number. */
export function parseXprintidle(stdout: string): Parsed {
  const match = /^\s*(\d{1,15})\s*$/.exec(stdout);
  return match ? { ok: true, sample: { idleMs: Number(match[1]) } } : unexpected('xprintidle', stdout);
}

/**
 * `ioreg -c IOHIDSystem -d 4`: `"HIDIdleTime" = <ns>`. A Mac may list several IOHIDSystem entries: the
 * smallest idle time is the latest input.
 */
export function parseIoreg(stdout: string): Parsed {
  let least: bigint | undefined;
  for (const match of stdout.matchAll(/"HIDIdleTime"\s*=\s*(\d{1,20})\b/g)) {
    const ns = BigInt(match[1]!);
    if (least === undefined || ns < least) least = ns;
  }
  if (least === undefined) return unexpected('ioreg (no HIDIdleTime)', stdout);
  return { ok: true, sample: { idleMs: Number(least / 1_000_000n) } };
}

/** `gdbus call ... org.gnome.Mutter.IdleMonitor.GetIdletime`: `(uint64 12345,)`, in ms. */
export function parseGnomeIdletime(stdout: string): Parsed {
  const match = /^\s*\(uint64 (\d{1,15}),\)\s*$/.exec(stdout);
  return match ? { ok: true, sample: { idleMs: Number(match[1]) } } : unexpected('gdbus', stdout);
}

function properties(stdout: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const line of stdout.split('\n')) {
    const at = line.indexOf('=');
    if (at > 0) map.set(line.slice(0, at).trim(), line.slice(at + 1).trim());
  }
  return map;
}

/**
 * `loginctl show-session <id> -p IdleHint -p IdleSinceHint`: logind's idle hint (set by the desktop, or
 * by logind from a tty's last input) and when it last changed (µs since the epoch). The hint is the
 * verdict; the idle time is known only while idle.
 */
export function parseLoginctlSession(stdout: string, nowMs: number): Parsed {
  const props = properties(stdout);
  const hint = props.get('IdleHint');
  if (hint !== 'yes' && hint !== 'no') return unexpected('loginctl (no IdleHint)', stdout);
  const since = /^\d{1,20}$/.test(props.get('IdleSinceHint') ?? '')
    ? Number(BigInt(props.get('IdleSinceHint')!) / 1000n)
    : 0;
  if (hint === 'no') return { ok: true, sample: { idle: false } };
  return { ok: true, sample: { idle: true, ...(since > 0 ? { idleMs: Math.max(0, nowMs - since) } : {}) } };
}

/** A logind session id as loginctl prints it; anything else is not passed on as an argument. */
const SESSION_ID = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/;

/** `loginctl show-user <uid> -p Display`: the user's graphical session (`Display=3`), if any. */
export function parseLoginctlDisplay(stdout: string): string | undefined {
  const display = properties(stdout).get('Display');
  return display && SESSION_ID.test(display) ? display : undefined;
}

// ---- the sources ---------------------------------------------------------------------------------------

/** Why a probe run gave no reading: it hung, could not start, or failed (its first stderr line). */
function runFailure(what: string, out: ProbeOutput, timeoutMs: number): string | undefined {
  if (out.timedOut) return `${what} did not answer within ${timeoutMs} ms`;
  if (out.error) return `${what} could not start: ${out.error}`;
  if (out.code !== 0) {
    const first = out.stderr.trim().split('\n')[0]?.slice(0, 160);
    return `${what} exited with ${out.code ?? 'a signal'}${first ? `: ${first}` : ''}`;
  }
  return undefined;
}

/**
 * What a probe sees of the daemon's environment: where to find the display, the session bus and the
 * logind session, nothing else (no token or key of the daemon's reaches a probe). C locale, so its
 * output is the one parsed here.
 */
const PROBE_ENV = [
  'PATH',
  'HOME',
  'USER',
  'DISPLAY',
  'XAUTHORITY',
  'WAYLAND_DISPLAY',
  'DBUS_SESSION_BUS_ADDRESS',
  'XDG_RUNTIME_DIR',
  'XDG_SESSION_ID',
];
export function probeEnv(env: Env): Env {
  const kept: Env = { LC_ALL: 'C' };
  for (const name of PROBE_ENV) if (env[name] !== undefined) kept[name] = env[name];
  return kept;
}

function sampler(
  ctx: SourceContext,
  what: string,
  file: string,
  args: readonly string[],
  parse: (stdout: string) => Parsed,
): PreparedSource {
  return {
    sample: async () => {
      const out = await ctx.run(file, args, {
        env: probeEnv(ctx.env),
        timeoutMs: ctx.timeoutMs,
        maxBytes: MAX_OUTPUT,
      });
      const failure = runFailure(what, out, ctx.timeoutMs);
      return failure ? { ok: false, reason: failure } : parse(out.stdout);
    },
  };
}

function sessionBus(env: Env): boolean {
  if (env.DBUS_SESSION_BUS_ADDRESS) return true;
  return Boolean(env.XDG_RUNTIME_DIR && existsSync(join(env.XDG_RUNTIME_DIR, 'bus')));
}

/** Why xprintidle is not used on a machine with no X11 session (a server, an SSH login, CI). */
export const NO_DISPLAY = 'no DISPLAY (the daemon does not run in an X11 session)';

type Prepare = (ctx: SourceContext) => Promise<PreparedSource | { reason: string }>;

/** Each source: what it needs here (checked before anything runs), then its probe. */
export const SOURCES: Record<PresenceSourceName, Prepare> = {
  macos: async (ctx) => {
    if (ctx.platform !== 'darwin') return { reason: 'not macOS' };
    const ioreg =
      findOnPath('ioreg', ctx.env.PATH) ?? (existsSync('/usr/sbin/ioreg') ? '/usr/sbin/ioreg' : '');
    if (!ioreg) return { reason: 'ioreg not found (it is in /usr/sbin on macOS)' };
    return sampler(ctx, 'ioreg', ioreg, ['-c', 'IOHIDSystem', '-d', '4'], parseIoreg);
  },
  xprintidle: async (ctx) => {
    if (!ctx.env.DISPLAY) return { reason: NO_DISPLAY };
    // Under Wayland, X11's idle time is XWayland's: it misses every key and move of Wayland windows.
    if (ctx.env.WAYLAND_DISPLAY)
      return { reason: 'a Wayland session: the X11 idle time would miss the input of Wayland windows' };
    const file = findOnPath('xprintidle', ctx.env.PATH);
    if (!file)
      return { reason: 'xprintidle not installed: apt install xprintidle (or your distribution’s package)' };
    return sampler(ctx, 'xprintidle', file, [], parseXprintidle);
  },
  gnome: async (ctx) => {
    const file = findOnPath('gdbus', ctx.env.PATH);
    if (!file) return { reason: 'gdbus not installed (it comes with GLib: libglib2.0-bin)' };
    if (!sessionBus(ctx.env)) return { reason: 'no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS unset)' };
    const args = [
      'call',
      '--session',
      '--dest',
      'org.gnome.Mutter.IdleMonitor',
      '--object-path',
      '/org/gnome/Mutter/IdleMonitor/Core',
      '--method',
      'org.gnome.Mutter.IdleMonitor.GetIdletime',
    ];
    return sampler(ctx, 'gdbus (GNOME Mutter IdleMonitor)', file, args, parseGnomeIdletime);
  },
  loginctl: async (ctx) => {
    const file = findOnPath('loginctl', ctx.env.PATH);
    if (!file) return { reason: 'loginctl not installed (no systemd-logind)' };
    let session =
      ctx.env.XDG_SESSION_ID && SESSION_ID.test(ctx.env.XDG_SESSION_ID) ? ctx.env.XDG_SESSION_ID : '';
    if (!session) {
      // A daemon started by a service manager has no XDG_SESSION_ID: use the user's graphical session.
      if (ctx.uid === undefined) return { reason: 'XDG_SESSION_ID is unset' };
      const out = await ctx.run(file, ['show-user', String(ctx.uid), '-p', 'Display'], {
        env: probeEnv(ctx.env),
        timeoutMs: ctx.timeoutMs,
        maxBytes: 4096,
      });
      const failure = runFailure('loginctl show-user', out, ctx.timeoutMs);
      if (failure) return { reason: `XDG_SESSION_ID is unset and ${failure}` };
      session = parseLoginctlDisplay(out.stdout) ?? '';
      if (!session) return { reason: `XDG_SESSION_ID is unset and user ${ctx.uid} has no graphical session` };
    }
    return sampler(
      ctx,
      'loginctl',
      file,
      ['show-session', session, '-p', 'IdleHint', '-p', 'IdleSinceHint'],
      (stdout) => parseLoginctlSession(stdout, ctx.now()),
    );
  },
};
