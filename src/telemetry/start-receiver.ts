import { renameSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { TELEMETRY_DEFAULTS, type TelemetryReceiverConfig } from '../config/schemas/telemetry-schema.js';
import { dataDir, type Env } from '../paths.js';
import { readPrivateFile, writePrivateFileAtomic } from '../util/private-fs.js';
import { realTimers, type Timers } from '../util/timers.js';
import { startReceiver, type Receiver } from './receiver.js';
import { receiverToken, receiverTokenPath } from './receiver-token.js';
import type { StartedExport } from './start-export.js';
import type { AgentUsageLink } from '../ledger/agent-usage.js';
import type { Ledger } from '../ledger/ledger.js';
import { agentUsageOf, MAX_SESSIONS, UsageBook } from './usage-book.js';
import { AmendGate } from './amend-gate.js';
import type { Signal } from './signals.js';

/** Where the sessions' usage as the agents reported it is kept (docs/telemetry.md). */
export const agentUsagePath = (env: Env): string => join(dataDir(env), 'telemetry', 'sessions.json');

/** Changed usage is written at most this often. */
const SAVE_EVERY_MS = 2000;
/** Larger than any book the bounds allow: refused unread. */
const MAX_SAVED_BYTES = 32 * 1024 * 1024;

/**
 * The book saved by the last run, so a restart mid-session loses no delta totals. A file that is not a
 * private, valid book is moved aside (`.bad-<time>`) and logged; the book then starts empty.
 */
function loadBook(book: UsageBook, env: Env, logger: Logger, now: number): void {
  const file = agentUsagePath(env);
  const read = readPrivateFile(file, MAX_SAVED_BYTES);
  if (!read.ok && read.missing) return;
  let problem = read.ok ? undefined : read.problem;
  if (read.ok)
    try {
      problem = book.restore(JSON.parse(read.text));
    } catch (error) {
      problem = `not JSON: ${(error as Error).message}`;
    }
  if (!problem) return;
  let movedTo: string | undefined = `${file}.bad-${now}`;
  try {
    renameSync(file, movedTo);
  } catch {
    movedTo = undefined;
  }
  logger.error(
    { source: 'telemetry', file, problem, quarantined: movedTo },
    'the saved usage of the agents is not valid; moved aside, sessions start from what arrives next',
  );
}

/** The ledger as the receiver uses it: the tracker reads usage through `link`, `amend` completes. */
export interface LedgerUsage {
  link: AgentUsageLink;
  amend: Ledger['amend'];
}

/**
 * Gives the tracker the book's usage for the records it writes, and completes the records already
 * written: a changed session's usage is appended to the ledger when the gate lets it (only a change, at
 * most MAX_AMENDMENTS per session, each waiting longer than the one before; a session not yet recorded
 * gets its usage in its record). A change that must wait is written when its wait is over, with the
 * usage of that moment, or when the daemon stops.
 */
function ledgerCompleter(
  book: UsageBook,
  ledger: LedgerUsage,
  logger: Logger,
  now: () => number,
  timers: Timers,
) {
  const gate = new AmendGate();
  ledger.link.attach((id) => {
    const t = book.get(id);
    if (!t) return undefined;
    const usage = agentUsageOf(t);
    gate.carried(id, usage);
    return usage;
  });
  let chain: Promise<unknown> = Promise.resolve();
  /** Sessions whose change waits for its turn (at most MAX_SESSIONS), and the timer of the first due. */
  const waiting = new Set<string>();
  let timer: { handle: unknown; at: number } | undefined;
  const wake = (at: number) => {
    if (timer && timer.at <= at) return;
    if (timer) timers.clear(timer.handle);
    const handle = timers.set(
      () => {
        timer = undefined;
        const due = [...waiting];
        waiting.clear();
        void complete(due);
      },
      Math.max(0, at - now()),
    );
    timer = { handle, at };
  };
  const amend = async (id: string, waitOver: boolean) => {
    const t = book.get(id);
    if (!t) return;
    const usage = agentUsageOf(t);
    const at = now();
    const due = gate.due(id, usage, at);
    if (due === 'skip') return;
    if (due > at && !waitOver) {
      if (waiting.size < MAX_SESSIONS) waiting.add(id);
      wake(due);
      return;
    }
    try {
      if ((await ledger.amend(id, usage, at)) === 'written') gate.wrote(id, usage, at);
    } catch (error) {
      logger.warn(
        { source: 'telemetry', session: id, error: (error as Error).message },
        'cannot complete the ledger record with the agent’s usage',
      );
    }
  };
  const complete = (sessions: Iterable<string>, waitOver = false): Promise<unknown> => {
    for (const id of [...sessions]) chain = chain.then(() => amend(id, waitOver));
    return chain;
  };
  return {
    complete: (sessions: ReadonlySet<string>) => complete(sessions),
    settled: () => chain,
    /** At stop: what still waits is written now. */
    flush: () => {
      if (timer) timers.clear(timer.handle);
      timer = undefined;
      const due = [...waiting];
      waiting.clear();
      return complete(due, true);
    },
  };
}

export interface StartedReceiver {
  book: UsageBook;
  receiver: Receiver | undefined;
  tokenFile: string;
  /** Why it does not listen (a port held by another process, a token file that is not private). */
  problem: string | undefined;
  /** Resolves once the ledger work started so far (amendments) is done. */
  settled(): Promise<unknown>;
  close(): Promise<void>;
}

/**
 * The receiver part: undefined unless `telemetry.receiver.enabled`. A port it cannot take or a token
 * it cannot trust is logged and kept as `problem` (doctor reports the port); the daemon runs on.
 */
export async function startAgentReceiver(options: {
  env: Env;
  config: TelemetryReceiverConfig | undefined;
  logger: Logger;
  now: () => number;
  /** Also given each request taken (forwarding to the team's collector); called after the answer. */
  forward?: (signal: Signal, request: Record<string, unknown>) => void;
  /** The session ledger: its records get the agents' usage (docs/telemetry.md). */
  ledger?: LedgerUsage | undefined;
  /** When saving and completing the ledger happen (realTimers unless a test decides). */
  timers?: Timers;
}): Promise<StartedReceiver | undefined> {
  const { env, config, logger, now } = options;
  const timers = options.timers ?? realTimers;
  if (!config?.enabled) return undefined;
  const book = new UsageBook(now);
  loadBook(book, env, logger, now());
  const completer = options.ledger ? ledgerCompleter(book, options.ledger, logger, now, timers) : undefined;
  const token = receiverToken(env);
  const tokenFile = receiverTokenPath(env);
  const port = config.port ?? TELEMETRY_DEFAULTS.receiverPort;
  if (!token.ok) {
    logger.error({ source: 'telemetry', problem: token.problem }, 'the OTLP receiver does not listen');
    return {
      book,
      receiver: undefined,
      tokenFile,
      problem: token.problem,
      settled: async () => {},
      close: async () => {},
    };
  }
  let timer: unknown;
  const dirty = new Set<string>();
  const save = () => {
    timer = undefined;
    void completer?.complete(dirty);
    dirty.clear();
    try {
      writePrivateFileAtomic(agentUsagePath(env), `${JSON.stringify(book.save())}\n`);
    } catch (error) {
      logger.warn({ source: 'telemetry', error: (error as Error).message }, 'cannot save the agents’ usage');
    }
  };
  const changed = (sessions: Set<string>) => {
    for (const id of sessions) if (dirty.size < MAX_SESSIONS) dirty.add(id);
    if (sessions.size === 0 || timer !== undefined) return;
    timer = timers.set(save, SAVE_EVERY_MS);
  };
  let receiver: Receiver;
  try {
    receiver = await startReceiver({
      port,
      token: token.token,
      maxBodyBytes: config.maxBodyBytes ?? TELEMETRY_DEFAULTS.receiverMaxBodyBytes,
      logger,
      onRequest: (signal, request) => {
        if (signal === 'metrics') changed(book.addMetrics(request));
        else if (signal === 'logs') changed(book.addLogs(request));
        options.forward?.(signal, request);
      },
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const problem =
      code === 'EADDRINUSE'
        ? `port ${port} on 127.0.0.1 is held by another process (set telemetry.receiver.port)`
        : `cannot listen on 127.0.0.1:${port}: ${(error as Error).message}`;
    logger.error({ source: 'telemetry', problem }, 'the OTLP receiver does not listen');
    return { book, receiver: undefined, tokenFile, problem, settled: async () => {}, close: async () => {} };
  }
  logger.info({ source: 'telemetry', port: receiver.port }, 'OTLP receiver listening on 127.0.0.1');
  return {
    book,
    receiver,
    tokenFile,
    problem: undefined,
    settled: async () => completer?.settled(),
    close: async () => {
      await receiver.close();
      if (timer !== undefined) {
        timers.clear(timer);
        save();
      }
      // What arrived last (an agent's export as it exits) completes the ledger before the daemon ends.
      await completer?.flush();
    },
  };
}

/** Export and receiver as `hookd status` and doctor show them; undefined when both are off. */
export function telemetryStatus(
  exported: Pick<StartedExport, 'stats'> | undefined,
  received: StartedReceiver | undefined,
) {
  if (!exported && !received) return undefined;
  return {
    ...(exported ? { export: exported.stats() } : {}),
    ...(received
      ? {
          receiver: {
            ...(received.receiver ? { port: received.receiver.port } : {}),
            ...(received.problem ? { problem: received.problem } : {}),
            tokenFile: received.tokenFile,
            counts: received.receiver
              ? { ...received.receiver.counts }
              : { accepted: 0, unauthorized: 0, refused: 0 },
          },
        }
      : {}),
  };
}
