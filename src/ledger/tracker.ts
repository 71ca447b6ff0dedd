import { join } from 'node:path';
import { readRegularFile, writePrivateFileAtomic } from '../util/private-fs.js';
import type { Enrichment } from '../enrich/types.js';
import { isCompactionFork, isHumanPrompt } from '../events/claude-facts.js';
import { AGENT_KINDS, type AgentKind, type EventHandoff, type HookEvent } from '../events/types.js';
import { buildSessionRecord } from './build-record.js';
import type { Ledger } from './ledger.js';
import type { AgentUsage } from './agent-usage.js';
import { classifyOutcome, newTrackedSession, type TrackedSession } from './tracked-session.js';
import type { SessionRecord } from './types.js';
import { addCount } from '../util/own.js';
import { str } from '../util/json-values.js';

/** The tracker's open sessions, as saved to disk and restored after a daemon restart. */
export interface TrackerSnapshot {
  v: 1;
  sessions: TrackedSession[];
}

export interface CreateSessionTrackerOptions {
  ledger: Pick<Ledger, 'record'>;
  /** Enrichment of the end event (title, model, tokens...); the record is written without it if absent or failing. */
  enrich?: (event: HookEvent) => Promise<Enrichment>;
  /** A session with no event for this long (and no SessionEnd) is recorded by sweepIdle as "idle-timeout". */
  idleCloseMs: number;
  now?: () => number;
  /** Called after a record was written (not for duplicates), e.g. to tag the session on the platform. */
  onRecorded?: (record: SessionRecord, enrichment: Enrichment | undefined) => Promise<void> | void;
  warn?: (message: string) => void;
  /** Where open sessions are saved (debounced after each event, and by flush()); off when absent. */
  statePath?: string;
  /** Delay of the debounced save (default 1000 ms). */
  persistDelayMs?: number;
  /** The agent's own usage of a session (its telemetry), written into the record when there is some. */
  agentUsage?: (sessionId: string) => AgentUsage | undefined;
}

export interface SessionTracker {
  /** Count one event with its command outcomes; on SessionEnd, write the session's record. Never throws. */
  onEvent(handoff: EventHandoff): Promise<void>;
  /** Record sessions idle longer than idleCloseMs (reason "idle-timeout") and retry failed writes; returns how many were recorded. */
  sweepIdle(): Promise<number>;
  /** The open sessions, for saving. */
  snapshot(): TrackerSnapshot;
  /** Put saved sessions back (merged with any seen since). */
  restore(snapshot: TrackerSnapshot): void;
  /** Save the open sessions to statePath now. */
  flush(): Promise<void>;
  /** Stop the save timer and save. */
  close(): Promise<void>;
  /** Number of open sessions. */
  readonly size: number;
}

/** Where the daemon saves open sessions: `<dataDir>/ledger/open-sessions.json`. */
export function trackerStatePath(dataDir: string): string {
  return join(dataDir, 'ledger', 'open-sessions.json');
}

/** A snapshot larger than this is not read (each open session takes a few hundred bytes). */
const MAX_SNAPSHOT_BYTES = 64 * 1024 * 1024;

/** Read a saved snapshot; a missing or unreadable file (or not a regular file, or too big) is an empty one. */
export async function loadTrackerSnapshot(path: string): Promise<TrackerSnapshot> {
  try {
    const text = readRegularFile(path, MAX_SNAPSHOT_BYTES, { noFollow: true }).toString('utf8');
    const value = JSON.parse(text) as Partial<TrackerSnapshot>;
    if (value?.v === 1 && Array.isArray(value.sessions)) {
      return { v: 1, sessions: value.sessions.filter((s) => typeof s?.sessionId === 'string') };
    }
  } catch {}
  return { v: 1, sessions: [] };
}

/** Save a snapshot atomically (a private temp file, then rename). */
export async function saveTrackerSnapshot(path: string, snapshot: TrackerSnapshot): Promise<void> {
  writePrivateFileAtomic(path, JSON.stringify(snapshot));
}

/**
 * Follow sessions through their events and write each one's ledger record exactly once: at its
 * SessionEnd, or when sweepIdle finds it idle. Counts hook command failures and timeouts, tool calls and
 * sub-agents per session. Event times are the events' own `receivedAt`, so events replayed from the
 * spool after downtime count as when they happened.
 */
