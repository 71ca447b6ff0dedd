import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { HTTP_HOOK_PATH } from '../daemon/http-credential.js';
import { findOnPath } from '../notify/channels/desktop.js';
import type { Env } from '../paths.js';
import { isObject } from '../util/json-values.js';
import {
  FAST_CLIENT_NAME,
  hookdInvocation,
  isFastClientInvocation,
  isHookdCommand,
} from './hookd-command.js';

/**
 * How the agent reaches hookd for an event (docs/hook.md, "Paths"):
 * - node: `<node> <hookd.cjs> hook --agent X`, one Node start per event;
 * - fast: `/bin/bash <hookd>/bin/hookd-client.bash --agent X`, the event runs in the daemon (falls back
 *   to the Node path by itself);
 * - http: Claude Code POSTs the event to the daemon's loopback listener (observe-only events only).
 */
export const TRANSPORTS = ['node', 'fast', 'http'] as const;
export type Transport = (typeof TRANSPORTS)[number];

/** The fast client shipped beside the hookd program: `<pkg>/bin/hookd-client.bash` for `<pkg>/dist/hookd.cjs`. */
export function fastClientPath(hookdPath: string): string {
  return join(dirname(resolve(hookdPath)), '..', 'bin', FAST_CLIENT_NAME);
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

/** The transport of one of hookd's hook objects (undefined for a hook that is not hookd's). */
export function transportOf(hook: unknown): Transport | undefined {
  if (isHookdHttpHook(hook)) return 'http';
  if (!isObject(hook) || !isHookdCommand(hook.command)) return undefined;
  const words = hookdInvocation(hook.command as string) ?? [];
  return isFastClientInvocation(words) ? 'fast' : 'node';
}
