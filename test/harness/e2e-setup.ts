import type { TestProject } from 'vitest/node';
import { AGENTS, ensureAgent, type AgentName } from './agents.js';
import { availabilityLine, type AgentsAvailability } from './availability.js';

/**
 * globalSetup of the e2e project: installs each pinned agent binary into the cache when missing (once,
 * from the npm registry), prints one line per agent saying whether its tests run, and hands the result
 * to the test files (`inject('hookdAgents')`, read through availability.ts). The lines of the agents
 * that did not run are printed again at the end of the run, next to the summary.
 */
export default function setup(project: TestProject): () => void {
  const agents = {} as AgentsAvailability;
  for (const name of Object.keys(AGENTS) as AgentName[]) {
    agents[name] = ensureAgent(name);
    process.stdout.write(`${availabilityLine(agents[name])}\n`);
  }
  project.provide('hookdAgents', agents);
  return () => {
    for (const a of Object.values(agents)) if (!a.bin) process.stdout.write(`${availabilityLine(a)}\n`);
  };
}
