import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { HTTP_HOOK_PATH } from '../daemon/http-credential.js';
import { findOnPath } from '../notify/channels/desktop.js';
import type { Env } from '../paths.js';
import { isObject } from '../util/json-values.js';
import {
  FAST_CLIENT_NAME,
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
 * - fast: `<hookd>/dist/hookd-client --agent X` (native, where it was built and runs) or
 *   `/bin/bash <hookd>/bin/hookd-client.bash --agent X`, the event runs in the daemon (falls back to the
 *   Node path by itself);
 * - http: Claude Code POSTs the event to the daemon's loopback listener (observe-only events only).
 */
export const TRANSPORTS = ['node', 'fast', 'http'] as const;
export type Transport = (typeof TRANSPORTS)[number];

/** The fast client shipped beside the hookd program: `<pkg>/bin/hookd-client.bash` for `<pkg>/dist/hookd.cjs`. */
export function fastClientPath(hookdPath: string): string {
  return join(dirname(resolve(hookdPath)), '..', 'bin', FAST_CLIENT_NAME);
}

/** The native fast client built beside the hookd program: `<pkg>/dist/hookd-client` for `<pkg>/dist/hookd.cjs`. */
export function nativeClientPath(hookdPath: string): string {
  return join(dirname(resolve(hookdPath)), NATIVE_CLIENT_NAME);
}

/** The fast client versions and protocol this hookd's daemon serves (src/daemon/fast-server.ts). */
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
 * Why the native client at `path` cannot be wired, or undefined when it runs here and speaks a version
 * the daemon serves: it is run with `--hookd-client-version` (a binary built for another system or
 * architecture does not start; a stale one says an old version).
 */
export function nativeClientProblem(path: string, range: ClientRange): NativeClientProblem | undefined {
  if (!existsSync(path))
    return { broken: false, text: `${path} was not built (no C compiler when hookd was built)` };
  const probe = spawnSync(path, ['--hookd-client-version'], {
    encoding: 'utf8',
    timeout: 10_000,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  if (probe.error) return { broken: true, text: `${path} does not run here: ${probe.error.message}` };
  const m = /^hookd-client (\d{1,6}) protocol (\d{1,6})\n$/.exec(probe.stdout ?? '');
  if (probe.status !== 0 || !m)
    return { broken: true, text: `${path} does not run here (exit ${probe.status ?? probe.signal})` };
  const [version, protocol] = [Number(m[1]), Number(m[2])];
  if (protocol !== range.protocol || version < range.min || version > range.max)
    return {
      broken: false,
      text: `${path} is client ${version} protocol ${protocol}; this hookd serves ${range.min}-${range.max}, protocol ${range.protocol} (rebuild it: npm run build)`,
    };
  return undefined;
}

/** The bash the fast client runs with: /bin/bash, else the first bash on PATH; undefined where none is. */
export function findBash(env: Env): string | undefined {
  if (existsSync('/bin/bash')) return '/bin/bash';
  return findOnPath('bash', env.PATH);
}

/** True when a hook object is one of hookd's http hooks (a loopback URL with hookd's path). */
export function isHookdHttpHook(hook: unknown): boolean {
  if (!isObject(hook) || hook.type !== 'http' || typeof hook.url !== 'string') return false;
  try {
    const url = new URL(hook.url);
    return url.hostname === '127.0.0.1' && url.pathname === HTTP_HOOK_PATH;
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
export function transportOf(hook: unknown): Transport | undefined {
  if (isHookdHttpHook(hook)) return 'http';
  if (!isObject(hook) || !isHookdCommand(hook.command)) return undefined;
  const words = hookdInvocation(hook.command as string) ?? [];
  return isFastClientInvocation(words) ? 'fast' : 'node';
}
