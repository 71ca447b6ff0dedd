import { isPermissionAsk, permissionTool } from '../events/claude-facts.js';
import type { HookEvent } from '../events/types.js';

/** What the daemon remembers between events to keep notifications quiet: all bounded, all in memory. */
export interface NoiseState {
  /** Dedupe key -> when it was last sent. */
  sent: Map<string, number>;
  /** `${rule}\u0000${session}` -> when the rule last fired for the session. */
  cooldowns: Map<string, number>;
  /** Sessions whose idle prompt was notified; cleared by any other event of the session. */
  idleNotified: Set<string>;
  /** Sessions seen: when they started, and their parent when they are sub-agents. */
  sessions: Map<string, { startedAt?: number; parent?: string }>;
  /**
   * Permission asks notified and not yet answered: session -> rule -> the tool and when. Claude fires
   * PermissionRequest first and, if nobody answered within about 6 s, a Notification permission_prompt
   * for the same request: a rule that notified the first stays silent for the second.
   */
  permissionAsks: Map<string, Map<string, { tool?: string; at: number }>>;
}

const MAX_ENTRIES = 10_000;

export function createNoiseState(): NoiseState {
  return {
    sent: new Map(),
    cooldowns: new Map(),
    idleNotified: new Set(),
    sessions: new Map(),
    permissionAsks: new Map(),
  };
}

function cap<K, V>(map: Map<K, V>): void {
  while (map.size > MAX_ENTRIES) map.delete(map.keys().next().value as K);
}

export function isIdlePrompt(event: HookEvent): boolean {
  return event.name === 'Notification' && event.payload.notification_type === 'idle_prompt';
}

/** Events after which a session's notified permission asks are answered (for that tool, or all). */
const ANSWERED_BY_TOOL = new Set(['PreToolUse', 'PostToolUse', 'PostToolUseFailure', 'PermissionDenied']);
const ANSWERED_ALL = new Set(['UserPromptSubmit', 'Stop', 'StopFailure', 'SessionEnd']);

/** Within this long after a notified PermissionRequest, its permission_prompt Notification is a duplicate. */
export const PERMISSION_ASK_TTL_MS = 10 * 60_000;

function forgetAnswered(state: NoiseState, event: HookEvent, sid: string): void {
  const asks = state.permissionAsks.get(sid);
  if (!asks) return;
  if (ANSWERED_ALL.has(event.name)) {
    state.permissionAsks.delete(sid);
    return;
  }
  if (!ANSWERED_BY_TOOL.has(event.name)) return;
  const tool = event.payload.tool_name;
  for (const [rule, ask] of asks) if (ask.tool === undefined || ask.tool === tool) asks.delete(rule);
  if (asks.size === 0) state.permissionAsks.delete(sid);
}

/**
 * The earlier notification a permission_prompt Notification repeats, for one rule: a PermissionRequest
 * of the same session (and tool, when the message names one) that the rule notified and that is not
 * answered yet. Undefined when there is none.
 */
export function notifiedPermissionAsk(
  state: NoiseState,
  event: HookEvent,
  rule: string,
  now: number,
): { tool?: string; at: number } | undefined {
  if (event.name !== 'Notification' || !isPermissionAsk(event) || !event.sessionId) return undefined;
  const ask = state.permissionAsks.get(event.sessionId)?.get(rule);
  if (!ask || now - ask.at > PERMISSION_ASK_TTL_MS) return undefined;
  const tool = permissionTool(event);
  return tool === undefined || ask.tool === undefined || tool === ask.tool ? ask : undefined;
}

/** Updates session facts and activity from an event; call before the rules are evaluated for it. */
export function observeEvent(state: NoiseState, event: HookEvent, now: number): void {
  const sid = event.sessionId;
  if (!sid) return;
  if (!isIdlePrompt(event)) state.idleNotified.delete(sid);
  forgetAnswered(state, event, sid);
  if (event.name === 'SessionStart') {
    const parent = event.payload.calling_session_id;
    const known = state.sessions.get(sid);
    state.sessions.delete(sid);
    state.sessions.set(sid, {
      startedAt:
        known?.startedAt ?? (event.payload.source === 'startup' ? event.receivedAt || now : undefined),
      ...(typeof parent === 'string' && parent ? { parent } : known?.parent ? { parent: known.parent } : {}),
    });
    cap(state.sessions);
  } else if (event.name === 'SessionEnd') {
    state.sessions.delete(sid);
    state.idleNotified.delete(sid);
    state.permissionAsks.delete(sid);
  }
}

