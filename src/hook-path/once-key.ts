import { createHash } from 'node:crypto';
import type { HookEvent } from '../events/types.js';

/**
 * The key of one event: what makes two calls the same event (docs/daemon.md, "The same event twice"):
 * the same agent, event, stdin bytes, working directory, environment and planned commands. Both paths
 * key an event with it: the daemon's fast path, and the hook process asking the daemon (once-claim.ts).
 */
export function onceKey(
  event: HookEvent,
  call: { bytes: Buffer; cwd: string; env: Record<string, string | undefined> },
  commands: readonly unknown[],
): string {
  const hash = createHash('sha256');
  const env = Object.entries(call.env).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
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
