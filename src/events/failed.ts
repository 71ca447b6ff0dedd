/** What the failure rule reads of how a command ended (a runner CommandResult and a CommandOutcome fit). */
export interface CommandEnd {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  spawnError?: string | undefined;
}

/**
 * The one rule for "did this command fail?", used by the hook's log, the ledger, notifications
 * (`{{failed}}`, `commandsFailed`), `hookd replay` and the reports. A command failed when it could not
 * start (a spawn error, a missing cwd), ran out of time (its timeout or the event budget), was ended by a
 * signal, or exited non-zero. One exception: exit 2 of a blocking command is the guard's deliberate
 * decision (block), not a failure. Exit 2 of a non-blocking command cannot block anything: a failure.
 */
export function failed(end: CommandEnd, blocking: boolean): boolean {
  if (end.spawnError !== undefined || end.timedOut || end.signal !== null || end.exitCode === null)
    return true;
  if (end.exitCode === 0) return false;
  return !(blocking && end.exitCode === 2);
}
