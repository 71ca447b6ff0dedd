import type { HookdConfig } from '../config/schema.js';
import { AGENT_PROFILES, AGENTS, SCOPES, type Agent } from '../install/agents.js';
import type { Env } from '../paths.js';
import { transportOf, type WiredTransport } from '../install/transport.js';
import { eventsToWire, type WiringReason } from '../install/wiring.js';
import { hooksIn, inspectSettingsFile, type SettingsFileState } from './agent-settings.js';

/** One of hookd's hooks in a settings file, any transport. */
export interface WiredHook {
  file: string;
  event: string;
  /** `hooks.Stop[0].hooks[1]` */
  path: string;
  transport: WiredTransport;
  matcher: string;
  hook: Record<string, unknown>;
}

/** How one event reaches hookd for an agent, and why the config needs it. */
export interface EventPath {
  event: string;
  /** The transport the settings files give it, or 'not wired'. */
  path: WiredTransport | 'not wired';
  /** The matcher of hookd's entry ('' = every call); the one the config needs in `neededMatcher`. */
  matcher?: string;
  file?: string;
  /** Why the config needs the event; empty when it does not (a wired event then only costs time). */
  reasons: WiringReason[];
  neededMatcher?: string;
  /** Commands run for it: their decisions must reach the agent. */
  commands: boolean;
}

/** hookd's hooks (node, fast, and the retired http) in a settings file the agent accepts. */
export function wiredHooksOf(state: SettingsFileState): WiredHook[] {
  return hooksIn(state).flatMap(({ event, path, entry, hook }) => {
    const transport = transportOf(hook);
    if (!transport) return [];
    const matcher = typeof entry.matcher === 'string' && entry.matcher !== '*' ? entry.matcher : '';
    return [{ file: state.file, event, path, transport, matcher, hook: hook as Record<string, unknown> }];
  });
}

/** True when an agent matcher `wired` sends at least every tool `needed` names ('' is every tool). */
export function matcherCovers(wired: string, needed: string): boolean {
  if (wired === '') return true;
  if (needed === '') return false;
  const have = new Set(wired.split('|'));
  return needed.split('|').every((name) => have.has(name));
}

/**
 * Every event that is wired or needed, in the agent's event order: the path the agent's settings files
 * give it (user and project together, as the agent merges them) and why the config needs it.
 */
export function eventPaths(
  agent: Agent,
  states: readonly SettingsFileState[],
  config: HookdConfig | undefined,
): EventPath[] {
  const wired = states.flatMap(wiredHooksOf);
  const needed = new Map((config ? eventsToWire(config, agent) : []).map((w) => [w.event, w]));
  const known = AGENT_PROFILES[agent].knownEvents;
  const events = [...known, ...wired.map((w) => w.event).filter((e) => !known.includes(e))].filter(
    (e, i, all) => all.indexOf(e) === i && (needed.has(e) || wired.some((w) => w.event === e)),
  );
  return events.map((event) => {
    const hook = wired.find((w) => w.event === event);
    const need = needed.get(event);
    return {
      event,
      path: hook?.transport ?? 'not wired',
      ...(hook ? { matcher: hook.matcher, file: hook.file } : {}),
      reasons: need?.reasons ?? [],
      ...(need ? { neededMatcher: need.matcher } : {}),
      commands: need?.commands ?? false,
    };
  });
}

/** The install command that wires what the config needs, with the transport in use. */
export function fixCommand(agent: Agent, paths: readonly EventPath[]): string {
  const used = new Set(paths.map((p) => p.path));
  const transport = used.has('node') && !used.has('fast') && !used.has('http') ? ' --transport node' : '';
  return `hookd install --agent ${agent}${transport}`;
}

const REASON_TEXT: Record<WiringReason, string> = {
  hooks: 'your hooks',
  rules: 'notification rules',
  ledger: 'the session ledger',
  waiting: 'cancels held waiting notifications',
};

/** One line per event: `Stop: fast (notification rules, your hooks)`. */
export function formatEventPath(p: EventPath): string {
  const matcher = p.matcher ? ` [${p.matcher}]` : '';
  const why =
    p.reasons.length > 0 ? p.reasons.map((r) => REASON_TEXT[r]).join(', ') : 'not needed by the config';
  return `${p.event}: ${p.path}${matcher} (${why})`;
}

/** Each agent's event paths, from its user and project settings files and the config (status, explain). */
export async function agentEventPaths(
  env: Env,
  projectDir: string,
  config: HookdConfig | undefined,
): Promise<Record<Agent, EventPath[]>> {
  const entries = await Promise.all(
    AGENTS.map(async (agent) => {
      const states = await Promise.all(
        SCOPES.map((scope) => inspectSettingsFile(agent, scope, env, projectDir)),
      );
      return [agent, eventPaths(agent, states, config)] as const;
    }),
  );
  return Object.fromEntries(entries) as Record<Agent, EventPath[]>;
}

/** The path of one event (not wired when the settings do not send it). */
export function pathOf(paths: readonly EventPath[], event: string): EventPath {
  return paths.find((p) => p.event === event) ?? { event, path: 'not wired', reasons: [], commands: false };
}
