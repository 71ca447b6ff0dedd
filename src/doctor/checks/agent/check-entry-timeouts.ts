import { AGENT_PROFILES, type Agent } from '../../../install/agents.js';
import { result, type CheckResult } from '../../types.js';
import { agentName, installCommandFor, runningHookdHooks, type SettingsFileState } from './agent-settings.js';
import { hookdHooksAt } from '../../../install/hookd-layers.js';
import { isObject } from '../../../util/json-values.js';

/** Below this many milliseconds a Gemini timeout was almost surely meant as seconds. */
const SHORTEST_MS = 1000;

/**
 * hookd's entries against the agent's own timeout rules, for agents that have some beyond "seconds, as
 * written": Gemini CLI reads `timeout` in milliseconds (a `60` there is 60 ms, and the hook is killed
 * before hookd starts); Codex CLI gives SessionEnd and Interrupt a few seconds whatever the entry says.
 * Undefined for an agent without such rules.
 */
export function checkEntryTimeouts(
  agent: Agent,
  states: readonly SettingsFileState[],
): CheckResult | undefined {
  const profile = AGENT_PROFILES[agent];
  const ms = profile.timeoutUnit === 'milliseconds';
  if (!ms && !profile.capSec) return undefined;
  const id = `${agent}-timeouts`;
  const name = agentName(agent);
  const title = `${name} gives hookd time to run`;
  const running = new Set(runningHookdHooks(states).map((h) => `${h.file}\0${h.path}`));
  const hooks = hookdHooksAt(states).filter((h) => running.has(`${h.file}\0${h.path}`) && isObject(h.hook));
  if (hooks.length === 0) return result(id, title, 'skip', `hookd is not wired into ${name}`);
  const lines: string[] = [];
  for (const h of hooks) {
    const timeout = (h.hook as Record<string, unknown>).timeout;
    if (typeof timeout !== 'number') continue;
    if (ms && timeout < SHORTEST_MS)
      lines.push(
        `${h.file}: ${h.path}: timeout ${timeout} is ${timeout} ms: ${name} reads timeouts in milliseconds and ends the hook before hookd can answer`,
      );
    const cap = profile.capSec?.(h.event);
    if (cap !== undefined && timeout > cap)
      lines.push(
        `${h.file}: ${h.path}: timeout ${timeout} s: ${name} gives ${h.event} at most ${cap} s whatever the entry says; hookd's work for it must fit`,
      );
  }
  if (lines.length === 0)
    return result(
      id,
      title,
      'ok',
      ms
        ? `every hookd entry's timeout is in milliseconds, as ${name} reads it`
        : `every hookd entry's timeout is within what ${name} allows`,
    );
  return result(
    id,
    title,
    'warn',
    lines.join('\n'),
    `run \`${installCommandFor(agent, states)}\` (it writes each timeout in ${name}'s unit and within its limits)`,
  );
}
