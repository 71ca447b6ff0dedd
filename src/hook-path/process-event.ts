import type { ConfigValidator, LoadedConfig } from '../config/load.js';
import type { AskRemote, ClaimOnce, HandOff, OnceTurn } from './hand-off.js';
import { askRemotely } from './remote-ask.js';
import { loadConfig } from '../config/load.js';
import {
  canonicalEventName,
  eventScanOptions,
  parseEvent,
  parseScanned,
  type DeclaredAgent,
  type ParseResult,
} from '../events/parse.js';
import { scanJson, type ScanResult } from '../events/json-scan.js';
import { isEventName } from '../events/names.js';
import type { SpilledStdin } from '../events/read-stdin.js';
import type { CommandOutcome, EventHandoff, HookEvent } from '../events/types.js';
import type { LineLogger } from '../logging/line-logger.js';
import { notRunReason, type AgentReply } from '../runner/decision.js';
import { eventBudgetMs, planCommands, type PlannedCommand, type SkippedEntry } from '../runner/route.js';
import type { RanCommand } from '../runner/run-event.js';
import type { SpawnLike } from '../runner/run-command.js';
import { DEFAULTS } from '../config/defaults.js';
import { newEventId } from '../util/event-id.js';
import { monotonicMs } from '../util/monotonic-clock.js';
import { failed } from '../events/failed.js';
import { fitsAsIs } from './handoff-bound.js';
import { configHasNews } from '../config/source-state.js';
// An event's commands, from their own chunk in the hook bundle (run-planned.ts): most events have none.
import { runPlanned } from './run-planned.js';
// The same event twice, from its own chunk (once-claim.ts): asked only for an event with commands.
import { takeTurn } from './once-claim.js';
// Rare paths, from their own chunk in the hook bundle (rare.ts).
import {
  answerUnreadable,
  boundedPayload,
  claimConfigNotices,
  claimConfigWarnings,
  keepTooDeep,
  logConfigState,
  type Rejection,
} from './rare.js';

type Env = Record<string, string | undefined>;

export type { HandOff } from './hand-off.js';

export interface ProcessIO {
  env: Env;
  /** Working directory for commands when the event has no cwd. */
  cwd: string;
  logger: LineLogger;
  validator: () => ConfigValidator;
  /** Hands the event to the daemon; absent = no hand-off (e.g. `hookd emit --no-daemon`). */
  handOff?: HandOff | undefined;
  /** How to start the daemon in the background when it is down. */
  daemonArgv?: string[];
  /** Asks the daemon to send a permission prompt away (remote answers); absent: never asked. */
  askRemote?: AskRemote | undefined;
  /** Asks the daemon whether a call of the same event runs already (once-claim.ts); absent: never asked. */
  claimOnce?: ClaimOnce | undefined;
  now?: () => number;
  /** The agent named by the hook command (`hookd hook --agent claude`); guessed from the event when absent. */
  agent?: DeclaredAgent | undefined;
  /** `agent` is the sender, whatever the event says (`hookd emit`); else the event's own signs may win. */
  agentGiven?: boolean | undefined;
  /** The event's id when it already has one (a daemon acknowledged it: src/hook-path/fast-event-id.ts). */
  eventId?: string | undefined;
}

/** How much stdin hookd takes, and how much of it in memory (docs/hook.md, "Input limits"). */
export function inputLimits(env: Env): { maxBytes: number; memoryBytes: number; timeoutMs: number } {
  const maxBytes = Number(env.HOOKD_MAX_STDIN_BYTES) || DEFAULTS.maxStdinBytes;
  const memoryBytes = Math.min(Number(env.HOOKD_STDIN_MEMORY_BYTES) || DEFAULTS.stdinMemoryBytes, maxBytes);
  return { maxBytes, memoryBytes, timeoutMs: Number(env.HOOKD_STDIN_TIMEOUT_MS) || DEFAULTS.stdinTimeoutMs };
}

/**
 * One event to run: what the agent gave the hook. Everything a command sees comes from here, never from
 * the running process (see docs/hook.md, "Running one event").
 */
