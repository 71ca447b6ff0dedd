import { releaseStdinCopy } from '../util/stdin-copy.js';
import { FAST_EVENT_ID_VAR, takeFastEventId } from './fast-event-id.js';

/**
 * What the fast client hands the Node path when it falls back to it: its private copy of the agent's
 * stdin as our stdin, with its path in HOOKD_CLIENT_STDIN_COPY, and sometimes the id of an event a daemon
 * acknowledged before it died (HOOKD_FAST_EVENT_ID). Only the fallback pays for this: the hook bundle
 * loads it from its own chunk (dist/fallback.cjs, scripts/build.mjs) when one of the two is set.
 */
export { FAST_EVENT_ID_VAR };

/**
 * Unlinks the client's copy (our stdin stays open) once its path is checked to be one (by name in the
 * runtime dir, a regular file of ours, never through a symlink); commands never see the variable. Says
 * the acknowledged event's id, trusted only from a fallback whose copy was released, and why a copy was
 * not released (the caller logs it).
 */
export function takeClientFallback(
  env: Record<string, string | undefined>,
  runtimeDir: string,
): { eventId?: string; copyProblem?: { copy: string; problem: string } } {
  const copy = env.HOOKD_CLIENT_STDIN_COPY;
  delete env.HOOKD_CLIENT_STDIN_COPY;
  const problem = copy === undefined ? undefined : releaseStdinCopy(copy, runtimeDir);
  const eventId = takeFastEventId(env, copy !== undefined && problem === undefined);
  return {
    ...(eventId !== undefined ? { eventId } : {}),
    ...(copy !== undefined && problem !== undefined ? { copyProblem: { copy, problem } } : {}),
  };
}
