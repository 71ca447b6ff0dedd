/**
 * The id of an event the fast client had acknowledged. The daemon answers
 * `ACK <lost code> <event id>` once it has written the event's in-flight record; when the client's GO
 * then cannot be written (the daemon died in between), the daemon never runs the event and the client
 * falls back to the Node path with HOOKD_FAST_EVENT_ID=<that id> (and its stdin copy). The Node path
 * gives its event that id, so the journal, which takes each event id once, keeps one of the two: the
 * spooled event (drained before the in-flight records at a daemon's start) or the record, never both.
 *
 * Trusted only with the stdin copy of a client's fallback (HOOKD_CLIENT_STDIN_COPY, checked): a value
 * inherited from the agent's environment never names an event. Always removed from the environment, so
 * commands never see it. Only the fallback pays for this; the fast path and the Node path do nothing.
 */
export const FAST_EVENT_ID_VAR = 'HOOKD_FAST_EVENT_ID';

/** What spool and in-flight file names take as they are (spoolFileName), and no longer than an id. */
const EVENT_ID = /^[A-Za-z0-9_-]{1,80}$/;

/**
 * Takes HOOKD_FAST_EVENT_ID out of `env` and returns it when it is an event id and `fromClient` (the
 * process is a fast client's fallback that handed over its stdin copy); else undefined.
 */
export function takeFastEventId(
  env: Record<string, string | undefined>,
  fromClient: boolean,
): string | undefined {
  const value = env[FAST_EVENT_ID_VAR];
  if (value === undefined) return undefined;
  delete env[FAST_EVENT_ID_VAR];
  return fromClient && EVENT_ID.test(value) ? value : undefined;
}
