import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

interface TranscriptLine {
  text: string;
  id?: string;
  /** Set on the lines the agent writes after a hook ran: which event it was. */
  hookEventName?: string;
}

interface Transcript {
  path: string;
  lines: TranscriptLine[];
  next: number;
}

export interface TranscriptFeeder {
  /**
   * Appends a session's transcript up to the point where the agent ran the hooks of `eventName`: every
   * line before the session's next line recording that hook. The enrichment then reads the transcript as
   * it was when the real event fired (the pending tool of a permission prompt, the final message of a
   * Stop).
   */
  before(sessionId: string, eventName: string): void;
  /** Appends what is left of every transcript. */
  finish(): void;
}

function parseLine(text: string): TranscriptLine {
  try {
    const value = JSON.parse(text) as { id?: unknown; message?: { hookEventName?: unknown } };
    return {
      text,
      ...(typeof value.id === 'string' ? { id: value.id } : {}),
      ...(typeof value.message?.hookEventName === 'string'
        ? { hookEventName: value.message.hookEventName }
        : {}),
    };
  } catch {
    return { text };
  }
}

/**
 * Replays recorded transcripts (`<session id>.jsonl`) line by line as the session's events are played.
 * Lines whose id is in `drop` are never written (their message then has to come from the platform API).
 */
export function createTranscriptFeeder(
  transcripts: { sessionId: string; path: string; text: string }[],
  drop: ReadonlySet<string> = new Set(),
): TranscriptFeeder {
  const byId = new Map<string, Transcript>();
  for (const t of transcripts) {
    const lines = t.text
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map(parseLine)
      .filter((line) => !(line.id && drop.has(line.id)));
    mkdirSync(dirname(t.path), { recursive: true });
    byId.set(t.sessionId, { path: t.path, lines, next: 0 });
  }

  const appendUntil = (t: Transcript, end: number) => {
    if (end <= t.next) return;
    appendFileSync(
      t.path,
      t.lines
        .slice(t.next, end)
        .map((line) => `${line.text}\n`)
        .join(''),
    );
    t.next = end;
  };

  return {
    before(sessionId, eventName) {
      const t = byId.get(sessionId);
      if (!t) return;
      let at = t.next;
      while (at < t.lines.length && t.lines[at]!.hookEventName !== eventName) at++;
      if (at < t.lines.length) appendUntil(t, at);
    },
    finish() {
      for (const t of byId.values()) appendUntil(t, t.lines.length);
    },
  };
}
