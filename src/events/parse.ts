import { isUtf8 } from 'node:buffer';
import { newEventId } from '../util/fast.js';
import type { AgentKind, HookEvent, HookPayload } from './types.js';

export type ParseFailure = 'empty' | 'binary' | 'not-json' | 'not-object';
export type ParseResult =
  { ok: true; event: HookEvent } | { ok: false; reason: ParseFailure; detail: string };

type Env = Record<string, string | undefined>;

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Which agent sent the event: Droid sets FACTORY_PROJECT_DIR, Claude Code only CLAUDE_PROJECT_DIR. */
export function detectAgent(payload: HookPayload, env: Env): AgentKind {
  if (env.FACTORY_PROJECT_DIR || env.DROID_PROJECT_DIR) return 'droid';
  if (typeof payload.transcript_path === 'string' && payload.transcript_path.includes('/.factory/'))
    return 'droid';
  if (env.CLAUDE_PROJECT_DIR || 'tool_use_id' in payload || 'last_assistant_message' in payload)
    return 'claude';
  if (typeof payload.transcript_path === 'string' && payload.transcript_path.includes('/.claude/'))
    return 'claude';
  return 'unknown';
}

/** True when the bytes are not text: a NUL byte or invalid UTF-8. */
function looksBinary(bytes: Buffer): boolean {
  return bytes.includes(0) || !isUtf8(bytes);
}

/**
 * Parses one agent payload leniently: any JSON object is an event; unknown events and fields pass
 * through untouched. Only input that is not a JSON object at all is rejected.
 */
export function parseEvent(
  raw: Buffer | string,
  env: Env = process.env,
  clock: { now(): number; id(): string } = { now: Date.now, id: newEventId },
): ParseResult {
  const bytes = typeof raw === 'string' ? Buffer.from(raw) : raw;
  if (bytes.length === 0 || bytes.toString('utf8').trim() === '') {
    return {
      ok: false,
      reason: 'empty',
      detail: 'stdin was empty; the agent sends the event as JSON on stdin',
    };
  }
  if (looksBinary(bytes)) {
    return { ok: false, reason: 'binary', detail: `stdin is not UTF-8 text (${bytes.length} bytes)` };
  }
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    return { ok: false, reason: 'not-json', detail: `stdin is not JSON: ${(error as Error).message}` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
    return { ok: false, reason: 'not-object', detail: `stdin is JSON but ${kind}, not an event object` };
  }
  const payload = value as HookPayload;
  const cwd = str(payload.cwd);
  const projectDir =
    str(env.FACTORY_PROJECT_DIR) ?? str(env.DROID_PROJECT_DIR) ?? str(env.CLAUDE_PROJECT_DIR) ?? cwd;
  const event: HookEvent = {
    id: clock.id(),
    receivedAt: clock.now(),
    agent: detectAgent(payload, env),
    name: str(payload.hook_event_name) ?? 'Unknown',
    payload,
  };
  const sessionId = str(payload.session_id);
  if (sessionId) event.sessionId = sessionId;
  if (cwd) event.cwd = cwd;
  const transcriptPath = str(payload.transcript_path);
  if (transcriptPath) event.transcriptPath = transcriptPath;
  if (projectDir) event.projectDir = projectDir;
  return { ok: true, event };
}
