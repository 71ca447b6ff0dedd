import { describe, inject, it } from 'vitest';
import { AGENTS, type AgentName } from './agents.js';

/** Whether the e2e setup found an agent's pinned binary: its path, or why its tests do not run. */
export interface AgentAvailability {
  agent: AgentName;
  version: string;
  bin?: string;
  reason?: string;
}

export type AgentsAvailability = Record<AgentName, AgentAvailability>;

declare module 'vitest' {
  export interface ProvidedContext {
    /** Provided by test/harness/e2e-setup.ts (the e2e project's globalSetup). */
    hookdAgents: AgentsAvailability;
  }
}

/** The one line the setup prints per agent, and the reason a skipped test carries in its name. */
export function availabilityLine(a: AgentAvailability): string {
  return a.bin
    ? `e2e: ${a.agent} ${a.version} ready (${a.bin})`
    : `e2e: ${a.agent} ${a.version} NOT RUN: ${a.reason ?? 'unknown reason'}`;
}

/** What the e2e setup found for an agent (inside a test file of the e2e project). */
export function agentAvailability(name: AgentName): AgentAvailability {
  const provided = inject('hookdAgents') as AgentsAvailability | undefined;
  return (
    provided?.[name] ?? {
      agent: name,
      version: AGENTS[name].version,
      reason: 'the e2e setup (test/harness/e2e-setup.ts) did not run: run this file in the e2e project',
    }
  );
}

/**
 * A describe block whose tests need an agent's real binary. When the setup found the binary, `body`
 * runs with its path. Otherwise the block holds one skipped test whose name says which agent did not run
 * and why, so the report shows it (never a silent pass).
 */
export function describeWithAgent(name: AgentName, title: string, body: (bin: string) => void): void {
  const a = agentAvailability(name);
  describe(title, () => {
    if (a.bin) body(a.bin);
    else it.skip(availabilityLine(a).replace(/^e2e: /, ''), () => {});
  });
}