export interface RunEventRequest {
  /** The raw stdin bytes, as the agent wrote them; commands get them unchanged on their stdin. */
  bytes: Buffer;
  /** The hook's environment: commands run with it (plus HOOKD_* and the payload fields). */
  env: Env;
  /** The hook's working directory: where commands run when neither they nor the event name one. */
  cwd: string;
  /** The hook's umask, when it differs from the caller's own (the daemon); absent: inherited. */
  umask?: number | undefined;
  /** The agent named by the hook command; guessed from the event and env when absent. */
  agent?: DeclaredAgent | undefined;
  /** `agent` is the sender, whatever the event says (`hookd emit`). */
  agentGiven?: boolean | undefined;
  /** The event already parsed from `bytes` (the daemon parses before it acknowledges, by event id). */
  parsed?: Extract<ParseResult, { ok: true }> | undefined;
  /** The event's id when it already has one (a daemon acknowledged it); absent: a new one. */
  id?: string | undefined;
  /**
   * The event named by the hook command (`hookd hook --event PreToolUse`): which event this is when its
   * input cannot be read. Taken only when it looks like an event name (names.ts, isEventName).
   */
  declaredEvent?: string | undefined;
  /** stdin could not be read whole (too big, not closed in time); `bytes` is what came. */
  readFailure?: { reason: 'too-big' | 'timeout' | 'error'; detail: string; scan?: ScanResult | undefined };
  /** stdin was too large to hold: it is in this private file, `bytes` its first part. */
  spilled?: SpilledStdin | undefined;
}

/** What the caller plugs in: where config, time, processes, logs and the daemon come from. */
export interface RunEventEdges {
  logger: LineLogger;
  /** The zod validator, loaded on demand (config load from disk, the dead-letter settings). */
  validator: () => ConfigValidator;
  /**
   * The config for an event of this project dir. Default: loaded from disk with `validator` (the hook
   * process). The daemon passes the config it holds. May throw: the event then runs no command.
   */
  loadConfig?: ((projectDir: string | undefined, env: Env) => LoadedConfig) | undefined;
  /** Hands the event to the daemon; absent = no hand-off (`hookd emit --no-daemon`, the daemon itself). */
  handOff?: HandOff | undefined;
  /** How to start the daemon in the background when it is down. */
  daemonArgv?: string[] | undefined;
  now?: (() => number) | undefined;
  /** How commands are started (default: node:child_process spawn). */
  spawn?: SpawnLike | undefined;
  /** Aborted when the caller gives up on the event (its client went away): running commands are killed. */
  signal?: AbortSignal | undefined;
  /** Asks the daemon to send a permission prompt away (remote answers); absent: never asked. */
  askRemote?: AskRemote | undefined;
  /** Asks the daemon whether a call of the same event runs already (once-claim.ts); absent: never asked. */
  claimOnce?: ClaimOnce | undefined;
  /** Told the agent's answer as soon as it is decided, before the hand-off (the daemon answers at once). */
  onReply?: ((reply: AgentReply) => void) | undefined;
}

/** The answer to the agent, and what happened on the way. */
export interface RunEventReply {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** One per command that was planned, in config order (what the daemon and the ledger get). */
  outcomes: CommandOutcome[];
  report: HookReport;
}

/** Everything that happened to one event: what `hookd emit` prints and tests assert on. */
export interface HookReport {
  event?: HookEvent;
  rejected?: Rejection;
  config?: LoadedConfig;
  planned: PlannedCommand[];
  skipped: SkippedEntry[];
  ran: RanCommand[];
  reply: AgentReply;
  handoff?: { outcome: string; error?: string | undefined };
  /** The same event ran in another call: its answer was given, nothing ran or was handed over here. */
  copy?: boolean;
  durationMs: number;
}

const SILENT: AgentReply = { exitCode: 0, stdout: '', stderr: '' };

export function toOutcome(r: RanCommand): CommandOutcome {
  const out: CommandOutcome = {
    name: r.planned.name,
    command: r.planned.spec.command,
    exitCode: r.result.exitCode,
    signal: r.result.signal,
    timedOut: r.result.timedOut,
    durationMs: Math.round(r.result.durationMs * 10) / 10,
    blocking: r.planned.spec.blocking,
    origin: r.planned.origin,
  };
  if (r.result.spawnError) out.spawnError = r.result.spawnError;
  return out;
}

/** The config for an event of this project dir: the caller's (the daemon's), else loaded from disk. May throw. */
function configFor(edges: RunEventEdges, env: Env, projectDir: string | undefined): LoadedConfig {
  return edges.loadConfig
    ? edges.loadConfig(projectDir, env)
    : loadConfig({ env, projectDir, validator: edges.validator });
}

