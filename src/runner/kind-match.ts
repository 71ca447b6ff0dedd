import type { ToolKind } from '../agents/types.js';
import { toolKindsOf } from '../agents/tool-kinds.js';
import type { AgentKind } from '../events/types.js';

/**
 * Matching an entry's `kinds` (canonical tool kinds) against an event's tool. In dist/hook.cjs this is
 * a chunk of its own (dist/kinds.cjs, scripts/build.mjs): only an entry with `kinds` loads the agents'
 * tool tables.
 */

/** What a tool call matched: the kind of the tool among the entry's kinds, or why none did. */
export type KindMatch = { kind: ToolKind } | { mismatch: string };

export function matchKinds(kinds: readonly ToolKind[], agent: AgentKind, toolName: unknown): KindMatch {
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
