import { isUtf8 } from 'node:buffer';
import { newEventId } from '../util/event-id.js';
import type { AgentKind, HookEvent, HookPayload } from './types.js';
import { str } from '../util/json-values.js';
import type { ScanOptions, ScanResult } from './json-scan.js';
import { AGENT_IDS, isAgentId, RECOGNISED_AGENTS, type AgentId } from '../agents/ids.js';
import { DETECTS, PROJECT_DIR_ENV, SESSION_ID_FIELDS } from '../agents/protocols.js';
import { eventName, ownDialect } from '../agents/hook-rules.js';
import type { DetectSignal } from '../agents/types.js';

export type ParseFailure = 'empty' | 'binary' | 'not-json' | 'not-object' | 'too-deep';
export type ParseResult =
  | {
      ok: true;
      event: HookEvent;
      /** Values nested deeper than MAX_EVENT_DEPTH were replaced by TOO_DEEP_MARKER in `event.payload`. */
      tooDeep?: true;
    }
  | { ok: false; reason: ParseFailure; detail: string };

type Env = Record<string, string | undefined>;

/** The signals of every agent, in the order they are tried (src/agents/: each agent's `detect`). */
const SIGNALS = [...AGENT_IDS, ...RECOGNISED_AGENTS]
  .flatMap((agent) => DETECTS[agent].map((signal) => ({ agent: agent as AgentKind, signal })))
  .sort((a, b) => a.signal.rank - b.signal.rank);

function holds(signal: DetectSignal, payload: HookPayload, env: Env): boolean {
  const sessionId = str(payload.session_id);
  const transcript = payload.transcript_path;
  return (
    (signal.sessionEnv !== undefined && sessionId !== undefined && env[signal.sessionEnv] === sessionId) ||
    (signal.env ?? []).some((name) => Boolean(env[name])) ||
    (signal.fields ?? []).some((field) => field in payload) ||
    (signal.transcriptMarker !== undefined &&
      typeof transcript === 'string' &&
      transcript.includes(signal.transcriptMarker) &&
      (signal.transcriptPattern === undefined || signal.transcriptPattern.test(transcript)))
  );
}

/**
 * Which agent sent the event, guessed for a command that does not say (`hookd hook` without --agent,
 * as written by older installs): the first signal that holds, in rank order across the agents. Claude
 * Code sets CLAUDE_CODE_SESSION_ID to the payload's session_id, which an enclosing session's environment
 * cannot fake; Gemini CLI does the same with GEMINI_SESSION_ID; Codex sets nothing, but its transcript is
 * a rollout file of its own. Then Droid sets FACTORY_PROJECT_DIR, Claude Code only CLAUDE_PROJECT_DIR.
 */
export function detectAgent(payload: HookPayload, env: Env): AgentKind {
  return SIGNALS.find(({ signal }) => holds(signal, payload, env))?.agent ?? 'unknown';
}

/**
 * Signals ranked up to here prove the sender from the event itself (a session id only the agent sets,
 * its own transcript path): an enclosing session's environment cannot fake them. Later ones (a project
 * variable another agent also sets, a field several agents send) only guess.
 */
const PROOF_RANK = 2;

function proves(signal: DetectSignal): boolean {
  return signal.rank <= PROOF_RANK && signal.env === undefined;
}

/**
 * The agent that sent the event. The command's `--agent` names the agent whose settings the entry is
 * in, but another agent may run that entry (Cursor runs Claude Code's hooks): the
 * first signal that proves another agent wins over the name, unless the named agent's own signs rank
 * before it. Variables alone never overrule the name: an enclosing session passes its own through.
 */
export function agentOf(payload: HookPayload, env: Env, declared?: DeclaredAgent): AgentKind {
  if (declared === undefined) return detectAgent(payload, env);
  const first = SIGNALS.find(({ signal }) => proves(signal) && holds(signal, payload, env));
  if (first === undefined || first.agent === declared) return declared;
  const ownFirst = SIGNALS.some(
    ({ agent, signal }) =>
      agent === declared && signal.rank < first.signal.rank && holds(signal, payload, env),
  );
  return ownFirst ? declared : first.agent;
}

/** The agents a hook command can name. */
export type DeclaredAgent = AgentId;

export function isDeclaredAgent(value: unknown): value is DeclaredAgent {
  return isAgentId(value);
}

