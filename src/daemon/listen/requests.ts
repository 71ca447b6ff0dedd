import type { EventHandoff } from '../../events/types.js';
import { serializeNoise, type NoiseState } from '../../notify/noise.js';
import type { SessionTable } from '../../notify/session-state.js';
import type {
  DaemonRequest,
  OnceRequest,
  OutboxRequest,
  PermissionRequestMessage,
} from '../../link/protocol.js';
import type { DaemonStats } from '../../journal/stats.js';
import type { DaemonStore, Delivery, JournalRecord, Ladder } from '../../journal/store.js';

/** Ladders listed per `ladders` request, running and stopped each. */
const LADDERS_LISTED = 100;
import { ackPlan, type Answered } from '../../journal/escalator.js';
import { sessionOf } from './accepted.js';
import { OnceBook, OnceDesk, type OnceConnection } from './once.js';

export interface RequestOptions {
  /** The book of events running now, shared with the fast listener (once.ts); default a book of its own. */
  once?: OnceBook;
  /** True once the daemon is stopping: events are refused. */
  stopping: () => boolean;
  /** Why the journal cannot be written now, or undefined. */
  journalTrouble: () => { error: string; code?: string | undefined } | undefined;
  /** Makes an event durable and queues it (ingest). */
  receive: (handoff: EventHandoff) => Promise<{ duplicate: boolean }>;
  stats: () => DaemonStats;
  /** Awaited before a status reply (a fresh presence reading; it keeps its own short deadline). */
  beforeStatus?: () => Promise<unknown>;
  /** Starts stopping the daemon (after the reply is sent). */
  shutdown: () => void;
  store: Pick<DaemonStore, 'deliveries' | 'recentDelivered' | 'recentCancelled'>;
  commit: (records: JournalRecord[]) => Promise<void>;
  wake: (channels: Iterable<string>) => void;
  noise: () => NoiseState;
  sessions?: () => SessionTable;
  /** The escalation ladders (and held deliveries) `hookd ack` stops, and who is told. */
  ladders?: Pick<DaemonStore, 'ladders' | 'recentLadders' | 'deliveries'>;
  onAnswered?: (answer: Answered) => void;
  /** The records that mark a session's shown "waiting" notifications resolved (the pipeline's resolveShown). */
  resolveShown?: (session: string, by: string) => JournalRecord[];
  logger?: { info(obj: object, msg: string): void };
  /** A permission prompt to send away (remote answers); absent: never sent. */
  permission?: (request: PermissionRequestMessage) => Promise<Record<string, unknown>>;
  now: () => number;
  pid?: number;
}

/** `hookd outbox`: list, retry dead deliveries, purge. */
async function outboxRequest(o: RequestOptions, request: OutboxRequest): Promise<Record<string, unknown>> {
  const wanted = (d: Delivery) =>
    request.ids ? request.ids.includes(d.id) : request.state === 'all' || d.state === request.state;
  if (request.action === 'list') {
    const items = [
      ...o.store.deliveries.values(),
      ...o.store.recentDelivered,
      ...o.store.recentCancelled,
    ].filter(wanted);
    return { ok: true, items };
  }
  const targets = [...o.store.deliveries.values()].filter(wanted);
  const at = o.now();
  const records: JournalRecord[] =
    request.action === 'retry'
      ? targets.filter((d) => d.state === 'dead').map((d) => ({ t: 'retry', id: d.id, at }))
      : targets.map((d) => ({ t: 'purge', id: d.id }));
  await o.commit(records);
  if (request.action === 'retry') o.wake(new Set(targets.map((d) => d.channel)));
  return { ok: true, affected: records.length };
}

