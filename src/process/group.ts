/** What these helpers need of a child spawned with `detached: true` (the leader of its own group). */
export interface GroupLeader {
  readonly pid?: number | undefined;
  kill(signal?: NodeJS.Signals): boolean;
}

/**
 * Sends `signal` to the child's whole process group (its grandchildren too); when the group is gone or
 * cannot be signalled, to the child alone. Never throws.
 */
export function killProcessGroup(child: GroupLeader, signal: NodeJS.Signals): void {
  if (child.pid === undefined) {
    // Not started yet (the daemon's spawner answers a few ms after spawn()): the child keeps the kill
    // for its group. A child_process child without a pid failed to start: kill() does nothing.
    try {
      child.kill(signal);
    } catch {}
    return;
  }
  try {
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {}
  }
}

/** Whether any process of the child's group still lives. */
export function processGroupAlive(child: GroupLeader): boolean {
  if (child.pid === undefined) return false;
  try {
    process.kill(-child.pid, 0);
    return true;
  } catch {
    return false;
  }
}