/**
 * The project the session started in, from the variables of the agent that sent the event (its
 * `projectDirEnv`, in order), else the cwd: Claude Code's CLAUDE_PROJECT_DIR stays fixed while the
 * payload's cwd follows `cd`; an enclosing Droid session's FACTORY_PROJECT_DIR (its environment passes
 * through) is not this session's project.
 */
export function projectDirOf(agent: AgentKind, env: Env, cwd: string | undefined): string | undefined {
  for (const name of PROJECT_DIR_ENV[agent]) {
    const dir = str(env[name]);
    if (dir) return dir;
  }
  return cwd;
}

/**
 * How deep hookd keeps an event for its own use. Real payloads stay under 20 levels (a Claude Code
 * PostToolBatch is the deepest seen); everything that walks an event after parsing (JSON.stringify for
 * the hand-off, the redactor, the daemon's validation) recurses, so deeper values are replaced by a
 * marker once parsed (JSON.parse itself does not recurse). Commands still get the whole bytes on stdin:
 * a guard runs on a 100,000-deep tool input like on any other.
 */
export const MAX_EVENT_DEPTH = 128;

/** What a value nested deeper than MAX_EVENT_DEPTH becomes in hookd's copy of the event. */
export const TOO_DEEP_MARKER = `[nested deeper than ${MAX_EVENT_DEPTH} levels]`;

/**
 * The longest string hookd keeps whole in its own copy of an event too large to hold (a Write of a large
 * file): longer ones are cut with a marker. Above what a command's environment takes (128 KiB), so a cut
 * value is never exported; commands get the whole bytes on stdin.
 */
export const SCANNED_STRING_MAX = 1024 * 1024;

/** How an event too large to hold is scanned into hookd's copy: at most `budget` bytes of it. */
export function eventScanOptions(budget: number): ScanOptions {
  return {
    build: true,
    maxString: SCANNED_STRING_MAX,
    budget,
    maxDepth: MAX_EVENT_DEPTH,
    tooDeepMarker: TOO_DEEP_MARKER,
  };
}

/** Replaces every object or array below `max` levels by the marker, without recursion. */
function clampDepth(root: object, max: number): void {
  const stack: Array<[Record<string, unknown>, number]> = [[root as Record<string, unknown>, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    for (const key of Object.keys(node)) {
      const value = node[key];
      if (value === null || typeof value !== 'object') continue;
      if (depth >= max) node[key] = TOO_DEEP_MARKER;
      else stack.push([value as Record<string, unknown>, depth + 1]);
    }
  }
}

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** True when the JSON text nests objects and arrays deeper than `max` (one pass, no recursion). */
export function nestsDeeperThan(bytes: Buffer, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (inString) {
      if (b === BACKSLASH) i++;
      else if (b === QUOTE) inString = false;
    } else if (b === QUOTE) inString = true;
    else if (b === OPEN_BRACE || b === OPEN_BRACKET) {
      if (++depth > max) return true;
    } else if (b === CLOSE_BRACE || b === CLOSE_BRACKET) depth--;
  }
  return false;
}

/** True when the bytes are not text: a NUL byte or invalid UTF-8. */
function looksBinary(bytes: Buffer): boolean {
  return bytes.includes(0) || !isUtf8(bytes);
}

/** The bytes after a UTF-8 byte order mark (EF BB BF), which some writers put before JSON. */
export function withoutBom(bytes: Buffer): Buffer {
  return bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? bytes.subarray(3) : bytes;
}

type Clock = { now(): number; id(): string };
const DEFAULT_CLOCK: Clock = { now: Date.now, id: newEventId };

/**
 * hookd's name for the event: the payload's `hook_event_name`; Gemini's events by their Claude Code
 * counterparts (BeforeTool is PreToolUse), Cursor's likewise (src/agents/agent-rules.ts), so one config
 * serves every agent.
 */
export function canonicalEventName(agent: AgentKind, name: string): string {
  return eventName(agent, name);
}

function nameOf(agent: AgentKind, name: string | undefined): string {
  return name === undefined ? 'Unknown' : canonicalEventName(agent, name);
}