/** A notification that fired, as the noise memory remembers it. */
export interface SentNote {
  dedupeKey: string;
  cooldownKey?: string;
  idle: boolean;
  sessionId?: string;
  /** Set when the notification was for a PermissionRequest: its rule and tool. */
  permissionAsk?: { rule: string; tool?: string };
}

/** Records what was sent, for later dedupe, cooldown and idle-repeat decisions. */
export function recordSent(state: NoiseState, sent: readonly SentNote[], now: number): void {
  for (const item of sent) {
    if (item.permissionAsk && item.sessionId) {
      const asks =
        state.permissionAsks.get(item.sessionId) ?? new Map<string, { tool?: string; at: number }>();
      const { rule, tool } = item.permissionAsk;
      asks.set(rule, { ...(tool !== undefined ? { tool } : {}), at: now });
      state.permissionAsks.delete(item.sessionId);
      state.permissionAsks.set(item.sessionId, asks);
    }
    state.sent.delete(item.dedupeKey);
    state.sent.set(item.dedupeKey, now);
    if (item.cooldownKey) {
      state.cooldowns.delete(item.cooldownKey);
      state.cooldowns.set(item.cooldownKey, now);
    }
    if (item.idle && item.sessionId) state.idleNotified.add(item.sessionId);
  }
  cap(state.sent);
  cap(state.cooldowns);
  cap(state.permissionAsks);
}

/** How long dedupe and cooldown entries are worth keeping: the longest window in force (at least 1 min). */
export function noiseRetentionMs(noise: { dedupeWindowMs: number; cooldownMs: number }): number {
  return Math.max(noise.dedupeWindowMs, noise.cooldownMs, 60_000);
}

/** Forgets dedupe and cooldown entries older than maxAgeMs. */
export function pruneNoise(state: NoiseState, now: number, maxAgeMs: number): void {
  for (const map of [state.sent, state.cooldowns]) {
    for (const [key, at] of map) {
      if (now - at <= maxAgeMs) break;
      map.delete(key);
    }
  }
}

/** The noise state as JSON (for the `noise` protocol request that `hookd explain` makes). */
export interface SerializedNoise {
  sent: [string, number][];
  cooldowns: [string, number][];
  idleNotified: string[];
  sessions: [string, { startedAt?: number; parent?: string }][];
  permissionAsks?: [string, [string, { tool?: string; at: number }][]][];
}

export function serializeNoise(state: NoiseState): SerializedNoise {
  return {
    sent: [...state.sent],
    cooldowns: [...state.cooldowns],
    idleNotified: [...state.idleNotified],
    sessions: [...state.sessions],
    permissionAsks: [...state.permissionAsks].map(([sid, asks]) => [sid, [...asks]]),
  };
}

/** Rebuilds a noise state from its JSON form; anything malformed gives an empty part, never a throw. */
export function deserializeNoise(value: unknown): NoiseState {
  const state = createNoiseState();
  const v = (value ?? {}) as Partial<Record<keyof SerializedNoise, unknown>>;
  const pairs = (x: unknown) =>
    Array.isArray(x) ? x.filter((p) => Array.isArray(p) && typeof p[0] === 'string') : [];
  for (const [k, at] of pairs(v.sent)) if (typeof at === 'number') state.sent.set(k, at);
  for (const [k, at] of pairs(v.cooldowns)) if (typeof at === 'number') state.cooldowns.set(k, at);
  if (Array.isArray(v.idleNotified))
    for (const s of v.idleNotified) if (typeof s === 'string') state.idleNotified.add(s);
  for (const [k, facts] of pairs(v.sessions))
    if (facts && typeof facts === 'object') state.sessions.set(k, facts);
  for (const [sid, asks] of pairs(v.permissionAsks)) {
    const map = new Map<string, { tool?: string; at: number }>();
    for (const [rule, ask] of pairs(asks))
      if (ask && typeof ask === 'object' && typeof ask.at === 'number')
        map.set(rule, { ...(typeof ask.tool === 'string' ? { tool: ask.tool } : {}), at: ask.at });
    if (map.size > 0) state.permissionAsks.set(sid, map);
  }
  return state;
}

/**
 * Held notifications cancelled before they were sent: the same ask later is no duplicate, and no
 * cooldown runs for them.
 */
export function forgetUnsent(
  state: NoiseState,
  cancelled: readonly { waiting?: { dedupeKey?: string; cooldownKey?: string } }[],
): void {
  for (const d of cancelled) {
    if (d.waiting?.dedupeKey) state.sent.delete(d.waiting.dedupeKey);
    if (d.waiting?.cooldownKey) state.cooldowns.delete(d.waiting.cooldownKey);
  }
}
