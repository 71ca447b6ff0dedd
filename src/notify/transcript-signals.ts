import { isObject, str } from '../util/json-values.js';

/**
 * What a line of an agent's transcript says about its turn when no hook says it (docs/sessions.md,
 * "Transcript watching"). Pure: one line in, a signal or nothing out.
 *
 * - Droid 0.225.2 ends every turn with `{"type":"agent_turn_outcome","turnId","reason"}`: `cancelled`
 *   (Esc, `droid.interrupt_session`) and `process_exit` are interrupts; `completed`, `spec_handoff` and
 *   `permission_rejected` (you answered "no") end the turn; any other reason (`error`, `model_*`,
 *   `structured_output_*`) is a failed turn.
 * - Claude Code 2.1.330 writes a user line `[Request interrupted by user]` (or `... for tool use]`) when Esc
 *   stops it, and ends a turn with an assistant line whose `message.stop_reason` is `end_turn`. Lines of a
 *   sub-agent (`isSidechain`) say nothing about the session's own turn.
 */
export type TranscriptSignal =
  | { kind: 'interrupt'; detail: string }
  | { kind: 'turn-end'; detail: string }
  | { kind: 'turn-failed'; detail: string };

const DROID_INTERRUPT = new Set(['cancelled', 'process_exit']);
const DROID_TURN_END = new Set(['completed', 'spec_handoff', 'permission_rejected']);
const CLAUDE_INTERRUPT = /^\[Request interrupted by user[^\]]*\]$/;

/** Bytes one of the signals' lines must hold: a line without any is not parsed. */
export const SIGNAL_MARKERS: readonly string[] = [
  '"agent_turn_outcome"',
  '[Request interrupted by user',
  '"end_turn"',
];

/** True when the raw line may hold a signal (a cheap test before JSON.parse). */
export function mayHoldSignal(line: Buffer | string): boolean {
  return SIGNAL_MARKERS.some((marker) => line.includes(marker));
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content.trim();
  if (!Array.isArray(content)) return '';
  return content
    .filter((c) => isObject(c) && c.type === 'text' && typeof c.text === 'string')
    .map((c) => (c as { text: string }).text)
    .join('\n')
    .trim();
}

/** The signal one transcript line (without its newline) carries, if any. Never throws. */
export function transcriptSignalOf(raw: string): TranscriptSignal | undefined {
  if (!mayHoldSignal(raw)) return undefined;
  let line: unknown;
  try {
    line = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (!isObject(line)) return undefined;
  if (line.type === 'agent_turn_outcome') {
    const reason = str(line.reason);
    if (!reason) return undefined;
    if (DROID_INTERRUPT.has(reason)) return { kind: 'interrupt', detail: reason };
    if (DROID_TURN_END.has(reason)) return { kind: 'turn-end', detail: reason };
    return { kind: 'turn-failed', detail: reason };
  }
  if (line.isSidechain === true || !isObject(line.message)) return undefined;
  const message = line.message;
  if (line.type === 'user') {
    const text = textOf(message.content);
    return CLAUDE_INTERRUPT.test(text) ? { kind: 'interrupt', detail: text } : undefined;
  }
  if (line.type === 'assistant' && message.stop_reason === 'end_turn')
    return { kind: 'turn-end', detail: 'end_turn' };
  return undefined;
}
