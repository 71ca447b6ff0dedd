import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { CommandOutcome, EventHandoff } from '../events/types.js';
import { stateDir, type Env } from '../paths.js';
import { readPrivateFile, writePrivateFileAtomic } from '../util/private-fs.js';
import { eventRequestSchema } from './protocol.js';
import { listSpool, quarantineSpoolFile, spoolFileName } from './spool.js';

/**
 * In-flight records of the fast listener (issue 12): the event the daemon acknowledged (ACK) and is
 * running, written before the ACK and removed once its hand-off to the journal is done. A daemon killed
 * in between leaves the record; the next daemon ingests it at start (the journal dedupes by event id),
 * with outcomes saying the daemon died mid-event. The client never falls back after GO, so without this
 * such an event would be in neither the journal nor the spool. No fsync: it guards against the daemon
 * dying, not the machine.
 */

/** Where the records live: `<state>/daemon/inflight`, private. */
export function inflightDir(env: Env): string {
  return join(stateDir(env), 'daemon', 'inflight');
}

/** A record is a hand-off message: at most the size of an event (8 MiB) and its outcomes. */
const MAX_RECORD_BYTES = 16 * 1024 * 1024;

export const DIED_MID_EVENT = 'the hookd daemon died while running the event; the command may not have run';

/** What a command's outcome is when the daemon died during its event: not known to have run. */
export function diedOutcome(
  outcome: Omit<CommandOutcome, 'exitCode' | 'signal' | 'timedOut' | 'durationMs'>,
) {
  const out: CommandOutcome = {
    ...outcome,
    exitCode: null,
    signal: null,
    timedOut: false,
    durationMs: 0,
    spawnError: DIED_MID_EVENT,
  };
  return out;
}

/**
 * Writes the record (atomically, 0600); returns its file name for clearInflight. The folder is checked
 * (ensurePrivateDir) at the first record and again only when it went missing: a third of the cost.
 */
export function recordInflight(dir: string, now: number, message: EventHandoff): string {
  const name = spoolFileName(now, message.event.id);
  const text = JSON.stringify(message);
  if (!checked.has(dir)) {
    writePrivateFileAtomic(join(dir, name), text);
    checked.add(dir);
    return name;
  }
  try {
    writePrivateFileAtomic(join(dir, name), text, { ensureDir: false });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    writePrivateFileAtomic(join(dir, name), text);
  }
  return name;
}
const checked = new Set<string>();

export function clearInflight(dir: string, name: string): void {
  rmSync(join(dir, name), { force: true });
}

/**
 * At daemon start, before the listener answers: each leftover record into the journal (once: `receive`
 * dedupes by event id), then removed; a record that is not a valid hand-off is moved to `rejected/`.
 * Returns how many events were taken.
 */
export async function recoverInflight(
  dir: string,
  receive: (handoff: EventHandoff) => Promise<{ duplicate: boolean }>,
  logger: Logger,
): Promise<number> {
  let taken = 0;
  for (const name of listSpool(dir)) {
    const read = readPrivateFile(join(dir, name), MAX_RECORD_BYTES);
    if (!read.ok) {
      if (read.missing) continue;
      quarantineSpoolFile(dir, name);
      logger.error({ kind: 'fast', file: name, problem: read.problem }, 'bad in-flight record; moved aside');
      continue;
    }
    let parsed;
    try {
      parsed = eventRequestSchema.safeParse(JSON.parse(read.text));
    } catch {
      parsed = undefined;
    }
    if (!parsed?.success) {
      quarantineSpoolFile(dir, name);
      logger.error({ kind: 'fast', file: name }, 'in-flight record is not a valid event; moved to rejected/');
      continue;
    }
    let duplicate: boolean;
    try {
      ({ duplicate } = await receive(parsed.data));
    } catch (error) {
      // The journal refuses now: the record stays for the next start.
      logger.error(
        { kind: 'fast', file: name, error: (error as Error).message },
        'cannot journal an in-flight record',
      );
      continue;
    }
    clearInflight(dir, name);
    if (duplicate) continue;
    taken++;
    logger.warn(
      { kind: 'fast', eventId: parsed.data.event.id, event: parsed.data.event.name },
      'the last daemon died while running this event (its commands may not have run); journaled now',
    );
  }
  return taken;
}
