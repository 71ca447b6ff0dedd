import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { runProcessSync } from '../process/run.js';
import { isObject } from '../util/json-values.js';
import {
  fastClientOf,
  hookdInvocation,
  isFastClientInvocation,
  isHookdCommand,
  NATIVE_CLIENT_NAME,
  type FastClient,
} from './hookd-command.js';

/**
 * How the agent reaches hookd for an event (docs/hook.md, "Paths"):
 * - node: `<node> <hookd.cjs> hook --agent X`, one Node start per event;
 * - fast: `<hookd>/dist/hookd-client --agent X` (the native client, where it was built and runs), the
 *   event runs in the daemon (it falls back to the Node path by itself).
 */
export const TRANSPORTS = ['node', 'fast'] as const;
export type Transport = (typeof TRANSPORTS)[number];

/**
 * A transport found in an agent's settings: what install writes, or `http`, the Claude Code http hooks
 * older versions wrote (a loopback port can never prove to Claude that the daemon is behind it; no
 * longer served: doctor reports them, install replaces them).
 */
export type WiredTransport = Transport | 'http';

/** The path of the retired http hooks' URL, by which their entries are recognised. */
const RETIRED_HTTP_PATH = '/hookd/v1/claude';

/** The native fast client built beside the hookd program: `<pkg>/dist/hookd-client` for `<pkg>/dist/hookd.cjs`. */
export function nativeClientPath(hookdPath: string): string {
  return join(dirname(resolve(hookdPath)), NATIVE_CLIENT_NAME);
}

/** The fast client versions and protocol this hookd's daemon serves (src/daemon/listen/fast-server.ts). */
export interface ClientRange {
  protocol: number;
  min: number;
  max: number;
}

/**
 * Why a native client cannot be wired: `broken` when it does not run here at all (every event wired to
 * it would fail before hookd runs); else it is missing or speaks a version the daemon does not serve.
 */
export interface NativeClientProblem {
  broken: boolean;
  text: string;
}

/**
 * Said of a native program missing beside hookd.cjs: a package installed without its platform package
 * has none there by design, and a clone's build compiles it only where a C compiler is.
 */
export const MISSING_BUILD = 'is missing (in a clone, `npm run build` compiles it where a C compiler is)';

/**
 * Why the native client at `path` cannot be wired, or undefined when it runs here and speaks a version
 * the daemon serves: it is run with `--hookd-client-version` (a binary built for another system or
 * architecture does not start; a stale one says an old version).
 */
export function nativeClientProblem(path: string, range: ClientRange): NativeClientProblem | undefined {
  if (!existsSync(path)) return { broken: false, text: `${path} ${MISSING_BUILD}` };
  const probe = runProcessSync([path, '--hookd-client-version'], {
    env: process.env,
    timeoutMs: 10_000,
    maxOutputBytes: 4096,
  });
  if (probe.spawnError) return { broken: true, text: `${path} does not run here: ${probe.spawnError}` };
  const m = /^hookd-client (\d{1,6}) protocol (\d{1,6})\n$/.exec(probe.stdout.text());
  if (probe.exitCode !== 0 || !m)
    return { broken: true, text: `${path} does not run here (exit ${probe.exitCode ?? probe.signal})` };
  const [version, protocol] = [Number(m[1]), Number(m[2])];
  if (protocol !== range.protocol || version < range.min || version > range.max)
    return {
      broken: false,
      text: `${path} is client ${version} protocol ${protocol}; this hookd serves ${range.min}-${range.max}, protocol ${range.protocol} (rebuild it: npm run build)`,
    };
  return undefined;
}

/** True when a hook object is one of the http hooks older hookd versions wrote (a loopback URL with hookd's path). */
export function isHookdHttpHook(hook: unknown): boolean {
  if (!isObject(hook) || hook.type !== 'http' || typeof hook.url !== 'string') return false;
  try {
    const url = new URL(hook.url);
    return url.hostname === '127.0.0.1' && url.pathname === RETIRED_HTTP_PATH;
  } catch {
    return false;
  }
}

/** True for any hook object of hookd's: a hookd command (node or fast) or a hookd http hook. */
export function isHookdHook(hook: unknown): boolean {
  return isObject(hook) && (isHookdCommand(hook.command) || isHookdHttpHook(hook));
}

/** Which fast client a hook object of hookd's runs (undefined: not a fast command). */
export function fastClientOfHook(hook: unknown): FastClient | undefined {
  if (!isObject(hook) || !isHookdCommand(hook.command)) return undefined;
  return fastClientOf(hookdInvocation(hook.command as string) ?? []);
}

/** The transport of one of hookd's hook objects (undefined for a hook that is not hookd's). */
export function transportOf(hook: unknown): WiredTransport | undefined {
  if (isHookdHttpHook(hook)) return 'http';
  if (!isObject(hook) || !isHookdCommand(hook.command)) return undefined;
  const words = hookdInvocation(hook.command as string) ?? [];
  return isFastClientInvocation(words) ? 'fast' : 'node';
}
