import type { RanCommand } from './run-event.js';

/** What `hookd hook` answers the agent: its stdout, stderr and exit code. */
export interface AgentReply {
  exitCode: 0 | 2;
  stdout: string;
  stderr: string;
  /** The command whose decision reached the agent, if any. */
  decidedBy?: string;
}

/** Events whose stdout the agent reads as context for the model. */
const CONTEXT_EVENTS = new Set(['SessionStart', 'UserPromptSubmit']);

/**
 * Turns command results into the agent reply. Only commands marked `blocking` may speak for the agent:
 * their exit code 2 (with stderr) or a JSON object on stdout is passed on, and the first such decision
 * in config order wins. Commands marked `context` add their stdout for SessionStart and
 * UserPromptSubmit. Everything else is logged, never shown to the agent: hookd exits 0.
 */
export function decideReply(eventName: string, ran: readonly RanCommand[]): AgentReply {
  for (const { planned, result } of ran) {
    if (!planned.spec.blocking || result.timedOut || result.spawnError) continue;
    if (result.exitCode === 2) {
      const reason = result.stderr.text().trim() || `blocked by ${planned.name}`;
      return { exitCode: 2, stdout: '', stderr: `${reason}\n`, decidedBy: planned.name };
    }
    if (result.exitCode === 0) {
      const out = result.stdout.text().trim();
      if (out.startsWith('{')) {
        try {
          JSON.parse(out);
          return { exitCode: 0, stdout: `${out}\n`, stderr: '', decidedBy: planned.name };
        } catch {}
      }
    }
  }
  if (CONTEXT_EVENTS.has(eventName)) {
    const parts = ran
      .filter(({ planned, result }) => planned.spec.context && result.exitCode === 0 && !result.timedOut)
      .map(({ result }) => result.stdout.text().trim())
      .filter((text) => text !== '' && !text.startsWith('{'));
    if (parts.length > 0) return { exitCode: 0, stdout: `${parts.join('\n\n')}\n`, stderr: '' };
  }
  return { exitCode: 0, stdout: '', stderr: '' };
}