/** Input hookd could not read (rejected.ts): the answer goes into the report. */
function answerUnreadableInto(
  request: RunEventRequest,
  edges: RunEventEdges,
  report: HookReport,
  failure: { reason: string; detail: string; scan?: ScanResult | undefined },
): void {
  const io = { ...edges, env: request.env };
  const answer = answerUnreadable(request, io, failure, (projectDir) => configFor(edges, io.env, projectDir));
  report.rejected = answer.rejected;
  if (answer.config) report.config = answer.config;
  if (answer.planned) report.planned = answer.planned;
  if (answer.reply) report.reply = answer.reply;
}

/**
 * The request's event. Past the in-memory limit (a spilled stdin, or bytes a caller holds), hookd's own
 * copy is the scan's bounded one (strings cut with a marker), never a whole parse.
 */
function parseRequest(
  request: RunEventRequest,
  memoryBytes: number,
  clock: { now(): number; id(): string } | undefined,
): ParseResult {
  const { spilled, bytes, env, agent, agentGiven } = request;
  if (spilled) return parseScanned(spilled.scan, spilled.size, env, clock, agent, agentGiven);
  if (bytes.length <= memoryBytes) return parseEvent(bytes, env, clock, agent, agentGiven);
  const scan = scanJson(bytes, eventScanOptions(memoryBytes));
  return parseScanned(scan, bytes.length, env, clock, agent, agentGiven);
}

/** `runEvent` with the hook process's options (ProcessIO); returns the report. */
export async function processEvent(raw: Buffer, io: ProcessIO): Promise<HookReport> {
  const request: RunEventRequest = {
    bytes: raw,
    env: io.env,
    cwd: io.cwd,
    agent: io.agent,
    agentGiven: io.agentGiven,
    id: io.eventId,
  };
  return (await runEvent(request, io)).report;
}

/**
 * "Run one event": the hook's whole job for one event, from the request (raw stdin bytes, env, cwd,
 * umask, agent) to the reply (exit code, stdout, stderr, outcomes), with its edges injected. Used by
 * the hook process today (`processEvent`), and meant for the daemon running events itself. Never throws
 * for bad input, bad config or failing commands: each becomes a log record and a silent exit 0.
 */
