import type { AgentKind } from '../events/types.js';
import { agentRefusal, blockAnswer, ownDialectAnswer, replyRules } from '../agents/hook-rules.js';
import type { ConfigLevel } from '../config/merge.js';
import type { RanCommand } from './run-event.js';
import { isObject, type Json } from '../util/json-values.js';

/** What `hookd hook` answers the agent: its stdout, stderr and exit code. */
export interface AgentReply {
  /** 2 blocks (per the event); 1 is Droid's "error with a message" (its stderr reaches the model). */
  exitCode: 0 | 1 | 2;
  stdout: string;
  stderr: string;
  /** The command whose decision reached the agent, if any. */
  decidedBy?: string;
}

/** Whether a command's plain stdout is context: as under the agent for a blocking command, unless set. */
export function passesContext(spec: { blocking: boolean; context?: boolean | undefined }): boolean {
  return spec.context ?? spec.blocking;
}

/** The outcome logged for a guard hookd could not run: never a silent exit 0. */
export const GUARD_NOT_RUN = 'guard not run';

/**
 * Why hookd could not run a command: its own failure (the command could not start, timed out, was
 * killed when the event's budget ran out, or died of a signal), as opposed to the command's decision.
 */
export function notRunReason({ planned, result }: RanCommand): string | undefined {
  if (result.spawnError) return `could not start: ${result.spawnError}`;
  if (result.killedBy === 'budget') return "killed when the event's time budget ran out";
  if (result.timedOut) return `timed out after ${planned.timeoutMs} ms`;
  if (result.signal) return `died of ${result.signal}`;
  return undefined;
}

type Strength = 'deny' | 'ask' | 'allow' | 'other';

interface Verdict {
  strength: Strength;
  origin: ConfigLevel;
  reply: AgentReply;
}

/**
 * How strongly a JSON answer decides: a deny (or block, or stop) beats ask, which beats allow. Gemini
 * CLI's own words count under Gemini: `decision` "deny" or "block" blocks, "ask" asks, "allow" allows.
 */
function strengthOf(answer: Json, agent: AgentKind): Strength {
  if (agent === 'gemini') {
    if (answer.decision === 'deny') return 'deny';
    if (answer.decision === 'ask') return 'ask';
    if (answer.decision === 'allow') return 'allow';
  }
  const specific = isObject(answer.hookSpecificOutput) ? answer.hookSpecificOutput : {};
  const permission = specific.permissionDecision;
  const behavior = isObject(specific.decision) ? specific.decision.behavior : undefined;
  if (
    permission === 'deny' ||
    behavior === 'deny' ||
    answer.decision === 'block' ||
    answer.continue === false
  )
    return 'deny';
  if (permission === 'ask') return 'ask';
  if (permission === 'allow' || behavior === 'allow' || answer.decision === 'approve') return 'allow';
  return 'other';
}

/** The text the agent tests for JSON (its `reply.jsonStdout`): the raw stdout (Claude Code), or trimmed. */
function jsonCandidate(stdout: string, agent: AgentKind): string {
  return replyRules(agent).jsonStdout === 'raw' ? stdout : stdout.trim();
}

/**
 * The JSON answer on a command's stdout, by the agent's rule: Claude Code parses stdout only when it
 * starts with `{`; Droid when trimmed stdout does.
 */