/** The same event twice, from hook processes that run it themselves (once.ts, OnceDesk). */
async function onceRequest(
  o: RequestOptions,
  desk: OnceDesk,
  request: OnceRequest,
  connection: OnceConnection | undefined,
): Promise<Record<string, unknown>> {
  if (!connection) return { ok: true, role: 'alone', reason: 'not over a connection' };
  switch (request.type) {
    case 'once': {
      if (o.stopping()) return { ok: true, role: 'alone', reason: 'the daemon is stopping' };
      const { session, id } = request;
      const call =
        session !== undefined && id !== undefined ? { session: sessionOf(session), id } : undefined;
      const reply = desk.claim(request.key, connection, request.budgetMs, call);
      if (reply.role === 'copy')
        o.logger?.info(
          { kind: 'once', duplicate: true },
          reply.firstAnswered
            ? 'the same event was answered just before in another hook process: gives its answer'
            : 'the same event is running in another hook process: waits for its answer',
        );
      return reply;
    }
    case 'once-wait':
      return desk.wait(request.key, connection);
    case 'once-done': {
      const { exitCode, stdout, stderr } = request;
      return desk.done(
        request.key,
        connection,
        exitCode === undefined ? undefined : { exitCode, stdout, stderr },
      );
    }
  }
}

/** The socket's request handler: event, ping, status, shutdown, outbox, noise, sessions, once. */
export function requestHandler(
  o: RequestOptions,
): (request: DaemonRequest, connection?: OnceConnection) => Promise<Record<string, unknown>> {
  const pid = o.pid ?? process.pid;
  const desk = new OnceDesk(o.once ?? new OnceBook(o.now));
  return async (request, connection) => {
    switch (request.type) {
      case 'once':
      case 'once-wait':
      case 'once-done':
        return onceRequest(o, desk, request, connection);
      case 'event': {
        if (o.stopping())
          return { ok: false, code: 'shutting_down', error: 'the daemon is stopping', id: request.event.id };
        const trouble = o.journalTrouble();
        if (trouble)
          return {
            ok: false,
            code: 'unavailable',
            error: `the daemon cannot write its journal (${trouble.code ?? trouble.error}; ${trouble.error}): not accepting events until it can`,
            id: request.event.id,
          };
        const result = await o.receive(request);
        return { ok: true, id: request.event.id, ...(result.duplicate ? { duplicate: true } : {}) };
      }
      case 'ping':
        return { ok: true, pong: true, pid };
      case 'status':
        await o.beforeStatus?.();
        return { ok: true, status: o.stats() };
      case 'shutdown':
        setImmediate(o.shutdown);
        return { ok: true, stopping: true, pid };
      case 'outbox':
        return outboxRequest(o, request);
      case 'noise':
        return { ok: true, noise: serializeNoise(o.noise()) };
      case 'sessions':
        return { ok: true, sessions: [...(o.sessions?.() ?? new Map()).values()] };
      case 'ladders': {
        // One session's, or the most recent ones: a reply stays small however many run.
        const mine = (l: Ladder) => request.session === undefined || l.session === request.session;
        return {
          ok: true,
          active: [...(o.ladders?.ladders.values() ?? [])].filter(mine).slice(-LADDERS_LISTED),
          recent: (o.ladders?.recentLadders ?? []).filter(mine).slice(-LADDERS_LISTED),
        };
      }
      case 'permission':
        if (o.stopping()) return { ok: true, reason: 'stopping' };
        return o.permission ? o.permission(request) : { ok: true, reason: 'off' };
      case 'ack': {
        if (!o.ladders) return { ok: false, code: 'unsupported', error: 'this daemon has no ladders' };
        const at = o.now();
        const plan = ackPlan(o.ladders, request, at);
        const resolved = plan.acked.flatMap((s) => o.resolveShown?.(s.session, 'hookd ack') ?? []);
        await o.commit([...plan.records, ...resolved]);
        o.wake(new Set(resolved.flatMap((r) => (r.t === 'add' ? [r.d.channel] : []))));
        for (const s of plan.acked) {
          o.logger?.info(
            { sessionId: s.session, ladders: s.ladders, cancelled: s.cancelled },
            'acknowledged (hookd ack): escalation stopped, held notifications cancelled',
          );
          o.onAnswered?.({
            session: s.session,
            how: 'acked',
            by: 'hookd ack',
            at,
            cancelled: s.cancelled,
            ladders: s.ladders,
          });
        }
        return {
          ok: true,
          acked: plan.acked,
          stillWaiting: plan.stillWaiting,
          ...(plan.problem ? { problem: plan.problem } : {}),
        };
      }
    }
  };
}
