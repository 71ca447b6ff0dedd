import type { HookdConfig } from '../config/schemas/schema.js';
import type { HookEvent } from '../events/types.js';
import type { LineLogger } from '../logging/line-logger.js';
import type { PlannedCommand } from '../runner/route.js';
import type { ClaimOnce, OnceTurn } from './hand-off.js';
import { onceKey } from './once-key.js';

/**
 * The same event twice on the Node path (docs/daemon.md, "The same event twice"): an event with commands,
 * run by the hook process while a daemon is in use, first asks the daemon whether a call of the same
 * event runs already. The first call runs it; a copy waits for its answer and gives the agent the same
 * exit code, stdout and stderr, without running a command or handing the event over again. The hook
 * bundle loads this module from its own chunk (dist/once.cjs, scripts/build.mjs) only for such an event.
 */

/** A copy waits this long past the first call's own limits before it runs the event itself. */
const WAIT_MARGIN_MS = 5000;

export async function takeTurn(
  event: HookEvent,
  call: { bytes: Buffer; cwd: string; env: Record<string, string | undefined> },
  commands: readonly PlannedCommand[],
  limits: { config: HookdConfig; budgetMs: number },
  edges: { claimOnce: ClaimOnce; logger: LineLogger },
): Promise<OnceTurn> {
  const key = onceKey(
    event,
    call,
    commands.map((c) => [c.origin, c.name, c.spec.command]),
  );
  // The first call may also wait for a remote answer to a permission prompt (docs/remote.md).
  const remote = limits.config.remote;
  const remoteMs = event.name === 'PermissionRequest' && remote?.enabled ? remote.waitSec * 1000 : 0;
  const turn = await edges.claimOnce(key, {
    env: call.env,
    // The daemon answers the rest at once: within the hand-off's own limit.
    askMs: limits.config.daemon.handoffTimeoutMs,
    waitMs: limits.budgetMs + remoteMs + WAIT_MARGIN_MS,
    // As the first call, the daemon tells the copies to run once this is over (commands stopped at the
    // budget get their kill grace).
    budgetMs: Math.ceil(limits.budgetMs + remoteMs + limits.config.settings.killGraceMs),
    // With them, a copy that comes just after this call answered still gets its answer.
    ...(event.sessionId !== undefined ? { session: event.sessionId, id: event.id } : {}),
  });
  if (turn.role === 'copy')
    edges.logger.log(
      'info',
      { kind: 'duplicate', event: event.name, eventId: event.id, exitCode: turn.answer.exitCode },
      "the same event came twice (one hookd entry in two settings files); answered with the first call's result",
    );
  else if (turn.role === 'alone' && turn.waited)
    edges.logger.log(
      'warn',
      { kind: 'duplicate', event: event.name, eventId: event.id, reason: turn.reason },
      `the same event came twice and its first call gave no answer (${turn.reason}); run here`,
    );
  return turn;
}