function jsonAnswer(stdout: string, agent: AgentKind): Json | undefined {
  const text = jsonCandidate(stdout, agent);
  if (!text.startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function verdictOf({ planned, result }: RanCommand, agent: AgentKind): Verdict | undefined {
  const origin = planned.origin;
  const decidedBy = planned.name;
  if (result.exitCode === 2) {
    const reason = result.stderr.text().trim() || `blocked by ${planned.name}`;
    return { strength: 'deny', origin, reply: { exitCode: 2, stdout: '', stderr: `${reason}\n`, decidedBy } };
  }
  if (result.exitCode !== 0) return undefined;
  const answer = jsonAnswer(result.stdout.text(), agent);
  if (!answer) return undefined;
  const stdout = `${result.stdout.text().trim()}\n`;
  return {
    strength: strengthOf(answer, agent),
    origin,
    reply: { exitCode: 0, stdout, stderr: '', decidedBy },
  };
}

const RANK: Record<Strength, number> = { deny: 0, ask: 1, allow: 2, other: 3 };

/**
 * The winning verdict by the agent's rule (`reply.verdict`). `first` (Droid): the first decision in
 * config order. `strongest` (Claude Code, and an agent hookd cannot tell): a deny beats ask, which beats
 * allow; the first of the strongest.
 * Either way a project command never overrides a user guard's deny.
 */
function pickVerdict(verdicts: readonly Verdict[], agent: AgentKind): Verdict | undefined {
  const winner =
    replyRules(agent).verdict === 'first'
      ? verdicts[0]
      : [...verdicts].sort((a, b) => RANK[a.strength] - RANK[b.strength])[0];
  if (winner && winner.origin === 'project' && winner.strength !== 'deny') {
    const userDeny = verdicts.find((v) => v.origin === 'user' && v.strength === 'deny');
    if (userDeny) return userDeny;
  }
  return winner;
}

/**
 * Turns command results into the agent reply, as the agent itself would combine these commands: a
 * blocking command's exit 2 or JSON answer decides (pickVerdict); where the agent shows exit 1's stderr
 * (`reply.exit1ShowsStderr`: Droid) so does hookd; plain stdout of the agent's context events
 * (SessionStart, UserPromptSubmit) is context. A command hookd could not run decides
 * nothing (fail open), unless it says `"onError": "block"`: then hookd answers exit 2 itself.
 */
export function decideReply(event: ReplyEvent, ran: readonly RanCommand[]): AgentReply {
  const speaking = ran.filter((r) => r.planned.spec.blocking && notRunReason(r) === undefined);
  const verdicts = speaking.flatMap((r) => verdictOf(r, event.agent) ?? []);
  const winner = pickVerdict(verdicts, event.agent);
  // Codex, Gemini and Cursor cannot ask (everywhere): a deny or ask in their own terms (agent-rules.ts).
  const refused = winner && agentRefusal(event.agent, event.name, winner.strength, winner.reply);
  if (refused) return writeFor(event, refused);
  return writeFor(event, combine(event, ran, winner, speaking));
}

/** The event a reply is for: its payload tells a hook of the agent's own dialect. */
type ReplyEvent = { name: string; agent: AgentKind; payload?: Record<string, unknown> };

/**
 * The reply as the agent must read it. Gemini CLI shows any stdout that is not a JSON object to the user
 * as a "Hook system message" and ignores it otherwise: context text goes out as its
 * `hookSpecificOutput.additionalContext`, and nothing else but JSON is ever written to its stdout.
 */
export function writeFor(event: ReplyEvent, reply: AgentReply): AgentReply {
  const rules = replyRules(event.agent);
  // Copilot's own dialect reads only a top-level permissionDecision (docs/agents/copilot.md).
  const answer =
    event.name === 'PreToolUse' && event.payload
      ? ownDialectAnswer(event.agent, event.payload, reply)
      : undefined;
  if (answer) return { ...reply, exitCode: 0, stdout: `${JSON.stringify(answer)}\n`, stderr: '' };
  if (rules.blockReason && reply.exitCode === 2) {
    // Said in the agent's own answer: Copilot CLI shows the model no exit-2 stderr; Cursor documents
    // a `permission` answer (kept with exit 2, so the call stays blocked whichever it reads).
    const reason = reply.stderr.trim() || `blocked by ${reply.decidedBy ?? 'a hookd guard'}`;
    const block = blockAnswer(event.agent, event.name, reason);
    if (block) return { ...reply, ...block, stderr: block.exitCode === 2 ? reply.stderr : '' };
  }
  if (!rules.stdoutJsonOnly || reply.stdout === '' || jsonAnswer(reply.stdout, event.agent)) return reply;
  if (reply.exitCode === 0 && rules.contextEvents.includes(event.name)) {
    const additionalContext = reply.stdout.trim();
    return { ...reply, stdout: `${JSON.stringify({ hookSpecificOutput: { additionalContext } })}\n` };
  }
  return { ...reply, stdout: '', stderr: reply.stderr + reply.stdout };
}

/** The reply by the agent's own rule of combining its hooks (decideReply). */
function combine(
  event: { name: string; agent: AgentKind },
  ran: readonly RanCommand[],
  winner: Verdict | undefined,
  speaking: readonly RanCommand[],
): AgentReply {
  if (winner?.strength === 'deny') return winner.reply;
  const failClosed = ran.find((r) => r.planned.spec.onError === 'block' && notRunReason(r) !== undefined);
  if (failClosed) {
    const { name } = failClosed.planned;
    return {
      exitCode: 2,
      stdout: '',
      stderr: `hookd: ${name} could not run (${notRunReason(failClosed)}); it is marked "onError": "block", so hookd blocks\n`,
      decidedBy: name,
    };
  }
  if (winner) return winner.reply;
  if (replyRules(event.agent).exit1ShowsStderr) {
    const errors = speaking
      .filter(({ result }) => result.exitCode === 1 && result.stderr.text().trim() !== '')
      .map(({ result }) => result.stderr.text().trim());
    if (errors.length > 0) return { exitCode: 1, stdout: '', stderr: `${errors.join('\n')}\n` };
  }
  if (replyRules(event.agent).contextEvents.includes(event.name)) {
    const parts = ran
      .filter(({ planned, result }) => passesContext(planned.spec) && result.exitCode === 0)
      .filter((r) => notRunReason(r) === undefined)
      .map(({ result }) => result.stdout.text())
      .filter((text) => !jsonCandidate(text, event.agent).startsWith('{'))
      .map((text) => text.trim())
      .filter((text) => text !== '');
    if (parts.length > 0) return { exitCode: 0, stdout: `${parts.join('\n\n')}\n`, stderr: '' };
  }
  return { exitCode: 0, stdout: '', stderr: '' };
}
