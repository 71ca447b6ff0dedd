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
}

const MAX_ENTRIES = 10_000;

export function createNoiseState(): NoiseState {
  return { sent: new Map(), cooldowns: new Map(), idleNotified: new Set(), sessions: new Map() };
}

function cap<K, V>(map: Map<K, V>): void {
  while (map.size > MAX_ENTRIES) map.delete(map.keys().next().value as K);
}

export function isIdlePrompt(event: HookEvent): boolean {
  return event.name === 'Notification' && event.payload.notification_type === 'idle_prompt';
}

/** Updates session facts and activity from an event; call before the rules are evaluated for it. */
export function observeEvent(state: NoiseState, event: HookEvent, now: number): void {
  const sid = event.sessionId;
  if (!sid) return;
  if (!isIdlePrompt(event)) state.idleNotified.delete(sid);
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
  }
}

/** Records what was sent, for later dedupe, cooldown and idle-repeat decisions. */
export function recordSent(
  state: NoiseState,
  sent: readonly { dedupeKey: string; cooldownKey?: string; idle: boolean; sessionId?: string }[],
  now: number,
): void {
  for (const item of sent) {
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
}

export function serializeNoise(state: NoiseState): SerializedNoise {
  return {
    sent: [...state.sent],
    cooldowns: [...state.cooldowns],
    idleNotified: [...state.idleNotified],
    sessions: [...state.sessions],
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
  return state;
}
