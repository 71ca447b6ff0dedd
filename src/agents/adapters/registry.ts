import { CLAUDE } from './claude.js';
import { CODEX } from './codex.js';
import { COPILOT } from './copilot.js';
import { DROID } from './droid.js';
import { GEMINI } from './gemini.js';
import { AGENT_IDS, type AgentId } from '../ids.js';
import type { AgentAdapter, ToolKind } from '../types.js';
import { toolKindsOf } from '../tool-kinds.js';

/** Every agent's adapter, by id (one entry per id of AGENT_IDS: the type says so). */
export const ADAPTERS: Readonly<Record<AgentId, AgentAdapter>> = {
  droid: DROID,
  claude: CLAUDE,
  codex: CODEX,
  gemini: GEMINI,
  copilot: COPILOT,
};

/** The adapters in the order of AGENT_IDS. */
export function allAdapters(): AgentAdapter[] {
  return AGENT_IDS.map((id) => ADAPTERS[id]);
}

export function adapterFor(id: AgentId): AgentAdapter {
  return ADAPTERS[id];
}

/** The canonical kind of one of the agent's tools, or undefined for a tool it does not list. */
export function toolKindOf(id: AgentId, toolName: string): ToolKind | undefined {
  return toolKindsOf(id, toolName)[0];
}

/** The agent's own tool names of a canonical kind (an MCP kind has none: its names are patterns). */
export function toolNamesOf(id: AgentId, kind: ToolKind): string[] {
  return Object.entries(ADAPTERS[id].tools)
    .filter(([, k]) => k === kind)
    .map(([name]) => name);
}
