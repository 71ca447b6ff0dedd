import { createHash } from 'node:crypto';
import type { HookEvent } from '../events/types.js';

/**
 * Set by what started hookd, not by the agent: the fast command's HOOKD_NODE and HOOKD_CJS (install.md)
 * and the shell's `_` (the program it ran). Left out of the key, so a call that came through the native
 * client and one through the Node command are one event.
 */
const TRANSPORT_VARS = new Set(['_', 'HOOKD_NODE', 'HOOKD_CJS']);

/**
 * The key of one event: what makes two calls the same event (docs/daemon.md, "The same event twice"):
 * the same agent, event, stdin bytes, working directory, environment and planned commands. Both paths
 * key an event with it, for one book: the daemon's fast path, and the hook process asking the daemon
 * (once-claim.ts).
 */
export function onceKey(
  event: HookEvent,
  call: { bytes: Buffer; cwd: string; env: Record<string, string | undefined> },
  commands: readonly unknown[],
): string {
  const hash = createHash('sha256');
  const env = Object.entries(call.env)
    .filter(([name]) => !TRANSPORT_VARS.has(name))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const parts = [
    event.agent,
    event.name,
    event.cwd ?? '',
    call.cwd,
    JSON.stringify(commands),
    JSON.stringify(env),
  ];
  for (const part of parts) hash.update(`${part.length}:${part}\n`);
  hash.update(call.bytes);
  return hash.digest('hex');
}