/** The event hookd makes of a payload object: its name, ids, agent and project dir. */
function eventOf(
  payload: HookPayload,
  env: Env,
  clock: Clock,
  declaredAgent?: DeclaredAgent,
  agentGiven?: boolean,
): HookEvent {
  const cwd = str(payload.cwd);
  const agent = agentGiven && declaredAgent ? declaredAgent : agentOf(payload, env, declaredAgent);
  // Copilot's own dialect: Claude Code's fields added to hookd's copy, the event told by its fields.
  const own = ownDialect(agent, payload);
  const event: HookEvent = {
    id: clock.id(),
    receivedAt: clock.now(),
    agent,
    name: nameOf(agent, str(payload.hook_event_name) ?? own),
    payload,
  };
  const sessionField = SESSION_ID_FIELDS[agent];
  const sessionId = str(payload.session_id) ?? (sessionField ? str(payload[sessionField]) : undefined);
  if (sessionId) event.sessionId = sessionId;
  if (cwd) event.cwd = cwd;
  const transcriptPath = str(payload.transcript_path);
  if (transcriptPath) event.transcriptPath = transcriptPath;
  const projectDir = projectDirOf(agent, env, cwd);
  if (projectDir) event.projectDir = projectDir;
  return event;
}

/** Why a value that JSON.parse returned is not an event object, or undefined when it is one. */
function notAnObject(value: unknown): string | undefined {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) return undefined;
  const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
  return `stdin is JSON but ${kind}, not an event object`;
}

/** What an empty stdin parses to (nothing but white space is empty too). */
const EMPTY_STDIN: ParseResult = {
  ok: false,
  reason: 'empty',
  detail: 'stdin was empty; the agent sends the event as JSON on stdin',
};

/**
 * Parses one agent payload leniently: any JSON object is an event; unknown events and fields pass
 * through untouched. Only input that is not a JSON object at all is rejected.
 */
export function parseEvent(
  raw: Buffer | string,
  env: Env = process.env,
  clock: Clock = DEFAULT_CLOCK,
  /** The agent named by the command (`hookd hook --agent claude`); guessed when absent. */
  declaredAgent?: DeclaredAgent,
  /** The named agent is the sender, whatever the event says (`hookd emit`, `hookd explain`). */
  agentGiven?: boolean,
): ParseResult {
  const bytes = withoutBom(typeof raw === 'string' ? Buffer.from(raw) : raw);
  if (bytes.length === 0 || bytes.toString('utf8').trim() === '') {
    return EMPTY_STDIN;
  }
  if (looksBinary(bytes)) {
    return { ok: false, reason: 'binary', detail: `stdin is not UTF-8 text (${bytes.length} bytes)` };
  }
  const tooDeep = nestsDeeperThan(bytes, MAX_EVENT_DEPTH);
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    return { ok: false, reason: 'not-json', detail: `stdin is not JSON: ${(error as Error).message}` };
  }
  const notObject = notAnObject(value);
  if (notObject) return { ok: false, reason: 'not-object', detail: notObject };
  if (tooDeep) clampDepth(value as object, MAX_EVENT_DEPTH);
  const event = eventOf(value as HookPayload, env, clock, declaredAgent, agentGiven);
  return tooDeep ? { ok: true, event, tooDeep } : { ok: true, event };
}

/**
 * The event of a stdin too large to hold whole, from the scan that read it (src/events/json-scan.ts,
 * with `build`): hookd's own copy is the scan's bounded copy (long strings cut with a marker); its
 * commands get the whole bytes on stdin.
 */
export function parseScanned(
  scan: ScanResult,
  bytes: number,
  env: Env = process.env,
  clock: Clock = DEFAULT_CLOCK,
  declaredAgent?: DeclaredAgent,
  agentGiven?: boolean,
): ParseResult {
  if (scan.root === 'none' && scan.state !== 'invalid') return EMPTY_STDIN;
  if (scan.state !== 'complete') {
    const why = scan.state === 'invalid' ? scan.error : `it ends inside the JSON value (${bytes} bytes)`;
    return { ok: false, reason: 'not-json', detail: `stdin is not JSON: ${why}` };
  }
  const notObject = notAnObject(scan.value);
  if (notObject) return { ok: false, reason: 'not-object', detail: notObject };
  const event = eventOf(scan.value as HookPayload, env, clock, declaredAgent, agentGiven);
  return scan.tooDeep ? { ok: true, event, tooDeep: true } : { ok: true, event };
}
