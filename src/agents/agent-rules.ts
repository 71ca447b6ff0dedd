import { CLAUDE_MATCHER, CLAUDE_REPLY } from './claude-protocol.js';
import { CODEX_MATCHER, CODEX_REPLY } from './codex-protocol.js';
import { COPILOT_MATCHER, COPILOT_REPLY } from './copilot-protocol.js';
import { COPILOT_OWN_EVENT_NAMES, copilotOwnDialect, copilotOwnDialectAnswer } from './copilot-dialect.js';
import { CURSOR_ASK_EVENTS, CURSOR_EVENT_NAMES, CURSOR_PERMISSION_EVENTS } from './cursor-protocol.js';
import { DROID_MATCHER, DROID_REPLY } from './droid-protocol.js';
import { GEMINI_CONFIG_NAMES, GEMINI_MATCHER, GEMINI_REPLY } from './gemini-protocol.js';
import type { AgentKind } from './ids.js';
import type { MatcherRules, ReplyRules } from './types.js';
import { isObject, type Json } from '../util/json-values.js';

/*
 * The agents' rules the hook path reads only for some events (an entry to match, commands' answers, an
 * agent with event names of its own), in a chunk of their own: `dist/agents.cjs` (scripts/build.mjs).
 * An agent's data added here leaves the hook bundle's size as it is. The hook path reads them through
 * hook-rules.ts, which keeps Droid's inline; every export here is a function (the chunk's stub forwards
 * functions only).
 */

/**
 * How each agent reads a matcher; for an agent hookd cannot tell (`unknown`), the plain rule: an exact
 * name, then a RegExp, on the fields Droid matches.
 */
const MATCHERS: Readonly<Record<AgentKind, MatcherRules>> = {
  droid: DROID_MATCHER,
  claude: CLAUDE_MATCHER,
  codex: CODEX_MATCHER,
  gemini: GEMINI_MATCHER,
  copilot: COPILOT_MATCHER,
  cursor: DROID_MATCHER,
  unknown: DROID_MATCHER,
};

const UNKNOWN_REPLY: ReplyRules = { ...CLAUDE_REPLY, jsonStdout: 'trimmed' };

/**
 * Cursor (from its documentation): the safe mix, and a block also said in its own `permission` answer; an
 * ask in its own answer where it documents one, else refused.
 */
const CURSOR_REPLY: ReplyRules = {
  ...UNKNOWN_REPLY,
  ask: { nearest: 'deny', who: "Cursor's <event> hooks", events: CURSOR_ASK_EVENTS },
  blockReason: 'permission',
  blockEvents: CURSOR_PERMISSION_EVENTS,
};

/**
 * How each agent takes answers; for an agent hookd cannot tell (`unknown`), the safe mix: JSON on
 * trimmed stdout, the strongest decision wins (a deny is never lost), exit 1 only logged.
 */
const REPLIES: Readonly<Record<AgentKind, ReplyRules>> = {
  droid: DROID_REPLY,
  claude: CLAUDE_REPLY,
  codex: CODEX_REPLY,
  gemini: GEMINI_REPLY,
  copilot: COPILOT_REPLY,
  cursor: CURSOR_REPLY,
  unknown: UNKNOWN_REPLY,
};

/**
 * The agents' own event names that hookd knows by another (Claude Code's) name: Gemini's BeforeTool is
 * a PreToolUse. Every other event keeps the name the payload gives it. Each agent here is in
 * protocols.ts RENAMING_AGENTS.
 */
const EVENT_NAMES: Readonly<Partial<Record<AgentKind, Readonly<Record<string, string>>>>> = {
  gemini: GEMINI_CONFIG_NAMES,
  copilot: COPILOT_OWN_EVENT_NAMES,
  cursor: CURSOR_EVENT_NAMES,
};

/** How the agent reads a matcher. */
export function matcherRulesOf(agent: AgentKind): MatcherRules {
  return MATCHERS[agent];
}

/** How the agent takes answers. */
export function replyRulesOf(agent: AgentKind): ReplyRules {
  return REPLIES[agent];
}

/**
 * A block of `event` in the agent's own answer, when exit 2 alone does not bring the reason to it
 * (ReplyRules.blockReason): the stdout to write, and the exit code to go with it. Undefined: exit 2
 * with the reason on stderr, as is.
 */