export function createSessionTracker(opts: CreateSessionTrackerOptions): SessionTracker {
  const now = opts.now ?? Date.now;
  const warn = opts.warn ?? (() => undefined);
  const sessions = new Map<string, TrackedSession>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let saving: Promise<void> = Promise.resolve();

  function tracked(id: string, event: HookEvent): TrackedSession {
    let session = sessions.get(id);
    if (!session) sessions.set(id, (session = newTrackedSession(id, event.agent, event.receivedAt)));
    return session;
  }

  function scheduleSave() {
    if (!opts.statePath || timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      void flush();
    }, opts.persistDelayMs ?? 1000);
    timer.unref?.();
  }

  function flush(): Promise<void> {
    const path = opts.statePath;
    if (!path) return Promise.resolve();
    saving = saving
      .then(() => saveTrackerSnapshot(path, snapshot()))
      .catch((error: unknown) =>
        warn(`ledger: could not save open sessions to ${path}: ${(error as Error).message}`),
      );
    return saving;
  }

  function snapshot(): TrackerSnapshot {
    return { v: 1, sessions: [...sessions.values()].map((s) => structuredClone(s)) };
  }

  async function close(session: TrackedSession, endEvent: HookEvent, reason: string): Promise<boolean> {
    let enrichment: Enrichment | undefined;
    if (opts.enrich) {
      try {
        enrichment = await opts.enrich(endEvent);
      } catch (error) {
        warn(`ledger: enrichment of session ${session.sessionId} failed: ${(error as Error).message}`);
      }
    }
    const built = buildSessionRecord(session, endEvent, reason, enrichment, now());
    const usage = opts.agentUsage?.(session.sessionId);
    const record = usage ? { ...built, agentUsage: usage } : built;
    let outcome: 'written' | 'duplicate';
    try {
      outcome = await opts.ledger.record(record);
    } catch (error) {
      session.end = { reason, atMs: endEvent.receivedAt, payload: endEvent.payload };
      warn(
        `ledger: could not write session ${session.sessionId}: ${(error as Error).message}; retried at the next sweep`,
      );
      scheduleSave();
      return false;
    }
    sessions.delete(session.sessionId);
    scheduleSave();
    if (outcome === 'written' && opts.onRecorded) {
      try {
        await opts.onRecorded(record, enrichment);
      } catch (error) {
        warn(`ledger: after recording session ${session.sessionId}: ${(error as Error).message}`);
      }
    }
    return true;
  }

  /** A SessionEnd made up for a session that ended without one (or whose write is retried). */
  function endEventFor(
    session: TrackedSession,
    reason: string,
    atMs: number,
    payload?: Record<string, unknown>,
  ): HookEvent {
    return {
      id: `ledger-${reason}-${session.sessionId}`,
      receivedAt: atMs,
      // Every agent hookd tells apart keeps its name, Cursor's included (recognised without an adapter).
      agent: (AGENT_KINDS as readonly string[]).includes(session.agent)
        ? (session.agent as AgentKind)
        : 'unknown',
      name: 'SessionEnd',
      sessionId: session.sessionId,
      cwd: session.cwd,
      transcriptPath: session.transcriptPath,
      projectDir: session.projectDir,
      payload: payload ?? {
        hook_event_name: 'SessionEnd',
        session_id: session.sessionId,
        cwd: session.cwd,
        transcript_path: session.transcriptPath,
        reason,
      },
    };
  }

  async function onEvent(handoff: EventHandoff): Promise<void> {
    const event = handoff.event;
    const p = event.payload;
    const id = event.sessionId ?? str(p.session_id);
    if (!id) return;
    const session = tracked(id, event);
    session.eventCount++;
    session.lastSeenMs = Math.max(session.lastSeenMs, event.receivedAt);
    session.firstSeenMs = Math.min(session.firstSeenMs, event.receivedAt);
    session.cwd = event.cwd ?? str(p.cwd) ?? session.cwd;
    session.projectDir = event.projectDir ?? session.projectDir;
    session.transcriptPath = event.transcriptPath ?? str(p.transcript_path) ?? session.transcriptPath;
    for (const outcome of handoff.results ?? []) {
      const kind = classifyOutcome(outcome);
      if (kind === 'timeout') session.hookTimeouts++;
      else if (kind === 'failure') session.hookFailures++;
    }
    switch (event.name) {
      case 'SessionStart': {
        if (str(p.source) === 'startup' || session.startedAtMs === undefined) {
          session.startedAtMs = Math.min(session.startedAtMs ?? Infinity, event.receivedAt);
        }
        const calling = str(p.calling_session_id);
        if (calling && calling !== id) {
          session.parentId = calling;
          session.isSubagent = true;
          const parent = tracked(calling, event);
          if (!parent.childIds.includes(id)) parent.childIds.push(id);
        }
        break;
      }
      case 'PreToolUse': {
        const tool = str(p.tool_name);
        if (tool) addCount(session.toolCalls, tool);
        break;
      }
      case 'SubagentStop':
        if (!isCompactionFork(event)) session.subagentStops++;
        break;
      case 'UserPromptSubmit':
        if (isHumanPrompt(event)) session.prompts = (session.prompts ?? 0) + 1;
        break;
      case 'SessionEnd':
        await close(session, event, str(p.reason) ?? 'other');
        return;
    }
    scheduleSave();
  }

  async function sweepIdle(): Promise<number> {
    const cutoff = now() - opts.idleCloseMs;
    let recorded = 0;
    for (const session of [...sessions.values()]) {
      if (session.end) {
        const { reason, atMs, payload } = session.end;
        if (await close(session, endEventFor(session, reason, atMs, payload), reason)) recorded++;
      } else if (session.lastSeenMs < cutoff) {
        if (await close(session, endEventFor(session, 'idle-timeout', session.lastSeenMs), 'idle-timeout'))
          recorded++;
      }
    }
    return recorded;
  }

  return {
    onEvent,
    sweepIdle,
    snapshot,
    restore(saved) {
      for (const s of saved.sessions) {
        const current = sessions.get(s.sessionId);
        if (!current) {
          sessions.set(s.sessionId, structuredClone(s));
          continue;
        }
        // Events seen since the restart add to what was saved before it.
        current.firstSeenMs = Math.min(current.firstSeenMs, s.firstSeenMs);
        current.startedAtMs = s.startedAtMs ?? current.startedAtMs;
        current.eventCount += s.eventCount;
        current.hookFailures += s.hookFailures;
        current.hookTimeouts += s.hookTimeouts;
        current.subagentStops += s.subagentStops;
        current.prompts = (current.prompts ?? 0) + (s.prompts ?? 0);
        current.childIds = [...new Set([...s.childIds, ...current.childIds])];
        for (const [tool, n] of Object.entries(s.toolCalls)) addCount(current.toolCalls, tool, n);
        current.parentId ??= s.parentId;
        current.isSubagent ||= s.isSubagent;
      }
    },
    flush,
    async close() {
      if (timer) clearTimeout(timer);
      timer = undefined;
      await flush();
    },
    get size() {
      return sessions.size;
    },
  };
}
