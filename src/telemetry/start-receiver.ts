import { renameSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { TELEMETRY_DEFAULTS, type TelemetryReceiverConfig } from '../config/schemas/telemetry-schema.js';
import { dataDir, type Env } from '../paths.js';
import { readPrivateFile, writePrivateFileAtomic } from '../util/private-fs.js';
import { startReceiver, type Receiver } from './receiver.js';
import { receiverToken, receiverTokenPath } from './receiver-token.js';
import type { StartedExport } from './start-export.js';
import type { AgentUsageLink } from '../ledger/agent-usage.js';
import type { Ledger } from '../ledger/ledger.js';
import { agentUsageOf, MAX_SESSIONS, UsageBook } from './usage-book.js';
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
 * Gives the tracker the book's usage for the records it writes, and returns what completes the records
 * already written: each changed session's usage is appended to the ledger (once per change, in order;
 * a session not yet recorded gets it in its record).
 */
function ledgerCompleter(book: UsageBook, ledger: LedgerUsage, logger: Logger, now: () => number) {
  ledger.link.attach((id) => {
    const t = book.get(id);
    return t ? agentUsageOf(t) : undefined;
  });
  let chain: Promise<unknown> = Promise.resolve();
  return (sessions: ReadonlySet<string>): Promise<unknown> => {
    for (const id of [...sessions]) {
      chain = chain.then(async () => {
        const t = book.get(id);
        if (!t) return;
        try {
          await ledger.amend(id, agentUsageOf(t), now());
        } catch (error) {
          logger.warn(
            { source: 'telemetry', session: id, error: (error as Error).message },
            'cannot complete the ledger record with the agent’s usage',
          );
        }
      });
    }
    return chain;
  };
}

export interface StartedReceiver {
  book: UsageBook;
  receiver: Receiver | undefined;
  tokenFile: string;
  /** Why it does not listen (a port held by another process, a token file that is not private). */
  problem: string | undefined;
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
}): Promise<StartedReceiver | undefined> {
  const { env, config, logger, now } = options;
  if (!config?.enabled) return undefined;
  const book = new UsageBook(now);
  loadBook(book, env, logger, now());
  const complete = options.ledger ? ledgerCompleter(book, options.ledger, logger, now) : undefined;
  const token = receiverToken(env);
  const tokenFile = receiverTokenPath(env);
  const port = config.port ?? TELEMETRY_DEFAULTS.receiverPort;
  if (!token.ok) {
    logger.error({ source: 'telemetry', problem: token.problem }, 'the OTLP receiver does not listen');
    return { book, receiver: undefined, tokenFile, problem: token.problem, close: async () => {} };
  }
  let timer: NodeJS.Timeout | undefined;
  const dirty = new Set<string>();
  let completing: Promise<unknown> = Promise.resolve();
  const save = () => {
    timer = undefined;
    if (complete) completing = complete(dirty);
    dirty.clear();
    try {
      writePrivateFileAtomic(agentUsagePath(env), `${JSON.stringify(book.save())}\n`);
    } catch (error) {
      logger.warn({ source: 'telemetry', error: (error as Error).message }, 'cannot save the agents’ usage');
    }
  };
  const changed = (sessions: Set<string>) => {
    for (const id of sessions) if (dirty.size < MAX_SESSIONS) dirty.add(id);
    if (sessions.size === 0 || timer) return;
    timer = setTimeout(save, SAVE_EVERY_MS);
    timer.unref();
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
    return { book, receiver: undefined, tokenFile, problem, close: async () => {} };
  }
  logger.info({ source: 'telemetry', port: receiver.port }, 'OTLP receiver listening on 127.0.0.1');
  return {
    book,
    receiver,
    tokenFile,
    problem: undefined,
    close: async () => {
      await receiver.close();
      if (timer) {
        clearTimeout(timer);
        save();
      }
      // What arrived last (an agent's export as it exits) completes the ledger before the daemon ends.
      await completing;
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
