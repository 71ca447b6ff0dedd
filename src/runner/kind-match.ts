import type { ToolKind } from '../agents/types.js';
import { toolKindsOf } from '../agents/tool-kinds.js';
import type { AgentId } from '../agents/ids.js';

/**
 * Matching an entry's `kinds` (canonical tool kinds) against an event's tool, and the words for why an
 * entry did not match. In dist/hook.cjs this is a chunk of its own (dist/kinds.cjs, scripts/build.mjs):
 * only an entry with `kinds` loads the agents' tool tables, and only a reader of the reasons the words.
 */

/** Why an entry did not match, in parts: what the entry wants, the event's field and its value. */
export type MismatchParts = [key: string, wanted: unknown, field: string, value: unknown];
/** Why an entry did not match: in parts (put into words by `mismatchText`), or already in words. */
export type Mismatch = MismatchParts | string;

/** The words for why an entry did not match (explain and emit show them). */
export function mismatchText(why: Mismatch): string {
  if (typeof why === 'string') return why;
  const [key, wanted, field, value] = why;
  if (key === 'agent') return `agent ${JSON.stringify(wanted)} is not this event's (${String(value)})`;
  if (key === 'agents')
    return `agents ${JSON.stringify(wanted)} do not include this event's (${String(value)})`;
  return `${key} ${JSON.stringify(wanted)} does not match ${field} ${JSON.stringify(value ?? null)}`;
}

/** What a tool call matched: the kind of the tool among the entry's kinds, or why none did. */
export type KindMatch = { kind: ToolKind } | { mismatch: string };

export function matchKinds(
  kinds: readonly ToolKind[],
  agent: AgentId | 'unknown',
  toolName: unknown,
): KindMatch {
  const wanted = JSON.stringify(kinds);
  if (typeof toolName !== 'string') return { mismatch: `kinds ${wanted}: the event names no tool` };
  const found = toolKindsOf(agent, toolName);
  const kind = found.find((k) => kinds.includes(k));
  if (kind !== undefined) return { kind };
  const what = found.length > 0 ? `kind ${found.join('/')}` : 'no known kind';
  return {
    mismatch: `kinds ${wanted} do not match tool_name ${JSON.stringify(toolName)} (${what} for ${agent})`,
  };
}
