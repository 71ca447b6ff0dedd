import { closeSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { CommandOutcome, EventHandoff } from '../events/types.js';
import { stateDir, type Env } from '../paths.js';
import { createPrivateFile, ensurePrivateDir, readPrivateFile, writeAll } from '../util/private-fs.js';
import { eventRequestSchema } from '../link/protocol.js';
import { listSpool, quarantineSpoolFile, spoolFileName } from '../link/spool.js';

/**
 * In-flight records of the fast listener: the event the daemon acknowledged (ACK) and is
 * running, written before the ACK and removed once its hand-off to the journal is done. A daemon killed
 * in between leaves the record; the next daemon ingests it at start (the journal dedupes by event id),
 * with outcomes saying the daemon died mid-event. The client never falls back after GO, so without this
 * such an event would be in neither the journal nor the spool. No fsync: it guards against the daemon
 * dying, not the machine.
 *
 * A record is written in place, with one exclusive open (O_CREAT|O_EXCL|O_NOFOLLOW, 0600) and one write,
 * not through a temp file and a rename: the ACK is sent only after the write returned, so a record a
 * daemon died writing (torn: empty or cut JSON) belongs to an event that was never acknowledged, which
 * the client ran through its fallback. Recovery moves such a record aside, never journals it.
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
 * Writes the record (one exclusive create, one write, 0600); returns its file name for clearInflight.
 * The folder is checked (ensurePrivateDir) at the first record and again only when it went missing.
 * Throws when the record cannot be written whole (nothing is left behind then): the event is not
 * acknowledged as recorded.
 */
export function recordInflight(dir: string, now: number, message: EventHandoff): string {
  const name = spoolFileName(now, message.event.id);
  const file = join(dir, name);
  const data = Buffer.from(JSON.stringify(message));
  let fd: number;
  if (!checked.has(dir)) {
    ensurePrivateDir(dir);
    checked.add(dir);
    fd = createPrivateFile(file);
  } else {
    try {
      fd = createPrivateFile(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      ensurePrivateDir(dir);
      fd = createPrivateFile(file);
    }
  }
  try {
    writeAll(fd, data);
  } catch (error) {
    closeSync(fd);
    clearInflight(dir, name);
    throw error;
  }
  closeSync(fd);
  return name;
}
const checked = new Set<string>();

export function clearInflight(dir: string, name: string): void {
  try {
    unlinkSync(join(dir, name));
  } catch {}
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
    let json: unknown;
    try {
      json = JSON.parse(read.text);
    } catch {
      // Torn: the daemon died writing it, before the ACK; the client ran the event through its fallback.
      quarantineSpoolFile(dir, name);
      logger.warn(
        { kind: 'fast', file: name, bytes: read.text.length },
        'torn in-flight record (the daemon died before acknowledging the event); moved to rejected/',
      );
      continue;
    }
    const parsed = eventRequestSchema.safeParse(json);
    if (!parsed.success) {
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