export function blockAnswerOf(
  agent: AgentKind,
  event: string,
  reason: string,
): { stdout: string; exitCode: 0 | 2 } | undefined {
  const rules = REPLIES[agent];
  if (!rules.blockReason || !(rules.blockEvents ?? ['PreToolUse']).includes(event)) return undefined;
  if (rules.blockReason === 'permission') {
    const answer = { permission: 'deny', user_message: reason, agent_message: reason };
    return { stdout: `${JSON.stringify(answer)}\n`, exitCode: 2 };
  }
  const answer = {
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: 'deny',
      permissionDecisionReason: reason,
    },
  };
  return { stdout: `${JSON.stringify(answer)}\n`, exitCode: 0 };
}

/** What hookd answers the agent: exit code, stdout, stderr, and the command that decided. */
interface Answer {
  exitCode: 0 | 1 | 2;
  stdout: string;
  stderr: string;
  decidedBy?: string;
}

/** The reason in a JSON answer that denies or asks, else undefined. */
function reasonOf(stdout: string): string | undefined {
  try {
    const answer = JSON.parse(stdout) as Json;
    const specific = isObject(answer.hookSpecificOutput) ? answer.hookSpecificOutput : {};
    const reason = specific.permissionDecisionReason ?? answer.reason ?? answer.stopReason;
    return typeof reason === 'string' && reason.trim() !== '' ? reason.trim() : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A guard's deny or ask (`decision`, the one hookd's reply rules picked) for an agent whose hooks cannot
 * ask everywhere (ReplyRules.ask), on the events its block rewrites (`blockEvents`; all when unset). An
 * ask where the agent's own answer can ask is said in that answer (exit 0); any other ask is refused with
 * exit 2 and a reason that says so (the nearest safe answer), and a deny in whatever words is exit 2
 * with its reason on stderr, which every such agent reads as a block. Undefined: the reply as picked.
 */
export function refusalOf(
  agent: AgentKind,
  event: string,
  decision: string,
  reply: Answer,
): Answer | undefined {
  const rules = REPLIES[agent];
  if (rules.ask === 'supported' || (decision !== 'deny' && decision !== 'ask')) return undefined;
  if (rules.blockEvents && !rules.blockEvents.includes(event)) return undefined;
  if (reply.exitCode === 2) return reply;
  const by = reply.decidedBy ?? 'a hookd guard';
  const decided = reply.decidedBy ? { decidedBy: by } : {};
  const given = reasonOf(reply.stdout);
  if (decision === 'ask' && rules.ask.events?.includes(event)) {
    const reason = given ?? `${by} asks for your approval`;
    const answer = { permission: 'ask', user_message: reason, agent_message: reason };
    return { exitCode: 0, stdout: `${JSON.stringify(answer)}\n`, stderr: '', ...decided };
  }
  const reason = given ?? `blocked by ${by}`;
  const who = rules.ask.who.replace('<event>', event);
  const text =
    decision === 'ask'
      ? `${reason} (${by} asked for your approval; ${who} cannot ask, so hookd refuses)`
      : reason;
  return { exitCode: 2, stdout: '', stderr: `${text}\n`, ...decided };
}

/** hookd's name for the agent's event: its Claude Code counterpart, else its own. */
export function eventNameOf(agent: AgentKind, name: string): string {
  const names = EVENT_NAMES[agent];
  return names && Object.hasOwn(names, name) ? names[name]! : name;
}

/** The agents with event names of their own (for the test that keeps RENAMING_AGENTS in step). */
export function renamingAgents(): AgentKind[] {
  return Object.keys(EVENT_NAMES) as AgentKind[];
}

/** Copilot CLI's camelCase payloads: `sessionId`, and no event name. */
const inCopilotDialect = (payload: Json) =>
  typeof payload.sessionId === 'string' && payload.hook_event_name === undefined;

/**
 * A payload in the agent's own dialect (protocols.ts OWN_DIALECT_AGENTS; Copilot CLI's camelCase one),
 * given the fields of Claude Code's dialect in hookd's copy; returns the agent's name for its event.
 * Undefined for a payload in Claude Code's dialect.
 */
export function ownDialectOf(agent: AgentKind, payload: Json): string | undefined {
  return agent === 'copilot' && inCopilotDialect(payload) ? copilotOwnDialect(payload) : undefined;
}

/**
 * The PreToolUse answer, written as a hook of the agent's own dialect must give it; undefined when the
 * reply needs no change (or the payload is in Claude Code's dialect).
 */
export function ownDialectAnswerOf(
  agent: AgentKind,
  payload: Json,
  reply: { exitCode: number; stdout: string; stderr: string; decidedBy?: string },
): Json | undefined {
  if (agent !== 'copilot' || !inCopilotDialect(payload)) return undefined;
  const by = reply.decidedBy ?? 'a hookd guard';
  return copilotOwnDialectAnswer(reply.stdout, reply.stderr, reply.exitCode, by);
}