export async function runEvent(request: RunEventRequest, edges: RunEventEdges): Promise<RunEventReply> {
  const raw = request.bytes;
  const io = { ...edges, env: request.env };
  const started = monotonicMs();
  const report: HookReport = { planned: [], skipped: [], ran: [], reply: SILENT, durationMs: 0 };
  const finish = (): RunEventReply => {
    report.durationMs = Math.round((monotonicMs() - started) * 10) / 10;
    return { ...report.reply, outcomes: report.ran.map(toOutcome), report };
  };

  const given = request.id;
  const clock =
    given !== undefined || edges.now
      ? { now: edges.now ?? Date.now, id: given !== undefined ? () => given : newEventId }
      : undefined;
  if (request.declaredEvent !== undefined && !isEventName(request.declaredEvent))
    io.logger.log(
      'warn',
      { kind: 'event-flag', value: request.declaredEvent },
      `--event ${JSON.stringify(request.declaredEvent)} is not an event name (letters, digits and _); ignored`,
    );
  const limits = inputLimits(io.env);
  const spilled = request.spilled;
  if (request.readFailure) {
    answerUnreadableInto(request, edges, report, request.readFailure);
    return finish();
  }
  if (!spilled && raw.length > limits.maxBytes) {
    answerUnreadableInto(request, edges, report, {
      reason: 'too-big',
      detail: `stdin is larger than ${limits.maxBytes} bytes`,
    });
    return finish();
  }
  const parsed = request.parsed ?? parseRequest(request, limits.memoryBytes, clock);
  if (!parsed.ok) {
    answerUnreadableInto(request, edges, report, parsed);
    return finish();
  }
  const event = parsed.event;
  if (typeof event.payload.hook_event_name !== 'string' && isEventName(request.declaredEvent))
    event.name = canonicalEventName(event.agent, request.declaredEvent);
  report.event = event;
  if (parsed.tooDeep) keepTooDeep(io, raw, event);

  let loaded: LoadedConfig;
  try {
    loaded = configFor(edges, io.env, event.projectDir);
  } catch (error) {
    io.logger.log(
      'error',
      { kind: 'config', eventId: event.id },
      `cannot load config: ${(error as Error).message}`,
    );
    return finish();
  }
  report.config = loaded;
  const news = configHasNews(loaded);
  if (news) logConfigState(io.logger, loaded, event.id);

  const plan = planCommands(event, loaded.config, loaded);
  report.planned = plan.commands;
  report.skipped = plan.skipped;
  const daemon = loaded.config.daemon;
  const handOff = daemon.enabled && io.env.HOOKD_DAEMON !== '0' ? io.handOff : undefined;
  // The same event twice (docs/daemon.md): with a daemon in use, an event with commands asks it first
  // whether a call of the same event runs already; a copy answers what that call answers.
  let turn: OnceTurn | undefined;
  if (handOff && edges.claimOnce && plan.commands.length > 0 && !spilled)
    turn = await takeTurn(
      event,
      request,
      plan.commands,
      { config: loaded.config, budgetMs: eventBudgetMs(event, loaded.config) },
      { claimOnce: edges.claimOnce, logger: io.logger },
    );
  if (turn?.role === 'copy') {
    report.reply = turn.answer;
    report.copy = true;
  } else {
    // No command: nothing to run, log or decide (the agent gets the silent answer).
    if (plan.commands.length > 0) {
      const done = await runPlanned(event, plan.commands, loaded.config, {
        env: io.env,
        logger: io.logger,
        rawStdin: spilled ? { file: spilled.path } : raw,
        fallbackCwd: request.cwd,
        umask: request.umask,
        spawn: edges.spawn,
        signal: edges.signal,
      });
      report.ran = done.ran;
      report.reply = done.reply;
    }
    // Remote answers (docs/remote.md): a PermissionRequest no guard decided may be answered from elsewhere.
    // Checked here so that every other event leaves dist/remote.cjs unread.
    if (event.name === 'PermissionRequest' && loaded.config.remote?.enabled && edges.askRemote)
      report.reply = await askRemotely(event, loaded.config, report.reply, {
        env: io.env,
        logger: io.logger,
        askRemote: edges.askRemote,
        elapsedMs: monotonicMs() - started,
      });
    // A config file whose commands do not run (a project file whose trust lapsed, an invalid file with no
    // valid version to stand in), said once per session on the agent's stderr, which the agent shows the
    // user. Only with exit 0: never in a block reason the model reads. Not for an event that
    // came over http: its answer reaches no one, the next event of the session says it.
    if (news && report.reply.exitCode === 0) {
      const lapse = claimConfigWarnings(io.env, loaded, event.sessionId);
      if (lapse) report.reply = { ...report.reply, stderr: report.reply.stderr + lapse };
    }
  }
  // The copies wait for this answer: it goes to the daemon beside the hand-off, done before this returns.
  const settled = turn?.role === 'lead' ? turn.settle(report.reply).catch(() => undefined) : undefined;
  edges.onReply?.(report.reply);

  if (handOff && !report.copy) {
    const bounded = fitsAsIs(event.payload) ? event : { ...event, payload: boundedPayload(event.payload) };
    const message: EventHandoff = { v: 1, type: 'event', event: bounded, results: report.ran.map(toOutcome) };
    const notices = news ? claimConfigNotices(io.env, loaded) : [];
    if (notices.length > 0) message.notices = notices;
    try {
      report.handoff = await handOff(message, {
        env: io.env,
        autoStart: daemon.autoStart,
        timeoutMs: daemon.handoffTimeoutMs,
        fsync: daemon.fsync,
        ...(io.daemonArgv ? { daemonArgv: io.daemonArgv } : {}),
      });
    } catch (error) {
      report.handoff = { outcome: 'failed', error: (error as Error).message };
    }
  }

  await settled;
  const reply = finish();
  io.logger.log(
    report.handoff?.outcome === 'failed' ? 'warn' : 'info',
    {
      kind: 'event',
      event: event.name,
      eventId: event.id,
      sessionId: event.sessionId,
      agent: event.agent,
      cwd: event.cwd,
      tool: typeof event.payload.tool_name === 'string' ? event.payload.tool_name : undefined,
      bytes: spilled?.size ?? raw.length,
      commands: report.ran.length,
      failed: report.ran.filter((r) => failed(r.result, r.planned.spec.blocking)).length,
      notRun: report.ran.filter((r) => r.planned.spec.blocking && notRunReason(r) !== undefined).length,
      decidedBy: report.reply.decidedBy,
      exitCode: report.reply.exitCode,
      handoff: report.handoff?.outcome,
      copy: report.copy,
      handoffError: report.handoff?.error,
      durationMs: report.durationMs,
    },
    `${event.name}: ${report.ran.length} command(s)${report.reply.decidedBy ? `, decision by ${report.reply.decidedBy}` : ''}`,
  );
  return reply;
}
