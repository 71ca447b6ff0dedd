import type { AgentId } from './ids.js';
import type { ToolKind, ToolTable } from './types.js';
import { CLAUDE_TOOLS } from './claude-protocol.js';
import { CODEX_TOOLS } from './codex-protocol.js';
import { COPILOT_TOOLS } from './copilot-protocol.js';
import { DROID_TOOLS } from './droid-protocol.js';
import { GEMINI_TOOLS } from './gemini-protocol.js';

/** Each agent's tool names and their canonical kinds (data only: a hook entry's `kinds` read it). */
export const TOOL_TABLES: Readonly<Record<AgentId, ToolTable>> = {
  droid: DROID_TOOLS,
  claude: CLAUDE_TOOLS,
  codex: CODEX_TOOLS,
  gemini: GEMINI_TOOLS,
  copilot: COPILOT_TOOLS,
};

function kindIn(table: ToolTable, toolName: string): ToolKind | undefined {
  if (toolName.startsWith(table.mcpToolPrefix)) return 'mcp';
  return Object.hasOwn(table.tools, toolName) ? table.tools[toolName] : undefined;
}

/**
 * The canonical kinds a tool name stands for: its kind in the agent's table (none for a tool the agent
 * does not list). For an agent hookd cannot tell, its kind in any agent's table, so that a guard on a
 * kind never goes missing.
 */
export function toolKindsOf(agent: AgentId | 'unknown', toolName: string): ToolKind[] {
  const tables = agent === 'unknown' ? Object.values(TOOL_TABLES) : [TOOL_TABLES[agent]];
  const kinds = new Set<ToolKind>();
  for (const table of tables) {
    const kind = kindIn(table, toolName);
    if (kind !== undefined) kinds.add(kind);
  }
  return [...kinds];
}
